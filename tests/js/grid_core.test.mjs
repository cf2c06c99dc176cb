// grid_core.js: the DOM-free decisions of the grid renderer (grid.js draws them).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  axesText,
  boxRect,
  canvasPixels,
  CODE_BASE,
  cellAt,
  cellLook,
  cellSize,
  changedCells,
  moveCell,
  numberText,
  outlineOf,
  splitLabel,
  tileEdges,
  usedCells,
} from "../../static/js/grid_core.js";

// A 2 × 3 grid as app/figures/grid.py describes one; (1, 2) is blocked (masked).
function grid(overrides = {}) {
  return {
    grid: "A",
    label: "W^Q",
    shape: [2, 3],
    rows: ["I", "love"],
    cols: ["1", "2", "3"],
    values: [
      [0.5, -1, 2],
      [3, 0, null],
    ],
    text: [
      ["0.5", "−1", "2"],
      ["3", "0", "−∞"],
    ],
    color: [
      [0, 1, 0],
      [1, 0, -1],
    ],
    palette: [
      ["#ff0000", "#000000"],
      ["#00ff80", "#ffffff"],
    ],
    ...overrides,
  };
}

test("keys move one cell, Home/End to the row's ends, PageUp/Down to the column's", () => {
  const shape = [4, 5];
  assert.deepEqual(moveCell("ArrowDown", 1, 2, shape), [2, 2]);
  assert.deepEqual(moveCell("ArrowUp", 1, 2, shape), [0, 2]);
  assert.deepEqual(moveCell("ArrowLeft", 1, 2, shape), [1, 1]);
  assert.deepEqual(moveCell("ArrowRight", 1, 2, shape), [1, 3]);
  assert.deepEqual(moveCell("Home", 1, 2, shape), [1, 0]);
  assert.deepEqual(moveCell("End", 1, 2, shape), [1, 4]);
  assert.deepEqual(moveCell("PageUp", 1, 2, shape), [0, 2]);
  assert.deepEqual(moveCell("PageDown", 1, 2, shape), [3, 2]);
});

test("no move past an edge, and none for other keys", () => {
  assert.equal(moveCell("ArrowUp", 0, 0, [2, 2]), null);
  assert.equal(moveCell("ArrowLeft", 0, 0, [2, 2]), null);
  assert.equal(moveCell("ArrowDown", 1, 1, [2, 2]), null);
  assert.equal(moveCell("ArrowRight", 1, 1, [2, 2]), null);
  assert.equal(moveCell("a", 0, 0, [2, 2]), null);
  assert.equal(moveCell("Enter", 0, 0, [2, 2]), null);
});

test("a cell holds its value, text and hover; a blocked one reads -Infinity", () => {
  const desc = grid({
    hover: [
      ["h00", "h01", "h02"],
      ["h10", "h11", "h12"],
    ],
  });
  assert.deepEqual(cellAt(desc, 0, 1), { row: 0, col: 1, value: -1, text: "−1", hover: "h01" });
  assert.deepEqual(cellAt(desc, 1, 2), {
    row: 1,
    col: 2,
    value: -Infinity,
    text: "−∞",
    hover: "h12",
  });
  for (const [r, c] of [
    [-1, 0],
    [0, -1],
    [2, 0],
    [0, 3],
  ])
    assert.equal(cellAt(desc, r, c), null);
  assert.equal(cellAt(null, 0, 0), null);
});

test("a canvas grid (no text) prints the value itself", () => {
  const desc = grid({ text: undefined });
  assert.equal(cellAt(desc, 0, 0).text, "0.5");
  assert.equal(cellAt(desc, 1, 2).text, "−∞");
  assert.equal(cellAt(desc, 1, 2).hover, null);
});

