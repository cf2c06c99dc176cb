/**
 * charts.js — draws what the server sends: Plotly.react for each figure, caption,
 * readout and the data tables (tables.js), the derivation line for the hovered
 * or keyboard-focused cell, and the Figure 3 stepper. No numbers are made here.
 */

import { part, setRich, setText } from "./dom.js";
import { spokenText } from "./notation_core.js";
import { drawPanels, showStep } from "./panels.js";
import { plotly } from "./plotly.js";
import { Stepper } from "./stepper.js";
import { dataTable } from "./tables.js";

const plots = new WeakMap(); // plot element -> the figure dict it shows

function derivationAt(fig, trace, row, col) {
  const grid = fig?.derivations?.[String(trace)];
  const line = grid?.[row]?.[col];
  return typeof line === "string" ? line : null;
}

function showDerivation(panel, text) {
  setRich(part(panel, "derivation"), text);
}

function listenHover(panel, plot) {
  if (plot.dataset.hover) return;
  plot.dataset.hover = "1";
  plot.on("plotly_hover", (event) => {
    const point = event.points?.[0];
    if (!point || !Array.isArray(point.pointIndex)) return;
    const [row, col] = point.pointIndex;
    const text = derivationAt(plots.get(plot), point.curveNumber, row, col);
    if (text) showDerivation(panel, text);
  });
}

/** Plotly.react for one figure (or one frame of it); resolves once drawn. */
export async function draw(panel, fig, frame = null) {
  const Plotly = await plotly();
  const plot = part(panel, "plot");
  // Derivations index the traces of the final state; earlier frames have other traces.
  const final = !frame || frame === fig.frames?.[fig.frames.length - 1];
  plots.set(plot, final ? fig : null);
  const source = frame ?? fig;
  await Plotly.react(plot, source.data, source.layout, fig.config ?? {});
  listenHover(panel, plot);
}

/** The chart on screen stays; its hover lines follow the new state (derivations). */
function keepHover(panel, fig) {
  const plot = part(panel, "plot");
  if (!plots.has(plot)) return;
  const frames = fig.frames ?? [];
  const stepper = steppers.get(panel);
  const final = !frames.length || !stepper || stepper.index === frames.length - 1;
  plots.set(plot, final ? fig : null);
}

/* ---- tables: the screen-reader alternative and the keyboard route to derivations ---- */

function derivationGrids(fig) {
  return Object.entries(fig.derivations ?? {})
    .sort((a, b) => Number(a[0]) - Number(b[0]))
    .map(([trace, grid]) => ({ trace, grid }));
}

/** The derivation grid of the same shape as `table`, taken in order, or null. */
function matchGrid(table, grids) {
  const rows = table.cells.length;
  const cols = table.cells[0]?.length ?? 0;
  const index = grids.findIndex(
    ({ grid }) => grid.length === rows && (grid[0]?.length ?? 0) === cols,
  );
  return index < 0 ? null : grids.splice(index, 1)[0].grid;
}

const pendingTables = new WeakMap(); // panel -> figure whose tables are not built yet

/** Build the tables now if they are open; otherwise when the reader opens them (big
 * states have tens of thousands of cells, which need not be built on every edit). */
function renderTables(panel, fig) {
  const details = panel.querySelector("details.tables");
  pendingTables.set(panel, fig);
  if (details.open) buildPending(panel);
  if (!details.dataset.wired) {
    details.dataset.wired = "1";
    details.addEventListener("toggle", () => details.open && buildPending(panel));
  }
}

let tableSource = null; // (figure number) -> Promise of that figure's tables

/** Where deferred tables (large states) come from: set by the page. */
export function setTableSource(source) {
  tableSource = source;
}

async function buildPending(panel) {
  const fig = pendingTables.get(panel);
  if (!fig) return;
  pendingTables.delete(panel);
  let specs = fig.tables ?? [];
  if (fig.tables_deferred && tableSource) {
    part(panel, "tables").textContent = "Loading the tables…";
    try {
      specs = await tableSource(Number(panel.dataset.figure));
    } catch (error) {
      part(panel, "tables").textContent = `The tables could not be loaded: ${error.message}`;
      return;
    }
    if (pendingTables.has(panel)) return; // a newer state arrived meanwhile
  }
  const grids = derivationGrids(fig);
  const tables = specs.map((spec) => dataTable(spec, matchGrid(spec, grids)));
  part(panel, "tables").replaceChildren(...tables);
}

