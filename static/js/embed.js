/**
 * embed.js — the script of /embed/{figure}: draws the one figure the server sent, keeps
 * the colours in step with the host's colour scheme (theme=auto), re-requests the figure
 * when the compact editor or a control changes, and tells the host page its height.
 *
 * No maths here: the figure (Plotly data/layout, caption, readout, tables) is computed on
 * the server; this module only calls Plotly.react and sets textContent. Requests go
 * through api.js, typed numbers through numbers.js, tables through tables.js.
 *
 * Height message, posted to window.parent with targetOrigin "*" whenever the content
 * height changes:  { type: "attention-lab:height", figure: <number>, height: <px> }
 */

import { postJSON, siteUrl, targetOf } from "./api.js";
import { setRich } from "./dom.js";
import { parseNumber } from "./numbers.js";
import { figuresView, setViewDefaults, toQuery } from "./state.js";
import { Stepper } from "./stepper.js";
import { wireStretch } from "./stretch.js";
import { dataTable } from "./tables.js";
import { onSchemeChange, resolveTheme } from "./theme.js";

const data = JSON.parse(document.getElementById("embed-data").textContent);
setViewDefaults(data.view_defaults);
const root = document.getElementById("embed");
const plot = document.getElementById("plot");
const status = document.getElementById("status");

const state = { body: structuredClone(data.body), view: { ...data.view } };
let specs = data.specs; // { light?: figure, dark?: figure } for the current state
// The colour schemes an `auto` embed draws: the ones the server sent it (its one list).
const DRAWN = Object.keys(data.specs);
let presetId = data.preset_id;
let controller = null;

const currentTheme = () => resolveTheme(state.view.theme);

function field(name) {
  return root.querySelector(`[data-field="${name}"]`);
}

function renderTables(tables) {
  field("tables").replaceChildren(...(tables ?? []).map((spec) => dataTable(spec)));
}

function renderText(fig) {
  setRich(field("title"), fig.title ?? "");
  setRich(field("caption"), fig.caption ?? "");
  plot.setAttribute("aria-label", fig.alt ?? fig.title ?? "");
  field("readout").replaceChildren(
    ...(fig.readout ?? []).map((line) => {
      const li = document.createElement("li");
      setRich(li, line);
      return li;
    }),
  );
  renderTables(fig.tables);
}

let stepper = null; // Figure 3 only: the same player as on the main page

async function draw() {
  const fig = specs[currentTheme()] ?? Object.values(specs)[0];
  renderText(fig);
  const config = { ...(fig.config ?? {}), responsive: true };
  if (fig.frames?.length) {
    // The stepper shows the final frame when idle and plays the frames on request.
    stepper ??= new Stepper(root.querySelector(".embed-figure"), (_panel, _fig, frame) =>
      window.Plotly.react(plot, frame.data, frame.layout, config),
    );
    await stepper.load(fig);
  } else {
    await window.Plotly.react(plot, fig.data, fig.layout, config);
  }
  root.dataset.drawn = "true";
}

/* ---- edits: ask the server for the figure in the new state ---- */

function openLink() {
  const link = document.getElementById("open-link");
  link.href = siteUrl(`/?${toQuery(state, presetId)}#fig-${data.figure}`);
}

function showErrors(errors) {
  status.textContent = errors.map((e) => `${e.field}: ${e.msg}`).join("; ");
  for (const input of root.querySelectorAll("[aria-invalid]"))
    input.removeAttribute("aria-invalid");
  for (const e of errors) {
    const target = targetOf(e.field);
    if (target.kind !== "cell") continue;
    const { matrix, row, col } = target;
    root
      .querySelector(`input[data-matrix="${matrix}"][data-row="${row}"][data-col="${col}"]`)
      ?.setAttribute("aria-invalid", "true");
  }
}

async function refresh() {
  controller?.abort();
  controller = new AbortController();
  const themes = state.view.theme === "auto" ? DRAWN : [state.view.theme];
  root.setAttribute("aria-busy", "true");
  try {
    const answers = await Promise.all(
      themes.map(async (theme) => {
        const view = figuresView(state.view, theme, [data.figure]);
        const answer = await postJSON(
          siteUrl("/api/v1/figures"),
          { ...state.body, view },
          { signal: controller.signal },
        );
        return [theme, answer.figures[String(data.figure)]];
      }),
    );
    specs = Object.fromEntries(answers);
    showErrors([]);
    openLink();
    await draw();
  } catch (error) {
    if (error.name === "AbortError") return;
    showErrors(error.errors ?? [{ field: "body", msg: error.message }]);
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}

function setCell(input) {
  const { matrix, row, col } = input.dataset;
  // The page's parser ("−1" and "1e-3" are numbers); an unreadable entry is sent as the
  // text typed, so the server's answer names the cell.
  const parsed = parseNumber(input.value);
  const value = parsed instanceof Error ? input.value.trim() : parsed;
  const rows = matrix === "source_x" ? state.body.source.x : state.body[matrix];
  rows[Number(row)][Number(col)] = value;
  presetId = null; // the body no longer is the preset
}

function wireControls() {
  root.querySelector("#editor")?.addEventListener("change", (event) => {
    if (!event.target.matches("input[data-matrix]")) return;
    setCell(event.target);
    refresh();
  });
  const controls = root.querySelector("#controls");
  if (!controls) return;
  controls.addEventListener("submit", (event) => event.preventDefault());
  wireStretch(controls, (stretch) => {
    state.view.stretch = stretch;
    refresh();
  });
  controls.addEventListener("change", (event) => {
    const el = event.target;
    if (el.id === "scale") {
      state.body.scale = el.checked;
      presetId = null;
    } else if (el.id === "mask") {
      state.body.mask = el.value;
      presetId = null;
    } else if (el.id === "focus" || el.id === "head") state.view[el.id] = Number(el.value);
    else if (el.id === "row") state.view.row = el.value;
    else return;
    refresh();
  });
}

/* ---- the host page: height messages ---- */

let lastHeight = 0;
function postHeight() {
  const height = document.documentElement.scrollHeight;
  if (height === lastHeight || window.parent === window) return;
  lastHeight = height;
  window.parent.postMessage({ type: "attention-lab:height", figure: data.figure, height }, "*");
}

new ResizeObserver(postHeight).observe(document.body);
onSchemeChange(() => {
  if (state.view.theme === "auto") draw();
});
wireControls();
draw()
  .then(postHeight)
  .catch((error) => {
    status.textContent = `The figure could not be drawn: ${error.message}`;
  });
