/**
 * grid_core.js — the DOM-free part of grid.js (tested by node --test): which cell a key
 * moves to, what a cell holds, how a label splits into base and superscript, which cells
 * a hovered cell was made from, how each table cell looks, which cells an update must
 * touch given the old and the new description, and the canvas pixels. grid.js applies
 * these to the page. No maths: every value, text and colour comes in the description.
 */

/** The cell (row, col) that `key` moves to in a rows × cols grid, or null (no move). */
export function moveCell(key, row, col, [rows, cols]) {
  const moves = {
    ArrowUp: [row - 1, col],
    ArrowDown: [row + 1, col],
    ArrowLeft: [row, col - 1],
    ArrowRight: [row, col + 1],
    Home: [row, 0],
    End: [row, cols - 1],
    PageUp: [0, col],
    PageDown: [rows - 1, col],
  };
  const next = moves[key];
  if (!next || next[0] < 0 || next[1] < 0 || next[0] >= rows || next[1] >= cols) return null;
  return next;
}

/**
 * The display text of a number the server sent without text (a grid too large to print):
 * String(value) with the one minus sign the figures use (U+2212), "−∞" when blocked.
 * Text only: no rounding here, the server's numbers are shown as they came.
 */
export function numberText(value) {
  if (value === null || value === -Infinity) return "−∞";
  const text = String(value);
  return text.startsWith("-") ? `−${text.slice(1)}` : text;
}

/** { row, col, value, text, hover } of a cell of `desc` (value -Infinity when blocked), or null. */
export function cellAt(desc, row, col) {
  if (!desc || row < 0 || col < 0 || row >= desc.shape[0] || col >= desc.shape[1]) return null;
  const value = desc.values[row][col];
  return {
    row,
    col,
    value: value === null ? -Infinity : value,
    text: desc.text?.[row]?.[col] ?? numberText(value),
    hover: desc.hover?.[row]?.[col] ?? null,
  };
}

/** "W^Q" -> ["W", "Q"]: a label with a superscript; null for a plain label. */
export function splitLabel(label) {
  const match = /^(.*)\^(.+)$/.exec(label ?? "");
  return match ? [match[1], match[2]] : null;
}

/**
 * The row and column of grid `use.grid` that cell (row, col) was made from: "i" is the
 * hovered row, "j" its column, anything else the whole line (null).
 */
export function usedCells(use, row, col) {
  const pick = (rule) => (rule === "i" ? row : rule === "j" ? col : null);
  return [pick(use.row), pick(use.col)];
}

/** The outline of `desc` as sets: rows, columns and "i,j" cells. */
export function outlineOf(desc) {
  return {
    rows: new Set(desc.outline?.rows ?? []),
    cols: new Set(desc.outline?.cols ?? []),
    cells: new Set((desc.outline?.cells ?? []).map(([i, j]) => `${i},${j}`)),
  };
}

/**
 * How table cell (i, j) of `desc` looks: its data-value ("-Infinity" when blocked), its
 * text, background and ink ("" when blocked), and its classes.
 */
export function cellLook(desc, outline, i, j) {
  const value = desc.values[i][j];
  const k = desc.color[i][j];
  const [bg, ink] = k >= 0 ? desc.palette[k] : ["", ""];
  return {
    value: value === null ? "-Infinity" : String(value),
    text: desc.text[i][j],
    bg,
    ink,
    blocked: k < 0,
    colOutlined: outline.cols.has(j),
    cellOutlined: outline.cells.has(`${i},${j}`),
  };
}

/**
 * Whether table cell (i, j) of `desc` starts a tile below or right of another one:
 * `desc.tiles` lists the rows and columns where the server's tiles begin (a lab's
 * FlashAttention tiles). The grid draws a line on those edges; nothing is computed here.
 */
export function tileEdges(desc, i, j) {
  const rows = desc.tiles?.rows ?? [];
  const cols = desc.tiles?.cols ?? [];
  return { top: i > 0 && rows.includes(i), left: j > 0 && cols.includes(j) };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The [i, j] cells a table update must touch to go from description `old` (null: a new
 * table) to `desc`: every cell when the shape, palette or outline changed, else only those
 * whose value, text or colour changed.
 */
export function changedCells(old, desc) {
  const [rows, cols] = desc.shape;
  const all =
    !old ||
    old === desc || // the same object drawn again: it may have changed in place
    old.shape[0] !== rows ||
    old.shape[1] !== cols ||
    !same(old.palette, desc.palette) ||
    !same(old.outline ?? null, desc.outline ?? null);
  const out = [];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      if (
        all ||
        old.values[i][j] !== desc.values[i][j] ||
        old.text[i][j] !== desc.text[i][j] ||
        old.color[i][j] !== desc.color[i][j]
      ) {
        out.push([i, j]);
      }
    }
  }
  return out;
}