/** Arrow keys move between cells of a grid table; focus shows the cell's derivation. */
export function wireTables(root) {
  root.addEventListener("focusin", (event) => {
    const td = event.target.closest?.("td[data-derivation]");
    if (td) showDerivation(td.closest("[data-figure]"), td.dataset.derivation || td.textContent);
  });
  root.addEventListener("keydown", (event) => {
    const td = event.target.closest?.("td[data-derivation]");
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (!td || !(event.key in moves)) return;
    event.preventDefault();
    const [dr, dc] = moves[event.key];
    const rows = [...td.closest("tbody").rows];
    const r = rows.indexOf(td.parentElement) + dr;
    const cells = (row) => [...row.cells].filter((c) => c.dataset.derivation !== undefined);
    const c = cells(td.parentElement).indexOf(td) + dc;
    const target = rows[r] && cells(rows[r])[c];
    if (!target) return;
    td.tabIndex = -1;
    target.tabIndex = 0;
    target.focus();
  });
}

/* ---- one panel ---- */

const DERIVATION_HINT =
  "Point at a cell, or move through the table below with the arrow keys, to see its arithmetic.";
export const GRID_HINT =
  "Point at a cell, or Tab into a grid and move with the arrow keys, to see its arithmetic; the cells it used are outlined.";

/** The line under a grid figure: the hovered or focused cell's arithmetic, else the hint. */
function cellLine(panel) {
  return (info) => {
    if (!info) {
      showDerivation(panel, GRID_HINT);
      return;
    }
    const { desc, row, col } = info;
    const where = `${desc.label.replace("^", "")} row ${row + 1} (${desc.rows[row]}), column ${col + 1} (${desc.cols[col]})`;
    showDerivation(
      panel,
      // info.text is the server's text, or the value with a true minus (grid_core.numberText)
      info.hover ?? `${where}: ${info.value === -Infinity ? "−∞ (blocked)" : info.text}`,
    );
  };
}

/** Draw a grid figure, or (Figure 3) one of its steps. */
export function drawGrids(panel, fig, step = null) {
  const plot = part(panel, "plot");
  drawPanels(plot, fig, cellLine(panel));
  if (fig.steps) showStep(plot, fig, step);
  return Promise.resolve();
}

function renderText(panel, n, fig) {
  const derivation = part(panel, "derivation");
  derivation.hidden = !fig.panels && Object.keys(fig.derivations ?? {}).length === 0;
  setText(derivation, fig.panels ? GRID_HINT : DERIVATION_HINT); // older arithmetic would be stale
  setRich(part(panel, "title"), fig.title ?? "");
  setRich(part(panel, "caption"), fig.caption ?? "");
  const label = `Figure ${n}: ${spokenText(fig.alt ?? fig.title ?? "")}`;
  if (part(panel, "plot").getAttribute("aria-label") !== label)
    part(panel, "plot").setAttribute("aria-label", label);
  // Lines are replaced only where their text changed: unchanged text costs no layout.
  const list = part(panel, "readout");
  const lines = fig.readout ?? [];
  while (list.children.length > lines.length) list.lastElementChild.remove();
  lines.forEach((line, i) => {
    const item = list.children[i] ?? list.appendChild(document.createElement("li"));
    setRich(item, line);
  });
  renderTables(panel, fig);
}

const steppers = new Map();
const drawn = new Map(); // figure number -> JSON of the figure now on screen
const charted = new Map(); // figure number -> JSON of the chart now on screen

/** True when `fig` is exactly what panel `key` already shows (then nothing is redrawn).
 * Grid figures are always updated: in place, only changed cells are touched, which costs
 * less than serialising a large figure to compare it. */
function unchanged(key, fig) {
  if (fig.panels) return false;
  const text = JSON.stringify(fig);
  if (drawn.get(key) === text) return true;
  drawn.set(key, text);
  return false;
}

/** True when only the words of `fig` changed: its chart (data, layout, config, frames)
 * is what panel `key` already draws, so Plotly is not called. A sentence quoting a
 * weight changes on every edit while the diagram beside it does not (Figure 10:
 * Plotly.react of its unchanged diagram, annotations and arrows, cost 250 ms an edit). */
function sameChart(key, fig) {
  const text = JSON.stringify([fig.data, fig.layout, fig.config, fig.frames]);
  if (charted.get(key) === text) return true;
  charted.set(key, text);
  return false;
}

