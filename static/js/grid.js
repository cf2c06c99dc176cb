/**
 * grid.js — draws number grids described by the server (app/figures/grid.py) and keeps
 * them up to date in place. No maths here: every colour, printed number and derivation
 * comes in the description.
 *
 * API (stable: the main page, embeds and the lab pages use it)
 *
 *   renderGrid(host, desc, options?) -> HTMLElement
 *     Draws grid description `desc` inside `host` (an element the grid owns alone) and
 *     returns the drawn element: a <table class="grid"> when the description has `text`
 *     (small grids), else a <canvas class="grid grid-canvas"> with one block per cell.
 *     Called again on the same host it updates that element in place (only changed cells
 *     are touched); a new shape or kind rebuilds it. The element has data-grid = desc.grid;
 *     table cells carry data-row, data-col (0-based) and data-value (full precision,
 *     "-Infinity" for a blocked cell). Header cells are <th scope> so a screen reader can
 *     walk the table; cells are keyboard-explorable (one tab stop per grid, arrow keys,
 *     Home/End); a canvas grid moves a cursor cell with the same keys.
 *     options.onCell(info) is called when a cell is pointed at or focused, with
 *       info = { desc, row, col, value, text, hover, element }, and with null when the
 *       pointer leaves the grid.
 *     options.scope (default: host.closest("[data-figure]") ?? document) is where
 *       desc.uses looks for the grids to outline while a cell is hovered.
 *
 *   gridValue(element, row, col) -> number | null
 *     The full-precision value of a cell of a drawn grid (table or canvas); -Infinity
 *     for a blocked cell, null outside the grid.
 *
 *   outlineUses(scope, desc, row, col, near?) / clearUses(scope)
 *     Outline (class "used") the cells of other grids in `scope` that cell (row, col) of
 *     `desc` was made from, as desc.uses describes (a grid inside `near` wins over one
 *     elsewhere in `scope`); clear them again.
 *
 *   Under the grid (a second child of `host`) a legend: the colour scale's low and high
 *   ends with their numbers and, when a cell is masked, a hatched swatch naming it.
 *   Masked cells (desc.masked) are hatched (class "masked") with their number printed.
 *
 * Description fields read: grid, label, shape, rows, cols, row_title, col_title, values,
 * text, color, palette, hover, uses, outline, domain, scale, scale_colors, masked, tiles (see
 * app/figures/grid.py).
 *
 * What needs no DOM (keys, cells, labels, which cells changed, pixels) is grid_core.js.
 */

import { setRich, setText } from "./dom.js";
import {
  axesText,
  boxRect,
  canvasPixels,
  cellAt,
  cellLook,
  cellSize,
  changedCells,
  legendOf,
  maskedAt,
  moveCell,
  outlineOf,
  tileEdges,
  usedCells,
} from "./grid_core.js";
import { notationNodes } from "./notation.js";
import { spokenText } from "./notation_core.js";

const described = new WeakMap(); // drawn element -> its current description
const optionsOf = new WeakMap(); // drawn element -> options
const CANVAS_MAX_CELL = 14;
const CANVAS_MIN_CELL = 2;
const CANVAS_MAX_HEIGHT = 720; // px: taller grids get smaller cells (down to the minimum)

/* ---- shared helpers ---- */

function labelInto(node, label, after = "") {
  // "W^Q" -> MathML, as every text the server writes (notation.js); anything else as text.
  // Rebuilt only when it changed: new MathML on every edit cost a style and layout pass
  // of every grid's caption.
  const key = `${label ?? ""}\u0000${after}`;
  if (node.dataset.label === key) return;
  node.replaceChildren(...notationNodes(label ?? ""));
  if (after) node.append(after);
  node.dataset.label = key;
}

function cellInfo(el, row, col) {
  const desc = described.get(el);
  const cell = cellAt(desc, row, col);
  return cell && { desc, ...cell, element: el };
}

export function gridValue(el, row, col) {
  const info = cellInfo(el, row, col);
  return info ? info.value : null;
}

function scopeOf(el) {
  return optionsOf.get(el)?.scope ?? el.closest("[data-figure]") ?? document;
}

export function clearUses(scope) {
  for (const node of scope.querySelectorAll(".grid .used")) node.classList.remove("used");
  for (const node of scope.querySelectorAll(".grid-cursor.used-box")) node.remove();
}

