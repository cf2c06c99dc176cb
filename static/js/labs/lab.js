/**
 * labs/lab.js — the script of every lab page (templates/labs/lab.html). It keeps the URL
 * text of each control, asks GET /api/v1/labs/{id}/figures for the figures an edit affects
 * (one request in flight per figure: a newer one aborts the older), draws the answers,
 * keeps <main aria-busy> true until every figure shows the latest state, and mirrors the
 * state in the URL. A slider marked data-drag-preview asks for a small run while it
 * moves and for the full run when released. No maths: the server computes and formats.
 */

import { ApiError, errorList, getJSON, send, siteUrl } from "../api.js";
import { holdAnchor } from "../fold.js";
import { copyText } from "../toolbar.js";
import { markControl, readControl, showStep, syncDisabled, writeControl } from "./controls.js";
import { Player } from "./player.js";
import { part } from "../dom.js";
import { applyTheme, onSchemeChange, resolveTheme } from "../theme.js";
import { renderFigure } from "./render.js";
import { watchScrollCues } from "../scroll_cue.js";
import { wireShare } from "./share.js";

const TYPING_DELAY_MS = 250;
const BUSY_RETRY_MS = 1000;
const main = document.getElementById("main");
const initial = JSON.parse(document.getElementById("lab-state").textContent);

const lab = {
  id: initial.lab,
  committed: { ...initial.query }, // key -> text the server accepted (non-defaults only)
  theme: document.getElementById("theme").value,
  inFlight: new Map(), // figure -> AbortController
  links: {},
  exports: {}, // figure -> Plotly version of a grids-only figure (PNG/SVG)
  timers: new Map(),
  hooks: [], // (name, fig) => void, for page modules (grids, progress)
};

const described = {}; // key -> the control's description (choices for steps)
for (const [name, list] of Object.entries(initial.controls)) {
  for (const c of list) described[c.key] = { ...c, figure: name };
}

export const panels = new Map(
  [...main.querySelectorAll("section[data-figure]")].map((p) => [p.dataset.figure, p]),
);

const resolvedTheme = () => resolveTheme(lab.theme);

function announce(text) {
  document.getElementById("announce").textContent = text;
}

function busy() {
  main.setAttribute("aria-busy", String(lab.inFlight.size > 0 || lab.timers.size > 0));
}

function controlsOf(name) {
  return [...panels.get(name).querySelectorAll("[data-control]")];
}

const reads = initial.reads ?? {}; // figure -> the figures whose controls it also uses

/** The figures that read `name`'s controls (redrawn when they change). */
const readers = (name) => Object.keys(reads).filter((other) => reads[other].includes(name));

/** The query for `names`: every accepted value, with the figures' current controls on top. */
function queryFor(names, preview) {
  const params = new URLSearchParams(lab.committed);
  for (const name of names) {
    for (const source of [...(reads[name] ?? []), name]) {
      for (const el of controlsOf(source))
        params.set(el.dataset.key, readControl(el, described[el.dataset.key]));
    }
  }
  params.set("figures", names.join(","));
  params.set("theme", resolvedTheme());
  if (preview) params.set("preview", "1");
  return params;
}

function showError(name, error) {
  const panel = panels.get(name);
  const box = part(panel, "error");
  const el = panel.querySelector(`[data-key="${CSS.escape(error?.field ?? "")}"]`);
  for (const c of controlsOf(name)) markControl(c, null);
  if (el) markControl(el, error.msg);
  box.hidden = !error;
  box.textContent = error
    ? `${error.field}: ${error.msg}. The figure shows the last valid numbers.`
    : "";
}

// A link about one figure (figure=<name>, checked by the server) stays about it as the
// controls change: the query names it (what the server and its oEmbed discovery read),
// the fragment scrolls to it.
function pageUrl() {
  const params = new URLSearchParams(lab.committed);
  if (lab.theme !== "auto") params.set("theme", lab.theme);
  if (initial.figure) params.set("figure", initial.figure);
  const text = params.toString();
  const hash = initial.figure ? `#${initial.figure}` : window.location.hash;
  return `${window.location.pathname}${text ? `?${text}` : ""}${hash}`;
}

const PROGRESS_AFTER_MS = 150; // a run shorter than this never shows the bar
const NDJSON = "application/x-ndjson"; // progress lines, then the answer

/** Read an NDJSON answer line by line: progress lines move the bar, the last line is the
 * answer (a `result`, or a `detail` error list, which rejects as an ApiError). */
