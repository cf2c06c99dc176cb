// editor_core.js: the DOM-free decisions of the matrix editor (editor.js and main.js act).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  WINDOW,
  WINDOW_STEPS,
  cellLabel,
  errorId,
  isWindowed,
  keyAction,
  leavesWindow,
  readCell,
  specsOf,
  stepTarget,
  windowBarState,
  windowOf,
  writeCell,
} from "../../static/js/editor_core.js";

const body = () => ({
  tokens: ["I", "love", "LLMs"],
  x: [
    [1, 0],
    [0, 1],
    [1, 1],
  ],
  w_q: [[1], [0]],
  w_k: [[0], [1]],
  w_v: [[1], [1]],
  padding: [false, true, false],
});

test("the editor shows X with labels and padding, no source, and the three projections", () => {
  const specs = specsOf(body());
  assert.deepEqual(
    specs.map(([name]) => name),
    ["x", "source_x", "w_q", "w_k", "w_v"],
  );
  const [, xRows, xOpts] = specs[0];
  assert.deepEqual(xRows, body().x);
  assert.deepEqual(xOpts, {
    tokenAttr: "data-token",
    labels: ["I", "love", "LLMs"],
    padding: [false, true, false],
  });
  assert.deepEqual(specs[1][1], []);
  assert.equal(specs[1][2].padding, null);
});

test("with cross-attention the padding flags move to the source's rows", () => {
  const cross = {
    ...body(),
    source: {
      tokens: ["a", "b"],
      x: [
        [1, 2],
        [3, 4],
      ],
    },
    padding: [true],
  };
  const [x, source] = specsOf(cross);
  assert.equal(x[2].padding, null);
  assert.deepEqual(source[1], [
    [1, 2],
    [3, 4],
  ]);
  assert.deepEqual(source[2], {
    tokenAttr: "data-source-token",
    labels: ["a", "b"],
    padding: [true, false],
  });
});

test("a small matrix is shown whole; a large one through a WINDOW × WINDOW window", () => {
  assert.equal(isWindowed(WINDOW, WINDOW), false);
  assert.equal(isWindowed(WINDOW + 1, 2), true);
  assert.equal(isWindowed(2, WINDOW + 1), true);
  assert.deepEqual(windowOf([0, 0], 3, 4), { origin: [0, 0], bounds: [0, 3, 0, 4] });
  assert.deepEqual(windowOf([5, 7], 40, 20), { origin: [5, 4], bounds: [5, 21, 4, 20] });
});

test("the window stays inside the matrix whatever origin is asked for", () => {
  assert.deepEqual(windowOf([-16, -3], 40, 40).origin, [0, 0]);
  assert.deepEqual(windowOf([100, 100], 40, 40), { origin: [24, 24], bounds: [24, 40, 24, 40] });
  const [dRow, dCol] = WINDOW_STEPS.down;
  assert.deepEqual([dRow, dCol], [WINDOW, 0]);
  assert.deepEqual(WINDOW_STEPS.left, [0, -WINDOW]);
});

test("the window bar says which part is shown and disables the buttons at the ends", () => {
  assert.deepEqual(windowBarState([0, 16, 16, 32], 40, 32), {
    text: "rows 1–16 of 40, columns 17–32 of 32",
    disabled: { up: true, down: false, left: false, right: true },
  });
});

test("keys: arrows commit and move, Left/Right only at the caret's edge; Enter, Escape", () => {
  const inside = { atStart: false, atEnd: false };
  const both = { atStart: true, atEnd: true };
  assert.deepEqual(keyAction("ArrowUp", inside), { move: [-1, 0] });
  assert.deepEqual(keyAction("ArrowDown", inside), { move: [1, 0] });
  assert.equal(keyAction("ArrowLeft", inside), null);
  assert.equal(keyAction("ArrowRight", inside), null);
  assert.deepEqual(keyAction("ArrowLeft", both), { move: [0, -1] });
  assert.deepEqual(keyAction("ArrowRight", { atStart: false, atEnd: true }), { move: [0, 1] });
  assert.equal(keyAction("Enter", inside), "commit");
  assert.equal(keyAction("Escape", inside), "revert");
  assert.equal(keyAction("a", both), null);
  assert.equal(keyAction("Tab", both), null);
});