export function outlineUses(scope, desc, row, col, near = null) {
  clearUses(scope);
  for (const use of desc.uses ?? []) {
    // The nearest grid of that name: the same row of a figure first (Figure 4 has X thrice).
    const selector = `[data-grid="${CSS.escape(use.grid)}"]`;
    const target = near?.querySelector(selector) ?? scope.querySelector(selector);
    if (!target) continue;
    const [r, c] = usedCells(use, row, col);
    if (target.tagName === "TABLE") {
      let cells = "td[data-row]";
      if (r !== null) cells += `[data-row="${r}"]`;
      if (c !== null) cells += `[data-col="${c}"]`;
      for (const td of target.querySelectorAll(cells)) td.classList.add("used");
    } else {
      boxOnCanvas(target, r, c, "used-box");
    }
  }
}

function report(el, row, col) {
  const info = cellInfo(el, row, col);
  const options = optionsOf.get(el) ?? {};
  const scope = scopeOf(el);
  if (info) outlineUses(scope, info.desc, row, col, el.closest(".panel-row"));
  else clearUses(scope);
  options.onCell?.(info);
}

/* ---- tables (small grids, numbers printed) ---- */

function buildTable(desc) {
  const [rows, cols] = desc.shape;
  const table = document.createElement("table");
  table.className = "grid";
  const caption = table.createCaption();
  const name = document.createElement("span");
  name.className = "grid-label";
  const shape = document.createElement("span");
  shape.className = "grid-shape";
  const axes = document.createElement("span");
  axes.className = "visually-hidden";
  caption.append(name, " ", shape, axes);
  const head = table.createTHead().insertRow();
  head.append(Object.assign(document.createElement("td"), { className: "corner" }));
  for (let j = 0; j < cols; j++)
    head.append(Object.assign(document.createElement("th"), { scope: "col" }));
  const body = table.createTBody();
  for (let i = 0; i < rows; i++) {
    const tr = body.insertRow();
    tr.append(Object.assign(document.createElement("th"), { scope: "row" }));
    for (let j = 0; j < cols; j++) {
      const td = tr.insertCell();
      td.dataset.row = String(i);
      td.dataset.col = String(j);
      td.tabIndex = i === 0 && j === 0 ? 0 : -1;
    }
  }
  table.addEventListener("pointerover", (event) => {
    const td = event.target.closest?.("td[data-row]");
    if (td) report(table, Number(td.dataset.row), Number(td.dataset.col));
  });
  table.addEventListener("pointerleave", () => {
    if (!table.contains(document.activeElement)) report(table, -1, -1);
  });
  table.addEventListener("focusin", (event) => {
    const td = event.target.closest?.("td[data-row]");
    if (!td) return;
    for (const other of table.querySelectorAll('td[tabindex="0"]'))
      if (other !== td) other.tabIndex = -1;
    td.tabIndex = 0;
    report(table, Number(td.dataset.row), Number(td.dataset.col));
  });
  table.addEventListener("focusout", (event) => {
    if (!table.contains(event.relatedTarget)) report(table, -1, -1);
  });
  table.addEventListener("keydown", (event) => {
    const td = event.target.closest?.("td[data-row]");
    const next =
      td &&
      moveCell(
        event.key,
        Number(td.dataset.row),
        Number(td.dataset.col),
        described.get(table).shape,
      );
    if (!next) return;
    event.preventDefault();
    table.querySelector(`td[data-row="${next[0]}"][data-col="${next[1]}"]`)?.focus();
  });
  return table;
}

function updateTable(table, old, desc) {
  const [rows, cols] = desc.shape;
  labelInto(table.caption.querySelector(".grid-label"), desc.label);
  setText(table.caption.querySelector(".grid-shape"), `${rows} × ${cols}`);
  setRich(table.caption.querySelector(".visually-hidden"), axesText(desc));
  table.dataset.grid = desc.grid;
  const headCells = table.tHead.rows[0].cells;
  // Headers such as k_1 and q_2 carry notation too (setRich: plain labels stay text nodes).
  for (let j = 0; j < cols; j++) setRich(headCells[j + 1], desc.cols[j]);
  const bodyRows = table.tBodies[0].rows;
  const outline = outlineOf(desc);
  for (let i = 0; i < rows; i++) {
    setRich(bodyRows[i].cells[0], desc.rows[i]);
    bodyRows[i].classList.toggle("outlined", outline.rows.has(i));
  }
  // Only the cells whose number, text or colour changed are touched.
  for (const [i, j] of changedCells(old, desc)) {
    const td = bodyRows[i].cells[j + 1];
    const look = cellLook(desc, outline, i, j);
    if (td.dataset.value !== look.value) td.dataset.value = look.value;
    setText(td, look.text);
    if (td.dataset.bg !== look.bg) {
      td.style.backgroundColor = look.bg;
      td.style.color = look.ink;
      td.dataset.bg = look.bg;
    }
    td.classList.toggle("blocked", look.blocked);
    td.classList.toggle("col-outlined", look.colOutlined);
    td.classList.toggle("cell-outlined", look.cellOutlined);
  }
  // The mask can change where no number did (a weight 0 either way): every cell's hatch.
  if (!old || JSON.stringify(old.masked ?? null) !== JSON.stringify(desc.masked ?? null)) {
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++)
        bodyRows[i].cells[j + 1].classList.toggle("masked", maskedAt(desc, i, j));
  }
  // Tile edges (desc.tiles): a line where a new tile starts, redrawn when they move.
  if (!old || JSON.stringify(old.tiles ?? null) !== JSON.stringify(desc.tiles ?? null)) {
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) {
        const edge = tileEdges(desc, i, j);
        const td = bodyRows[i].cells[j + 1];
        td.classList.toggle("tile-top", edge.top);
        td.classList.toggle("tile-left", edge.left);
      }
  }
}

