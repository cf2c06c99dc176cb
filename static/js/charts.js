/**
 * charts.js — draws what the server sends: Plotly.react for each figure, caption,
 * readout and the data tables (textContent only), the derivation line for the hovered
 * or keyboard-focused cell, and the Figure 3 stepper. No numbers are made here.
 */

import { Stepper } from "./stepper.js";

const plots = new WeakMap(); // plot element -> the figure dict it shows

function part(panel, role) {
  return panel.querySelector(`[data-role="${role}"]`);
}

function derivationAt(fig, trace, row, col) {
  const grid = fig?.derivations?.[String(trace)];
  const line = grid?.[row]?.[col];
  return typeof line === "string" ? line : null;
}

function showDerivation(panel, text) {
  part(panel, "derivation").textContent = text;
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
export function draw(panel, fig, frame = null) {
  const plot = part(panel, "plot");
  plots.set(plot, fig);
  const source = frame ?? fig;
  const drawn = window.Plotly.react(plot, source.data, source.layout, fig.config ?? {});
  return Promise.resolve(drawn).then(() => listenHover(panel, plot));
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
  const index = grids.findIndex(({ grid }) => grid.length === rows && (grid[0]?.length ?? 0) === cols);
  return index < 0 ? null : grids.splice(index, 1)[0].grid;
}

function buildTable(spec, grid) {
  const table = document.createElement("table");
  table.className = "data-table";
  if (grid) table.setAttribute("role", "grid");
  const caption = table.createCaption();
  caption.textContent = spec.caption ?? "";
  const head = table.createTHead().insertRow();
  head.append(Object.assign(document.createElement("td"), { className: "corner" }));
  for (const label of spec.col_headers ?? []) {
    head.append(Object.assign(document.createElement("th"), { scope: "col", textContent: label }));
  }
  const body = table.createTBody();
  spec.cells.forEach((row, i) => {
    const tr = body.insertRow();
    tr.append(Object.assign(document.createElement("th"), { scope: "row", textContent: spec.row_headers?.[i] ?? "" }));
    row.forEach((text, j) => {
      const td = tr.insertCell();
      td.textContent = text;
      if (grid) {
        td.tabIndex = i === 0 && j === 0 ? 0 : -1;
        td.dataset.derivation = grid[i]?.[j] ?? "";
      }
    });
  });
  return table;
}

function renderTables(panel, fig) {
  const box = part(panel, "tables");
  const grids = derivationGrids(fig);
  box.replaceChildren(...(fig.tables ?? []).map((spec) => buildTable(spec, matchGrid(spec, grids))));
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

function renderText(panel, n, fig) {
  part(panel, "title").textContent = fig.title ?? "";
  part(panel, "caption").textContent = fig.caption ?? "";
  part(panel, "plot").setAttribute("aria-label", `Figure ${n}: ${fig.alt ?? fig.title ?? ""}`);
  const items = (fig.readout ?? []).map((line) => Object.assign(document.createElement("li"), { textContent: line }));
  part(panel, "readout").replaceChildren(...items);
  renderTables(panel, fig);
}

const steppers = new Map();

/** Render the figures of one response; resolves when every plot is drawn. */
export function renderFigures(root, figures) {
  const drawing = [];
  for (const [key, fig] of Object.entries(figures)) {
    const panel = root.querySelector(`#fig-${key}`);
    if (!panel) continue;
    renderText(panel, key, fig);
    if (Array.isArray(fig.frames) && fig.frames.length) {
      if (!steppers.has(panel)) steppers.set(panel, new Stepper(panel, draw));
      drawing.push(steppers.get(panel).load(fig));
    } else {
      drawing.push(draw(panel, fig));
    }
  }
  return Promise.all(drawing);
}