test("a move goes to the clamped cell of the next row, or nowhere past the table", () => {
  assert.deepEqual(stepTarget(1, 2, 1, 0, 4, 3), [2, 2]);
  assert.deepEqual(stepTarget(1, 5, 1, 0, 4, 3), [2, 2]); // a shorter row: its last input
  assert.deepEqual(stepTarget(1, 0, 0, -1, 4, 3), [1, 0]);
  assert.equal(stepTarget(0, 0, -1, 0, 4, 3), null);
  assert.equal(stepTarget(3, 0, 1, 0, 4, 3), null);
});

test("a move leaves the shown part past its rows or its first and last number cells", () => {
  assert.equal(leavesWindow(0, 4, 1, 3, -1, 0), true);
  assert.equal(leavesWindow(3, 4, 1, 3, 1, 0), true);
  assert.equal(leavesWindow(1, 4, 2, 3, 0, 1), true);
  assert.equal(leavesWindow(1, 4, 0, 3, 0, -1), true);
  assert.equal(leavesWindow(1, 4, 1, 3, 0, 1), false);
  assert.equal(leavesWindow(1, 4, 1, 3, 1, 0), false);
  assert.equal(leavesWindow(1, 4, -1, 0, 0, 1), false); // a label in a row with no cells
});

test("a typed cell is a number (or an Error saying what to type); a label stays text", () => {
  assert.equal(readCell("−1.5", false), -1.5);
  assert.ok(readCell("abc", false) instanceof Error);
  assert.equal(readCell(" 12 ", true), " 12 ");
});

test("a number is written into its matrix cell, a label into the tokens", () => {
  const b = body();
  assert.equal(writeCell(b, { matrix: "w_q", row: "1", col: "0" }, 2), true);
  assert.deepEqual(b.w_q, [[1], [2]]);
  assert.equal(writeCell(b, { token: "2" }, "GPUs"), true);
  assert.deepEqual(b.tokens, ["I", "love", "GPUs"]);
  assert.equal(writeCell(b, { matrix: "x", row: "0", col: "0" }, 1), false);
});

test("a body without labels gets t0, t1, … before its first label edit", () => {
  const { tokens, ...b } = body();
  assert.equal(tokens.length, 3);
  assert.equal(writeCell(b, { token: "1" }, "you"), true);
  assert.deepEqual(b.tokens, ["t0", "you", "t2"]);
});

test("source cells and source labels are written into the source", () => {
  const b = { ...body(), source: { x: [[1, 2]] } };
  assert.equal(writeCell(b, { matrix: "source_x", row: "0", col: "1" }, 5), true);
  assert.equal(writeCell(b, { sourceToken: "0" }, "s"), true);
  assert.deepEqual(b.source, { x: [[1, 5]], tokens: ["s"] });
});

test("cells are named for screen readers and their errors have stable ids", () => {
  assert.equal(cellLabel("w_q", 0, 1), "W Q row 1, d k column 2"); // the notation in words
  assert.equal(cellLabel("source_x", 2, 0), "S (source) row 3, d model column 1");
  assert.equal(errorId({ matrix: "x", row: "1", col: "2" }, "x"), "err-x-1-2");
  assert.equal(errorId({ token: "3" }, "x"), "err-token-3-label");
  assert.equal(errorId({ sourceToken: "0" }, "source_x"), "err-token-0-label");
  assert.equal(errorId(undefined, "w_v"), "err-w_v");
});

test("direct mode: the editor shows Q (with the labels), K (with padding) and V", () => {
  const direct = {
    tokens: ["a", "b"],
    q: [
      [1, 0],
      [0, 1],
    ],
    k: [[1, 1]],
    v: [[2, 3]],
    padding: [true],
  };
  const specs = specsOf(direct);
  assert.deepEqual(
    specs.map(([name]) => name),
    ["q", "k", "v"],
  );
  assert.deepEqual(specs[0][2], { tokenAttr: "data-token", labels: ["a", "b"] });
  assert.deepEqual(specs[1][2], { padding: [true] });
});

test("a label typed into a direct-mode body without labels names every query row", () => {
  const unlabelled = { q: [[1], [2], [3]], k: [[1]], v: [[1]] };
  assert.equal(writeCell(unlabelled, { token: "1" }, "cat"), true);
  assert.deepEqual(unlabelled.tokens, ["t0", "cat", "t2"]);
});