/** The caption's hidden axes text: " (rows: …; columns: …)" or "". */
export function axesText(desc) {
  const titles = [
    desc.row_title && `rows: ${desc.row_title}`,
    desc.col_title && `columns: ${desc.col_title}`,
  ].filter(Boolean);
  return titles.length ? ` (${titles.join("; ")})` : "";
}

/** "#rrggbb" -> [r, g, b, 255]: a palette colour as canvas pixel bytes. */
export function rgba(hex) {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255, 255];
}

const BLOCKED_PIXEL = [128, 128, 128, 90];

/** RGBA bytes of `desc` at one pixel per cell, row by row (blocked cells grey, translucent). */
/** The character of palette index 0 in desc.codes (app/figures/model_heads.py's CODE_BASE). */
export const CODE_BASE = 49;

export function canvasPixels(desc) {
  const [rows, cols] = desc.shape;
  const bytes = new Uint8ClampedArray(rows * cols * 4);
  const fills = desc.palette.map((p) => rgba(p[0]));
  let at = 0;
  if (typeof desc.codes === "string") {
    // Colours only (the model page's small heatmaps): one character per cell, row after
    // row, its code minus CODE_BASE the palette index (negative: blocked).
    for (let c = 0; c < rows * cols; c++, at += 4) {
      const k = desc.codes.charCodeAt(c) - CODE_BASE;
      bytes.set(k >= 0 ? fills[k] : BLOCKED_PIXEL, at);
    }
    return bytes;
  }
  for (let i = 0; i < rows; i++) {
    const colours = desc.color[i];
    for (let j = 0; j < cols; j++) {
      const k = colours[j];
      bytes.set(k >= 0 ? fills[k] : BLOCKED_PIXEL, at);
      at += 4;
    }
  }
  return bytes;
}

/** The box over row `row` and column `col` (null: the whole line) in pixels of `size` cells. */
export function boxRect(row, col, [rows, cols], size) {
  return {
    top: (row === null ? 0 : row) * size,
    left: (col === null ? 0 : col) * size,
    width: (col === null ? cols : 1) * size,
    height: (row === null ? rows : 1) * size,
  };
}

/**
 * A cell size between `min` and `max` pixels that fits `cols` cells in `width` and, when
 * `height` is given, `rows` cells in `height` (a tall matrix such as a model's 385-row
 * W^Q stays a screenful, not metres of page), never below `min`.
 */
export function cellSize(width, cols, min, max, rows = 0, height = Infinity) {
  const across = Math.floor(width / cols);
  const down = rows > 0 ? Math.floor(height / rows) : Infinity;
  return Math.max(min, Math.min(max, across, down));
}

/**
 * The sides of a sideways-scrolling box that hide content: ["left"], ["right"], both or
 * none, from its scrollLeft, scrollWidth and clientWidth (1 px of rounding tolerated).
 */
export function scrollSides(left, scrollWidth, clientWidth) {
  const sides = [];
  if (left > 1) sides.push("left");
  if (left < scrollWidth - clientWidth - 1) sides.push("right");
  return sides;
}

/** Whether cell (i, j) of `desc` was removed by the mask (drawn hatched). */
export function maskedAt(desc, i, j) {
  return Boolean(desc.masked?.[i]?.[j]);
}

/** Whether any cell of `desc` is masked. */
export function anyMasked(desc) {
  return (desc.masked ?? []).some((row) => Array.from(row).some(Boolean));
}

/**
 * What the legend under a grid shows: the scale's low and high ends (colour and number),
 * the ramp's three colours, and the masked swatch's words when a cell is masked (null
 * otherwise): "masked (weight 0)" on weights, else the −∞ the softmax turns into 0.
 */
export function legendOf(desc) {
  const [lo, hi] = desc.domain ?? [0, 1];
  const colors = desc.scale_colors ?? [];
  const masked = anyMasked(desc)
    ? desc.scale === "weights"
      ? "masked (weight 0)"
      : "masked (−∞, weight 0 after the softmax)"
    : null;
  return { low: numberText(lo), high: numberText(hi), colors, masked };
}