test("a canvas grid writes a negative value with the true minus sign", () => {
  const desc = grid({ text: undefined });
  desc.values[0][0] = -0.25;
  assert.equal(cellAt(desc, 0, 0).text, "−0.25");
  assert.equal(numberText(-3), "−3");
  assert.equal(numberText(1e-7), "1e-7");
  assert.equal(numberText(-1e-7), "−1e-7");
  assert.equal(numberText(null), "−∞");
  assert.equal(numberText(-Infinity), "−∞");
  assert.equal(numberText(0), "0");
});

test("labels split at ^ into base and superscript", () => {
  assert.deepEqual(splitLabel("W^Q"), ["W", "Q"]);
  assert.deepEqual(splitLabel("softmax^row"), ["softmax", "row"]);
  assert.equal(splitLabel("X"), null);
  assert.equal(splitLabel(undefined), null);
});

test("a use names the hovered row (i), column (j) or the whole line (null)", () => {
  assert.deepEqual(usedCells({ grid: "X", row: "i", col: null }, 2, 5), [2, null]);
  assert.deepEqual(usedCells({ grid: "W", row: null, col: "j" }, 2, 5), [null, 5]);
  assert.deepEqual(usedCells({ grid: "S", row: "j", col: "i" }, 2, 5), [5, 2]);
});

test("a cell's look: its value, text, colours and classes", () => {
  const desc = grid({ outline: { rows: [0], cols: [1], cells: [[1, 0]] } });
  const outline = outlineOf(desc);
  assert.deepEqual([...outline.rows], [0]);
  assert.deepEqual(cellLook(desc, outline, 0, 1), {
    value: "-1",
    text: "−1",
    bg: "#00ff80",
    ink: "#ffffff",
    blocked: false,
    colOutlined: true,
    cellOutlined: false,
  });
  assert.deepEqual(cellLook(desc, outline, 1, 2), {
    value: "-Infinity",
    text: "−∞",
    bg: "",
    ink: "",
    blocked: true,
    colOutlined: false,
    cellOutlined: false,
  });
  assert.equal(cellLook(desc, outline, 1, 0).cellOutlined, true);
});

test("an update touches only the cells whose number, text or colour changed", () => {
  const old = grid();
  const next = structuredClone(old);
  next.values[0][2] = 2.5;
  next.text[0][2] = "2.5";
  next.color[1][0] = 0;
  assert.deepEqual(changedCells(old, next), [
    [0, 2],
    [1, 0],
  ]);
  assert.deepEqual(changedCells(old, structuredClone(old)), []);
});

test("a new table, a new shape, palette or outline, or the same object touch every cell", () => {
  const old = grid();
  const every = [
    [0, 0],
    [0, 1],
    [0, 2],
    [1, 0],
    [1, 1],
    [1, 2],
  ];
  assert.deepEqual(changedCells(null, old), every);
  assert.deepEqual(changedCells(old, old), every);
  assert.deepEqual(
    changedCells(
      old,
      grid({
        palette: [
          ["#000000", "#fff"],
          ["#111111", "#fff"],
        ],
      }),
    ),
    every,
  );
  assert.deepEqual(changedCells(old, grid({ outline: { rows: [1] } })), every);
  const wider = grid({ shape: [2, 2] });
  assert.equal(changedCells(old, wider).length, 4);
});

test("the caption names the axes when the description does", () => {
  assert.equal(axesText(grid()), "");
  assert.equal(axesText(grid({ row_title: "query" })), " (rows: query)");
  assert.equal(
    axesText(grid({ row_title: "query", col_title: "key" })),
    " (rows: query; columns: key)",
  );
});

test("canvas pixels: one RGBA pixel per cell, row by row, blocked cells grey", () => {
  const bytes = canvasPixels(grid());
  assert.equal(bytes.length, 2 * 3 * 4);
  assert.deepEqual([...bytes.slice(0, 8)], [255, 0, 0, 255, 0, 255, 128, 255]);
  assert.deepEqual([...bytes.slice(20, 24)], [128, 128, 128, 90]);
});

test("canvas pixels from codes (one character a cell) equal those from colour indices", () => {
  const codes = [0, 1, 0, 1, 0, -1].map((k) => String.fromCharCode(CODE_BASE + k)).join("");
  assert.deepEqual(canvasPixels(grid({ color: null, codes })), canvasPixels(grid()));
});

