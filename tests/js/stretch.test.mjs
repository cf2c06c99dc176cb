// stretch.js: the slider's position for a stretch is the last stop not above it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { stopIndex } from "../../static/js/stretch.js";

const STOPS = [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];

test("a stop sits on itself", () => {
  STOPS.forEach((stop, i) => assert.equal(stopIndex(STOPS, stop), i));
});

test("a value between stops sits on the stop below it", () => {
  assert.equal(stopIndex(STOPS, 5), 5);
  assert.equal(stopIndex(STOPS, 0.3), 1);
  assert.equal(stopIndex(STOPS, 63.9), 8);
});

test("past either end: the end", () => {
  assert.equal(stopIndex(STOPS, 0.05), 0);
  assert.equal(stopIndex(STOPS, 100), STOPS.length - 1);
});
