// grid_core.js's legend, mask and scroll-cue decisions (grid.js and scroll_cue.js draw them).
import assert from "node:assert/strict";
import { test } from "node:test";

import { anyMasked, legendOf, maskedAt, scrollSides } from "../../static/js/grid_core.js";

const weights = {
  scale: "weights",
  domain: [0, 1],
  scale_colors: ["#fff8ec", "#f2b84b", "#7a4200"],
  masked: [
    [false, true],
    [false, false],
  ],
};

test("a masked cell is read from the description; none when masked is null", () => {
  assert.equal(maskedAt(weights, 0, 1), true);
  assert.equal(maskedAt(weights, 1, 1), false);
  assert.equal(maskedAt({ ...weights, masked: null }, 0, 1), false);
  assert.equal(anyMasked(weights), true);
  assert.equal(anyMasked({ ...weights, masked: null }), false);
  assert.equal(anyMasked({ ...weights, masked: [[false]] }), false);
});

test("the legend names the scale's ends and the masked swatch on weights", () => {
  assert.deepEqual(legendOf(weights), {
    low: "0",
    high: "1",
    colors: weights.scale_colors,
    masked: "masked (weight 0)",
  });
});

test("a diverging scale's ends print the one minus sign; blocked scores say −∞", () => {
  const scores = { scale: "scores", domain: [-5, 5], scale_colors: ["a", "b", "c"] };
  assert.equal(legendOf(scores).low, "−5");
  assert.equal(legendOf(scores).high, "5");
  assert.equal(legendOf(scores).masked, null);
  const blocked = legendOf({ ...scores, masked: [[true]] });
  assert.equal(blocked.masked, "masked (−∞, weight 0 after the softmax)");
});

test("a box that scrolls sideways names the sides with hidden content", () => {
  assert.deepEqual(scrollSides(0, 300, 300), []);
  assert.deepEqual(scrollSides(0, 500, 300), ["right"]);
  assert.deepEqual(scrollSides(100, 500, 300), ["left", "right"]);
  assert.deepEqual(scrollSides(200, 500, 300), ["left"]);
  assert.deepEqual(scrollSides(199.5, 500, 300), ["left"]); // sub-pixel rounding
});
