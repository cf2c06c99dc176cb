/**
 * labs/embed.js — the script of /embed/labs/{id}/{figure}: draws the one figure the server
 * sent (both colour schemes when theme=auto, following the host's prefers-color-scheme),
 * sets <main aria-busy="false"> once drawn, and posts its height to the host page:
 *   { type: "attention-lab:height", figure: "<lab id>/<figure>", height: <px> }
 * A player (B1) waits for a click unless the URL says autoplay=1; height=N fixes the
 * document's height (it scrolls inside). With controls=1 the figure's controls are in
 * the embed: an edit asks GET /api/v1/labs/{id}/figures for this figure in the new state
 * (the server checks, computes and formats; a bad value is named under the controls) and
 * redraws it.
 */

import { getJSON, siteUrl } from "../api.js";
import { markControl, readControl, showStep, syncDisabled, writeControl } from "./controls.js";
import { Player } from "./player.js";
import { renderFigure } from "./render.js";
import { applyTheme, onSchemeChange, resolveTheme } from "../theme.js";

const data = JSON.parse(document.getElementById("embed-data").textContent);
const main = document.getElementById("main");
const panel = main.querySelector("figure[data-figure]");
const theme = () => resolveTheme(data.theme);

let player = null;
const form = panel.querySelector('[data-role="controls"]');
const described = Object.fromEntries((data.controls ?? []).map((c) => [c.key, c]));
const TYPING_DELAY_MS = 250;
let controller = null;
let typing = null;

function showError(error) {
  const box = panel.querySelector('[data-role="error"]');
  for (const el of form.querySelectorAll("[data-control]")) markControl(el, null);
  const el = error && form.querySelector(`[data-key="${CSS.escape(error.field ?? "")}"]`);
  if (el) markControl(el, error.msg);
  box.hidden = !error;
  box.textContent = error
    ? `${error.field}: ${error.msg}. The figure shows the last valid numbers.`
    : "";
}

/** Ask the server for the figure in the state the controls show, then draw it. */
async function refresh() {
  window.clearTimeout(typing);
  controller?.abort();
  controller = new AbortController();
  const params = new URLSearchParams(data.extra ?? {});
  for (const el of form.querySelectorAll("[data-control]"))
    params.set(el.dataset.key, readControl(el, described[el.dataset.key]));
  params.set("figures", data.figure);
  params.set("theme", theme());
  main.setAttribute("aria-busy", "true");
  try {
    const answer = await getJSON(siteUrl(`/api/v1/labs/${data.lab}/figures?${params}`), {
      signal: controller.signal,
    });
    showError(null);
    for (const [key, text] of Object.entries(answer.values[data.figure])) {
      const el = form.querySelector(`[data-key="${CSS.escape(key)}"]`);
      if (el) writeControl(el, described[key], text);
    }
    data.specs = { [theme()]: answer.figures[data.figure] }; // another scheme asks again
    document.getElementById("open-link").href = answer.links[data.figure].link;
    await draw().then(postHeight);
  } catch (error) {
    if (error.name === "AbortError") return;
    showError(error.errors?.[0] ?? { field: "body", msg: error.message });
    main.setAttribute("aria-busy", "false");
  }
}

if (form) {
  syncDisabled(form);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    refresh();
  });
  form.addEventListener("input", (e) => {
    const el = e.target.closest("[data-control]");
    if (!el) return;
    if (e.target.dataset.part === "range")
      el.querySelector('[data-part="value"]').value = e.target.value;
    if (el.dataset.kind === "steps") showStep(el, described[el.dataset.key]);
    if (e.target.type === "text") {
      window.clearTimeout(typing);
      typing = window.setTimeout(refresh, TYPING_DELAY_MS);
    }
  });
  form.addEventListener("change", () => {
    syncDisabled(form);
    refresh();
  });
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target.type === "text") {
      e.preventDefault();
      refresh();
    }
  });
}

/** The lab page's player, except that in an embed it starts by itself only with
 * autoplay=1 (motion in someone else's page is the host's choice). */
class EmbedPlayer extends Player {
  mayAutoplay() {
    return data.frame?.autoplay === true && super.mayAutoplay();
  }
}

async function draw() {
  main.setAttribute("aria-busy", "true");
  applyTheme(data.theme);
  const fig = data.specs[theme()] ?? Object.values(data.specs)[0];
  if (fig.frames) {
    // B1: the lab page's player; with controls=1 a settled frame is asked for.
    player ??= new EmbedPlayer(panel, { described, onSettle: () => refresh() });
    await player.load(fig);
  } else await renderFigure(panel, fig);
  main.setAttribute("aria-busy", "false");
}

// height=N: the document is N px tall and scrolls inside (embed.css), for hosts whose
// iframe cannot follow the height message; the message then says N.
if (data.frame?.height) {
  document.documentElement.classList.add("fixed-height");
  document.documentElement.style.height = `${data.frame.height}px`;
}

let lastHeight = 0;
function postHeight() {
  const height = data.frame?.height ?? Math.ceil(document.documentElement.scrollHeight);
  if (height === lastHeight) return;
  lastHeight = height;
  window.parent.postMessage(
    { type: "attention-lab:height", figure: `${data.lab}/${data.figure}`, height },
    "*",
  );
}
// Chromium runs no ResizeObserver in a cross-origin frame outside the host's viewport,
// so the height is also posted once drawn (a lab below the fold gets its height at once).
new ResizeObserver(postHeight).observe(document.body);

onSchemeChange(() => {
  if (data.theme !== "auto") return;
  if (data.specs[theme()]) draw().then(postHeight);
  else refresh(); // after an edit only the scheme it was made in is at hand
});
draw().then(postHeight);