test("outline and cursor boxes in pixels; cell size within its bounds", () => {
  assert.deepEqual(boxRect(1, 2, [4, 5], 10), { top: 10, left: 20, width: 10, height: 10 });
  assert.deepEqual(boxRect(1, null, [4, 5], 10), { top: 10, left: 0, width: 50, height: 10 });
  assert.deepEqual(boxRect(null, 3, [4, 5], 10), { top: 0, left: 30, width: 10, height: 40 });
  assert.equal(cellSize(600, 100, 2, 14), 6);
  assert.equal(cellSize(600, 10, 2, 14), 14);
  assert.equal(cellSize(600, 1000, 2, 14), 2);
  // a tall grid: the height bounds it too (385 rows in 720 px: 1 px, so the minimum 2)
  assert.equal(cellSize(600, 32, 2, 14, 385, 720), 2);
  assert.equal(cellSize(600, 32, 2, 14, 60, 720), 12);
  assert.equal(cellSize(600, 32, 2, 14, 10, 720), 14);
});

/* ---- text contrast: every printed cell reads at WCAG AA (4.5 : 1) on its fill ---- */

// The real palettes of app/figures/grid.py (tests/unit/test_grid_ink_fixture.py keeps
// this file equal to them): every colour of every role's scale, light and dark.
const PALETTES = JSON.parse(
  readFileSync(new URL("./fixtures/grid_palettes.json", import.meta.url), "utf8"),
);

/** WCAG 2 contrast ratio of two "#rrggbb" colours (the test's own, independent copy). */
function contrast(a, b) {
  const lum = (hex) => {
    const [r, g, b2] = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
    const lin = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b2);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

test("contrast() agrees with WCAG's own examples", () => {
  assert.equal(contrast("#000000", "#ffffff"), 21);
  assert.ok(Math.abs(contrast("#767676", "#ffffff") - 4.54) < 0.01);
});

test("every cell of every real palette gets ink at 4.5 : 1 or more, in both themes", () => {
  let checked = 0;
  for (const [theme, roles] of Object.entries(PALETTES)) {
    for (const [role, palette] of Object.entries(roles)) {
      // One row holding every colour of the scale, as a grid description sends it.
      const desc = {
        shape: [1, palette.length],
        values: [palette.map((_, k) => k)],
        text: [palette.map((_, k) => String(k))],
        color: [palette.map((_, k) => k)],
        palette,
      };
      palette.forEach((_, k) => {
        const look = cellLook(desc, outlineOf(desc), 0, k);
        const ratio = contrast(look.bg, look.ink);
        assert.ok(ratio >= 4.5, `${theme} ${role} step ${k}: ${look.ink} on ${look.bg} ${ratio}`);
        checked += 1;
      });
    }
  }
  assert.equal(checked, 2 * 7 * 33);
});

test("a mid-orange weight in the dark theme is printed in black, not grey", () => {
  const palette = PALETTES.dark.weights;
  const mid = palette[Math.floor(palette.length / 2)]; // the scale's middle: #a86f00
  assert.equal(mid[0], "#a86f00");
  const desc = { shape: [1, 1], values: [[0.5]], text: [["0.50"]], color: [[0]], palette: [mid] };
  assert.equal(cellLook(desc, outlineOf(desc), 0, 0).ink, "#000000");
});

test("tileEdges: a line where the server's tiles start, never on the first row or column", () => {
  const desc = { tiles: { rows: [0, 2], cols: [0, 3] } };
  assert.deepEqual(tileEdges(desc, 0, 0), { top: false, left: false });
  assert.deepEqual(tileEdges(desc, 2, 1), { top: true, left: false });
  assert.deepEqual(tileEdges(desc, 1, 3), { top: false, left: true });
  assert.deepEqual(tileEdges({}, 2, 3), { top: false, left: false });
});
