/**
 * editor_core.js — the DOM-free part of the matrix editor (editor.js draws it; tested by
 * node --test): which matrices the editor shows for a body, the window a large matrix is
 * edited through, what a key does, where the caret goes next, what a typed cell means
 * (a number read by numbers.js, or a label) and where it is written in the body.
 */

import { spokenText } from "./notation_core.js";
import { parseNumber } from "./numbers.js";
import { isDirect, keyRows, queryRows } from "./shapes.js";

// A matrix larger than this is edited through a window of WINDOW × WINDOW cells that the
// arrow keys and the window buttons move: a 128 × 128 state would otherwise put 65,536
// inputs in the page (seconds of style and layout at load, and a repaint of thousands of
// boxes after every edit).
export const WINDOW = 16;

export const LABELS = {
  x: "X",
  source_x: "S (source)",
  w_q: "W^Q",
  w_k: "W^K",
  w_v: "W^V",
  q: "Q",
  k: "K",
  v: "V",
};

const COLUMN = {
  x: "d_model column",
  source_x: "d_model column",
  w_q: "d_k column",
  w_k: "d_k column",
  w_v: "d_v column",
  q: "d_k column",
  k: "d_k column",
  v: "d_v column",
};

/** What each window button does: (dRow, dCol) in cells. */
export const WINDOW_STEPS = {
  up: [-WINDOW, 0],
  down: [WINDOW, 0],
  left: [0, -WINDOW],
  right: [0, WINDOW],
};

/** The accessible name of cell (i, j) of matrix `name`, its notation in words, as a screen
 * reader should say it ("W Q row 1, d k column 2"). */
export function cellLabel(name, i, j) {
  return spokenText(`${LABELS[name]} row ${i + 1}, ${COLUMN[name]} ${j + 1}`);
}

/**
 * [name, rows, options] of each matrix the editor shows for `body`: X (token labels, and
 * the padding flags unless cross-attention puts them on the source), the source S (empty
 * without cross-attention), W^Q, W^K, W^V; in direct mode (q, k, v given) Q with the
 * token labels, K with the padding flags, and V.
 */
export function specsOf(body) {
  const cross = Boolean(body.source);
  const padding = keyRows(body).map((_, i) => Boolean(body.padding?.[i]));
  if (isDirect(body))
    return [
      ["q", body.q, { tokenAttr: "data-token", labels: body.tokens }],
      ["k", body.k, { padding }],
      ["v", body.v, {}],
    ];
  return [
    [
      "x",
      body.x,
      { tokenAttr: "data-token", labels: body.tokens, padding: cross ? null : padding },
    ],
    [
      "source_x",
      cross ? body.source.x : [],
      {
        tokenAttr: "data-source-token",
        labels: body.source?.tokens,
        padding: cross ? padding : null,
      },
    ],
    ["w_q", body.w_q, {}],
    ["w_k", body.w_k, {}],
    ["w_v", body.w_v, {}],
  ];
}

/** True when a rows × cols matrix is larger than the window. */
export function isWindowed(rows, cols) {
  return rows > WINDOW || cols > WINDOW;
}

/**
 * The window [r0, r1) × [c0, c1) of a rows × cols matrix for a wanted first cell `origin`
 * (kept inside the matrix): { origin: [r0, c0], bounds: [r0, r1, c0, c1] }.
 */
export function windowOf([r, c], rows, cols) {
  const r0 = Math.max(0, Math.min(r, rows - WINDOW));
  const c0 = Math.max(0, Math.min(c, cols - WINDOW));
  return {
    origin: [r0, c0],
    bounds: [r0, Math.min(rows, r0 + WINDOW), c0, Math.min(cols, c0 + WINDOW)],
  };
}

/** The window bar's text and which of its buttons are disabled. */
export function windowBarState([r0, r1, c0, c1], rows, cols) {
  return {
    text: `rows ${r0 + 1}–${r1} of ${rows}, columns ${c0 + 1}–${c1} of ${cols}`,
    disabled: { up: r0 === 0, down: r1 === rows, left: c0 === 0, right: c1 === cols },
  };
}

const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

/**
 * What a key does in a cell: { move: [dRow, dCol] } (commit, then move), "commit",
 * "revert" or null (the input's own). Left and Right move only when the caret is already
 * at that edge of the text, so they still move the caret inside a number.
 */
export function keyAction(key, { atStart, atEnd }) {
  if (key in ARROWS) {
    if (key === "ArrowLeft" && !atStart) return null;
    if (key === "ArrowRight" && !atEnd) return null;
    return { move: ARROWS[key] };
  }
  if (key === "Enter") return "commit";
  if (key === "Escape") return "revert";
  return null;
}

/**
 * Where a move of (dRow, dCol) from input `index` of row `row` goes, in a table of
 * `rows` rows whose target row has `width` inputs: [row, index] clamped to that row, or
 * null past the first or last row.
 */
export function stepTarget(row, index, dRow, dCol, rows, width) {
  const r = row + dRow;
  if (r < 0 || r >= rows) return null;
  return [r, Math.max(0, Math.min(index + dCol, width - 1))];
}

/**
 * True when the move leaves the shown part of a matrix: past the first or last row shown,
 * or right of its last cell, left of its first (`cell` of `cells` number cells in the row;
 * -1 for an input that is not a number cell, such as a token label).
 */
export function leavesWindow(row, rows, cell, cells, dRow, dCol) {
  const r = row + dRow;
  if (r < 0 || r >= rows) return true;
  return cell >= 0 && ((dCol > 0 && cell === cells - 1) || (dCol < 0 && cell === 0));
}

/** What a typed cell means: a label as typed, or a number (an Error saying what to type). */
export function readCell(text, isLabel) {
  return isLabel ? text : parseNumber(text);
}

/**
 * Write `value` into `body` where an editor input (its data-* `dataset`) points: a token
 * label of X or of the source (a body without labels first gets the engine's t0, t1, …),
 * or a matrix cell. Returns false when the body already held that value.
 */
export function writeCell(body, dataset, value) {
  let list;
  let index;
  if (dataset.token !== undefined || dataset.sourceToken !== undefined) {
    const holder = dataset.token !== undefined ? body : body.source;
    // A body without labels gets the engine's default names (t0, t1, …) before the edit.
    list = holder.tokens ??= queryRows(holder).map((_, i) => `t${i}`);
    index = Number(dataset.token ?? dataset.sourceToken);
  } else {
    const rows = dataset.matrix === "source_x" ? body.source.x : body[dataset.matrix];
    list = rows[Number(dataset.row)];
    index = Number(dataset.col);
  }
  if (list[index] === value) return false;
  list[index] = value;
  return true;
}

/** The id of the error message of an input (its dataset) or, with none, of block `block`. */
export function errorId(dataset, block) {
  if (!dataset) return `err-${block}`;
  const row = dataset.row ?? dataset.token ?? dataset.sourceToken;
  return `err-${dataset.matrix ?? "token"}-${row}-${dataset.col ?? "label"}`;
}