async function streamed(response, panel) {
  const box = part(panel, "progress");
  const bar = box.querySelector("progress");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let last = null;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value ?? new Uint8Array(), { stream: !done });
      const lines = buffer.split("\n");
      buffer = lines.pop();
      for (const line of lines.filter(Boolean)) {
        const item = JSON.parse(line);
        if (item.progress) {
          bar.max = item.progress.total;
          bar.value = item.progress.done;
          part(panel, "progress-text").textContent =
            `block ${item.progress.done} of ${item.progress.total}`;
        } else last = item;
      }
      if (done) break;
    }
  } finally {
    box.hidden = true;
  }
  if (last?.result) return last.result;
  const ended = { detail: [{ field: "body", msg: "the run ended without an answer" }] };
  throw new ApiError(response.status, errorList(last ?? ended, response.status));
}

/** The answer for figure `name`; rejects with an ApiError (or the AbortError). */
async function fetchAnswer(name, preview, signal) {
  const panel = panels.get(name);
  const experiment = Boolean(panel.querySelector('[data-share="numpy"][data-experiment]'));
  const kind = experiment && !preview ? "ndjson" : "json";
  // The bar shows from the request on (the server may still be starting the run), and
  // only for runs longer than PROGRESS_AFTER_MS, so quick answers never flash it.
  const box = part(panel, "progress");
  const shown =
    kind === "ndjson"
      ? window.setTimeout(() => {
          box.querySelector("progress").removeAttribute("value");
          part(panel, "progress-text").textContent = "starting the run";
          box.hidden = false;
        }, PROGRESS_AFTER_MS)
      : null;
  try {
    const path = kind === "json" ? "figures" : "figures.ndjson";
    const url = siteUrl(`/api/v1/labs/${lab.id}/${path}?${queryFor([name], preview)}`);
    if (kind === "json") return await getJSON(url, { signal });
    return await streamed(await send(url, { signal, accept: NDJSON }), panel);
  } finally {
    window.clearTimeout(shown);
    if (kind === "ndjson") box.hidden = true;
  }
}

/** Ask for figure `name` (preview: the small run), draw it, and commit its values. */
export async function request(name, { preview = false } = {}) {
  lab.inFlight.get(name)?.abort();
  const controller = new AbortController();
  lab.inFlight.set(name, controller);
  busy();
  const started = performance.now();
  try {
    const data = await fetchAnswer(name, preview, controller.signal);
    performance.measure(`lab:${name}:answered`, { start: started });
    showError(name, null);
    for (const [key, text] of Object.entries(data.values[name])) {
      const el = panels.get(name).querySelector(`[data-key="${CSS.escape(key)}"]`);
      if (el && !preview) writeControl(el, described[key], text);
    }
    if (!preview) lab.committed = { ...data.query };
    lab.links[name] = data.links[name];
    lab.exports[name] = data.figures[name].export ?? null;
    const options = { onDrag: (control, x, y) => dragged(name, control, x, y) };
    if (data.figures[name].frames) await playerOf(name, options).load(data.figures[name]);
    else await renderFigure(panels.get(name), data.figures[name], options);
    for (const hook of lab.hooks) hook(name, data.figures[name], preview);
    performance.measure(`lab:${name}${preview ? ":preview" : ""}`, { start: started });
    if (!preview) window.history.replaceState(null, "", pageUrl());
  } catch (error) {
    if (error.name === "AbortError") return;
    const first = error.errors?.[0] ?? { field: "body", msg: error.message };
    // Busy (503, or a streamed "busy" line): the server refuses rather than queues; ask again.
    if ((error.status === 503 || first.type === "busy") && !controller.signal.aborted) {
      lab.timers.set(
        name,
        window.setTimeout(() => {
          lab.timers.delete(name);
          request(name, { preview });
        }, BUSY_RETRY_MS),
      );
    }
    showError(name, first);
  } finally {
    if (lab.inFlight.get(name) === controller) lab.inFlight.delete(name);
    busy();
  }
}

const players = new Map(); // figure -> Player, for figures sent as frames (B1)

/** The player of figure `name`: its step slider follows the frames, and a frame the
 * reader settles on is asked for (the answer records it in the URL). */
function playerOf(name, options) {
  if (!players.has(name)) {
    const panel = panels.get(name);
    players.set(name, new Player(panel, { options, described, onSettle: () => now(name) }));
  }
  return players.get(name);
}

/** A shape dragged on the chart: its position becomes the vector control's text. */
function dragged(name, control, x, y) {
  const el = panels.get(name).querySelector(`[data-control="${CSS.escape(control)}"]`);
  const inputs = el.querySelectorAll('[data-part="value"]');
  inputs[0].value = String(x);
  inputs[1].value = String(y);
  now(name);
}

/** Cancel the run of figure `name` (the figure keeps its last drawn state). */
export function cancel(name) {
  lab.inFlight.get(name)?.abort();
  lab.inFlight.delete(name);
  part(panels.get(name), "progress").hidden = true;
  announce("Run cancelled: the figure shows the last finished run.");
  busy();
}