const visible = new Set(); // figure numbers whose panel is on screen
// Longest run of drawing between two yields: typing stays responsive (a 50 ms task is
// what browsers call "long") while an edit is not split into one paint per figure.
const SLICE_MS = 40;
// Let the browser paint and handle input between two figures (scheduler.yield where known).
const yieldToBrowser = () =>
  globalThis.scheduler?.yield
    ? globalThis.scheduler.yield()
    : new Promise((resolve) => setTimeout(resolve, 0));

/** Track which figure panels are on screen, so they are redrawn first. */
export function watchVisibility(root) {
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const n = entry.target.dataset.figure;
      if (entry.isIntersecting) visible.add(n);
      else visible.delete(n);
    }
  });
  for (const panel of root.querySelectorAll("[data-figure]")) observer.observe(panel);
}

// Diagrams with a portrait variant (Figures 5 and 10, `narrow`) show it on a phone, where
// the wide one would need sideways scrolling. The same breakpoint as the CSS's phone layout.
const phone = window.matchMedia("(max-width: 640px)");

/** The figure as this screen shows it: its `narrow` data and layout on a phone. */
function forScreen(fig) {
  if (!fig.narrow || !phone.matches) return fig;
  return { ...fig, data: fig.narrow.data, layout: fig.narrow.layout, narrow: null };
}

/** Call `redraw` when the screen crosses the phone breakpoint (Figures 5 and 10 change). */
export function onPhoneChange(redraw) {
  phone.addEventListener("change", redraw);
}

function drawOne(root, key, wire) {
  const fig = forScreen(wire);
  const panel = root.querySelector(`#fig-${key}`);
  if (!panel || unchanged(key, fig)) return null;
  renderText(panel, key, fig);
  if (!fig.panels && sameChart(key, fig)) {
    keepHover(panel, fig);
    return null;
  }
  if (fig.panels) {
    if (!fig.steps?.length) return drawGrids(panel, fig);
    if (!steppers.has(panel))
      steppers.set(panel, new Stepper(panel, (p, f, frame) => drawGrids(p, f, frame)));
    return steppers.get(panel).load({ ...fig, frames: fig.steps });
  }
  if (Array.isArray(fig.frames) && fig.frames.length) {
    if (!steppers.has(panel)) steppers.set(panel, new Stepper(panel, draw));
    return steppers.get(panel).load(fig);
  }
  return draw(panel, fig);
}

/** The lean answer sends each grid once: put the shared descriptions back in place. */
function resolveRefs(figures, grids) {
  for (const fig of Object.values(figures)) {
    for (const row of fig.panels ?? []) {
      row.forEach((item, k) => {
        if (item.ref) row[k] = { grid: { ...grids[item.ref], outline: item.outline ?? {} } };
      });
    }
  }
}

/**
 * Render the figures of one response: the panels on screen first, then the rest one by
 * one, yielding between them so the browser paints and typing stays responsive.
 * Stops early, returning false, as soon as `isCurrent()` says a newer state exists.
 */
export async function renderFigures(root, figures, isCurrent = () => true, grids = null) {
  const started = performance.now();
  if (grids) resolveRefs(figures, grids);
  const keys = Object.keys(figures);
  const onScreen = keys.filter((k) => visible.has(k));
  const firstPaint = drawn.size === 0;
  for (const [i, key] of onScreen.entries()) {
    await drawOne(root, key, figures[key]);
    // On page load, let the first figure reach the screen before plotly.js draws the next
    // (until then the reader sees no figure at all); later edits draw on-screen ones together.
    if (i === 0 && firstPaint) await yieldToBrowser();
  }
  performance.mark("attention-lab:visible-drawn");
  // When the current run of drawing without a yield began: grids draw in a few ms, so an
  // edit usually finishes in one run and one paint; Plotly figures past SLICE_MS yield.
  let slice = started;
  for (const key of keys.filter((k) => !visible.has(k))) {
    // Yield once per SLICE_MS, not after every figure: each yield lets the browser paint
    // a frame, and several paints per edit cost more than the figures between them.
    if (performance.now() - slice > SLICE_MS) {
      await yieldToBrowser();
      slice = performance.now();
    }
    if (!isCurrent()) return false;
    await drawOne(root, key, figures[key]);
  }
  return isCurrent();
}