/* ---- the legend under every grid ---- */

function buildLegend() {
  const legend = document.createElement("p");
  legend.className = "grid-legend";
  const scale = Object.assign(document.createElement("span"), { className: "legend-scale" });
  const low = Object.assign(document.createElement("span"), { className: "legend-low" });
  const ramp = Object.assign(document.createElement("span"), { className: "legend-ramp" });
  ramp.setAttribute("aria-hidden", "true");
  const high = Object.assign(document.createElement("span"), { className: "legend-high" });
  const to = Object.assign(document.createElement("span"), {
    className: "visually-hidden",
    textContent: " to ",
  });
  const intro = Object.assign(document.createElement("span"), {
    className: "visually-hidden",
    textContent: "Colour scale: ",
  });
  scale.append(intro, low, ramp, to, high);
  const masked = Object.assign(document.createElement("span"), { className: "legend-masked" });
  const swatch = Object.assign(document.createElement("span"), { className: "swatch masked" });
  swatch.setAttribute("aria-hidden", "true");
  masked.append(swatch, document.createElement("span"));
  legend.append(scale, masked);
  return legend;
}

function updateLegend(host, desc) {
  let legend = host.querySelector(":scope > .grid-legend");
  if (!legend) {
    legend = buildLegend();
    host.append(legend);
  }
  const look = legendOf(desc);
  setText(legend.querySelector(".legend-low"), look.low);
  setText(legend.querySelector(".legend-high"), look.high);
  const [lo, mid, hi] = look.colors;
  const ramp = legend.querySelector(".legend-ramp");
  const fill = lo ? `linear-gradient(to right, ${lo}, ${mid}, ${hi})` : "";
  if (ramp.dataset.fill !== fill) {
    ramp.style.backgroundImage = fill;
    ramp.dataset.fill = fill;
  }
  const masked = legend.querySelector(".legend-masked");
  masked.hidden = !look.masked;
  setText(masked.lastElementChild, look.masked ?? "");
}

/* ---- canvas (large grids: one block per cell, numbers on hover) ---- */

function buildCanvas() {
  const wrap = document.createElement("div");
  wrap.className = "grid grid-canvas";
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "img");
  const title = document.createElement("p");
  title.className = "grid-title";
  const box = document.createElement("div");
  box.className = "canvas-box"; // positions cursor and outline boxes in cell units
  const canvas = document.createElement("canvas");
  box.append(canvas);
  wrap.append(title, box);
  wrap.addEventListener("pointermove", (event) => {
    const size = Number(wrap.dataset.size);
    const rect = canvas.getBoundingClientRect();
    const row = Math.floor((event.clientY - rect.top) / size);
    const col = Math.floor((event.clientX - rect.left) / size);
    if (row !== Number(wrap.dataset.cursorRow) || col !== Number(wrap.dataset.cursorCol))
      setCursor(wrap, row, col);
  });
  wrap.addEventListener("pointerleave", () => setCursor(wrap, -1, -1));
  wrap.addEventListener("keydown", (event) => {
    const row = Math.max(0, Number(wrap.dataset.cursorRow ?? 0));
    const col = Math.max(0, Number(wrap.dataset.cursorCol ?? 0));
    const next = moveCell(event.key, row, col, described.get(wrap).shape);
    if (!next) return;
    event.preventDefault();
    setCursor(wrap, next[0], next[1]);
  });
  wrap.addEventListener("focus", () =>
    setCursor(
      wrap,
      Math.max(0, Number(wrap.dataset.cursorRow ?? 0)),
      Math.max(0, Number(wrap.dataset.cursorCol ?? 0)),
    ),
  );
  wrap.addEventListener("blur", () => setCursor(wrap, -1, -1));
  return wrap;
}