function later(name) {
  for (const each of [name, ...readers(name)]) {
    window.clearTimeout(lab.timers.get(each));
    lab.timers.set(
      each,
      window.setTimeout(() => {
        lab.timers.delete(each);
        request(each);
      }, TYPING_DELAY_MS),
    );
  }
  busy();
}

function now(name, options) {
  for (const each of [name, ...readers(name)]) {
    window.clearTimeout(lab.timers.get(each));
    lab.timers.delete(each);
    request(each, options);
  }
}

/** ◀ ▶ buttons move a steps slider (data-step-control names it) one position. */
function wireStepButtons(name, panel) {
  panel.addEventListener("click", (e) => {
    const button = e.target.closest("[data-step-move]");
    if (!button) return;
    const el = panel.querySelector(`[data-control="${CSS.escape(button.dataset.stepControl)}"]`);
    const input = el.querySelector('[data-part="value"]');
    const next = Number(input.value) + Number(button.dataset.stepMove);
    if (next < Number(input.min) || next > Number(input.max)) return;
    input.value = String(next);
    showStep(el, described[el.dataset.key]);
    now(name);
  });
}

/** Buttons with data-set-control="name" data-value="text" set that control and redraw;
 * with data-set-figure="other" the control is another figure's, which is then shown. */
function wireSetButtons(name, panel) {
  panel.addEventListener("click", (e) => {
    const button = e.target.closest("[data-set-control]");
    if (!button) return;
    const target = button.dataset.setFigure ?? name;
    const el = panels
      .get(target)
      .querySelector(`[data-control="${CSS.escape(button.dataset.setControl)}"]`);
    writeControl(el, described[el.dataset.key], button.dataset.value);
    now(target);
    if (target !== name) panels.get(target).scrollIntoView({ block: "start" });
  });
}

function wireControls() {
  for (const [name, panel] of panels) {
    wireStepButtons(name, panel);
    wireSetButtons(name, panel);
    const form = part(panel, "controls");
    if (!form) continue;
    syncDisabled(form);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      now(name);
    });
    form.addEventListener("input", (e) => {
      const el = e.target.closest("[data-control]");
      if (!el) return;
      const key = el.dataset.key;
      if (e.target.dataset.part === "range") {
        el.querySelector('[data-part="value"]').value = e.target.value;
        return now(name, { preview: el.dataset.dragPreview === "1" });
      }
      if (el.dataset.kind === "steps") {
        showStep(el, described[key]);
        return now(name, { preview: el.dataset.dragPreview === "1" });
      }
      if (e.target.type === "text") later(name);
    });
    form.addEventListener("change", (e) => {
      const el = e.target.closest("[data-control]");
      if (!el) return;
      if (e.target.dataset.part === "range")
        el.querySelector('[data-part="value"]').value = e.target.value;
      syncDisabled(form);
      now(name);
    });
    form.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.target.type === "text") {
        e.preventDefault();
        now(name);
      }
    });
  }
}

function requestAll() {
  for (const name of panels.keys()) request(name);
}

function start() {
  applyTheme(lab.theme);
  wireControls();
  if (initial.figure) holdAnchor(main, initial.figure); // its fragment wins, as in a browser
  wireShare(main, (name) => ({
    links: lab.links[name],
    heading: `${panels.get(name).querySelector(".fig-number").textContent}. ${part(panels.get(name), "title").textContent}`,
    exported: lab.exports[name],
    numpy: () => numpyScript(name),
  }));
  for (const button of main.querySelectorAll('[data-action="cancel"]')) {
    button.addEventListener("click", () => cancel(button.closest("[data-figure]").dataset.figure));
  }
  document.getElementById("theme").addEventListener("change", (e) => {
    lab.theme = e.target.value;
    applyTheme(lab.theme);
    requestAll();
  });
  onSchemeChange(() => {
    if (lab.theme === "auto") {
      applyTheme(lab.theme);
      requestAll();
    }
  });
  document.getElementById("copy-link").addEventListener("click", async () => {
    const status = document.getElementById("copy-status");
    try {
      await copyText(window.location.href);
      status.textContent = "Link copied.";
    } catch {
      status.textContent = window.location.href;
    }
  });
  // Wide tables and grids (F1's 10 × 10 on a phone) scroll inside a labelled box with a cue.
  watchScrollCues(main, "[data-role=primary-tables], [data-role=tables], .lab-grid-item", "table");
  requestAll();
}

/** The numpy script of an experiment figure (the server builds it). */
async function numpyScript(name) {
  const url = siteUrl(`/api/v1/labs/${lab.id}/numpy/${name}?${queryFor([name], false)}`);
  return (await send(url, { accept: "text/plain, */*" })).text();
}

export { lab };
start();
