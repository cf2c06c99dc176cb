/**
 * embed.js — the script of /embed/{figure}: draws the one figure the server sent, keeps
 * the colours in step with the host's colour scheme (theme=auto), re-requests the figure
 * when the compact editor or a control changes, and tells the host page its height.
 *
 * No maths here. A figure made of number grids (`panels`) is drawn exactly as on the main
 * page, by the same modules (charts.js drawGrids -> panels.js -> grid.js) under the same
 * CSS (figures.css); Figure 3's steps play in the page's stepper, which here waits for a
 * click unless the URL says autoplay=1. Only charts (no `panels`) go through Plotly.react.
 * Requests go through api.js, typed numbers through numbers.js, tables through tables.js.
 *
 * height=N (data.frame.height): the document is N CSS px tall and scrolls inside, for
 * hosts whose iframe cannot follow the height message.
 *
 * Height message, posted to window.parent with targetOrigin "*" whenever the content
 * height changes:  { type: "attention-lab:height", figure: <number>, height: <px> }
 */

import { postJSON, siteUrl, targetOf } from "./api.js";
import { GRID_HINT, drawGrids } from "./charts.js";
import { setRich } from "./dom.js";
import { spokenText } from "./notation_core.js";
import { parseNumber } from "./numbers.js";
import { figureLink, figuresView, setViewDefaults, toQuery } from "./state.js";
import { Stepper } from "./stepper.js";
import { wireStretch } from "./stretch.js";
import { dataTable } from "./tables.js";
import { onSchemeChange, resolveTheme } from "./theme.js";

const data = JSON.parse(document.getElementById("embed-data").textContent);
setViewDefaults(data.view_defaults);
const root = document.getElementById("embed");
const panel = root.querySelector(".embed-figure");
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
  plot.setAttribute("aria-label", spokenText(fig.alt ?? fig.title ?? ""));
  field("readout").replaceChildren(
    ...(fig.readout ?? []).map((line) => {
      const li = document.createElement("li");
      setRich(li, line);
      return li;
    }),
  );
  renderTables(fig.tables);
}

/** Figure 3's player: the page's, except that it starts by itself only with autoplay=1
 * (an embed sits in someone else's page; motion there is the host's choice). */
class EmbedStepper extends Stepper {
  mayAutoplay() {
    return data.frame?.autoplay === true;
  }
}

let stepper = null;

const plotConfig = (fig) => ({ ...(fig.config ?? {}), responsive: true });
// One frame of the player: a step of the grids (Figure 3), or a Plotly frame of a chart.
const paintStep = (_panel, fig, step) => drawGrids(panel, fig, step);
const paintFrame = (_panel, fig, frame) =>
  window.Plotly.react(plot, frame.data, frame.layout, plotConfig(fig));

async function draw() {
  const fig = specs[currentTheme()] ?? Object.values(specs)[0];
  renderText(fig);
  if (fig.panels) {
    const line = panel.querySelector('[data-role="derivation"]');
    if (line) line.textContent = GRID_HINT; // an older cell's arithmetic would be stale
  }
  const frames = fig.panels ? fig.steps : fig.frames;
  if (frames?.length) {
    stepper ??= new EmbedStepper(panel, fig.panels ? paintStep : paintFrame);
    await stepper.load({ ...fig, frames });
  } else if (fig.panels) await drawGrids(panel, fig);
  else await window.Plotly.react(plot, fig.data, fig.layout, plotConfig(fig));
  root.dataset.drawn = "true";
}

/* ---- edits: ask the server for the figure in the new state ---- */

function openLink() {
  const link = document.getElementById("open-link");
  link.href = siteUrl(`/${figureLink(toQuery(state, presetId), data.figure)}`);
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
          siteUrl("/api/v1/figures?draw=tables"),
          { ...state.body, view },
          { signal: controller.signal },
        );
        return [theme, inlineGrids(answer.figures[String(data.figure)], answer.grids)];
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

/** The lean answer names shared grids by `ref`: put their descriptions back in place. */
function inlineGrids(fig, grids = {}) {
  for (const row of fig.panels ?? [])
    row.forEach((item, k) => {
      if (item.ref) row[k] = { grid: { ...grids[item.ref], outline: item.outline ?? {} } };
    });
  return fig;
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

/* ---- the host page: a fixed height, or height messages ---- */

if (data.frame?.height) {
  document.documentElement.classList.add("fixed-height");
  document.documentElement.style.height = `${data.frame.height}px`;
}

let lastHeight = 0;
function postHeight() {
  // With a fixed height the frame keeps it; the message says so to a host that listens.
  const height = data.frame?.height ?? document.documentElement.scrollHeight;
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