function boxOnCanvas(wrap, row, col, kind) {
  const desc = described.get(wrap);
  if (!desc) return;
  const size = Number(wrap.dataset.size);
  const box = document.createElement("div");
  box.className = `grid-cursor ${kind}`;
  const rect = boxRect(row, col, desc.shape, size);
  Object.assign(box.style, {
    top: `${rect.top}px`,
    left: `${rect.left}px`,
    width: `${rect.width}px`,
    height: `${rect.height}px`,
  });
  wrap.querySelector(".canvas-box").append(box);
}

function setCursor(wrap, row, col) {
  for (const node of wrap.querySelectorAll(".grid-cursor.cursor")) node.remove();
  const inside = cellInfo(wrap, row, col);
  wrap.dataset.cursorRow = String(inside ? row : -1);
  wrap.dataset.cursorCol = String(inside ? col : -1);
  if (inside) boxOnCanvas(wrap, row, col, "cursor");
  report(wrap, inside ? row : -1, inside ? col : -1);
}

function updateCanvas(wrap, desc, host) {
  const [rows, cols] = desc.shape;
  wrap.dataset.grid = desc.grid;
  const title = wrap.querySelector(".grid-title");
  labelInto(title, desc.label, ` ${rows} × ${cols}`);
  const name = `${spokenText(desc.label)} (${rows} × ${cols}) drawn as colours, one block per cell: point at a cell or use the arrow keys for its value; the numbers are also in the tables.`;
  if (wrap.getAttribute("aria-label") !== name) wrap.setAttribute("aria-label", name);
  // The cell size is measured once per shape (reading a width forces a layout, which
  // on a long page costs more than drawing), and again after the window is resized.
  const key = `${rows}:${cols}:${resizes}`;
  if (wrap.dataset.sizeKey !== key) {
    const width = host.clientWidth || 600;
    wrap.dataset.size = String(
      cellSize(width, cols, CANVAS_MIN_CELL, CANVAS_MAX_CELL, rows, CANVAS_MAX_HEIGHT),
    );
    wrap.dataset.sizeKey = key;
  }
  const size = Number(wrap.dataset.size);
  // One canvas pixel per cell, scaled up by CSS (image-rendering: pixelated): the whole
  // grid is one putImageData, however many cells, and the backing store stays tiny.
  const canvas = wrap.querySelector("canvas");
  if (canvas.width !== cols || canvas.height !== rows) {
    canvas.width = cols;
    canvas.height = rows;
  }
  if (canvas.dataset.size !== `${rows}:${cols}:${size}`) {
    canvas.style.width = `${cols * size}px`;
    canvas.style.height = `${rows * size}px`;
    canvas.dataset.size = `${rows}:${cols}:${size}`;
  }
  const g = canvas.getContext("2d");
  const image = g.createImageData(cols, rows);
  image.data.set(canvasPixels(desc));
  g.putImageData(image, 0, 0);
  for (const node of wrap.querySelectorAll(".grid-cursor.outline")) node.remove();
  for (const r of desc.outline?.rows ?? []) boxOnCanvas(wrap, r, null, "outline");
  for (const c of desc.outline?.cols ?? []) boxOnCanvas(wrap, null, c, "outline");
  for (const [r, c] of desc.outline?.cells ?? []) boxOnCanvas(wrap, r, c, "outline");
}

let resizes = 0;
window.addEventListener("resize", () => {
  resizes += 1;
});

/* ---- entry point ---- */

export function renderGrid(host, desc, options = {}) {
  const kind = desc.text ? "TABLE" : "DIV";
  let el = host.firstElementChild;
  const old = el ? described.get(el) : null;
  const reshaped = !old || old.shape[0] !== desc.shape[0] || old.shape[1] !== desc.shape[1];
  const rebuilt = !el || el.tagName !== kind || reshaped;
  if (rebuilt) {
    el = kind === "TABLE" ? buildTable(desc) : buildCanvas();
    host.replaceChildren(el);
  }
  described.set(el, desc);
  optionsOf.set(el, options);
  if (kind === "TABLE") updateTable(el, rebuilt ? null : old, desc);
  else updateCanvas(el, desc, host);
  updateLegend(host, desc);
  return el;
}
