// slide.js: a caption is wrapped at spaces into lines of at most 105 characters.
import assert from "node:assert/strict";
import { test } from "node:test";

import { wrap } from "../../static/js/slide.js";

test("short text is one line; empty text no line", () => {
  assert.deepEqual(wrap("Figure 6. Weights"), ["Figure 6. Weights"]);
  assert.deepEqual(wrap(""), []);
  assert.deepEqual(wrap("  \n "), []);
});

test("long text breaks at spaces, no line longer than the width, no word lost", () => {
  const words = Array.from({ length: 60 }, (_, i) => `w${i}·${"x".repeat(i % 7)}`);
  const lines = wrap(words.join(" "));
  assert.ok(lines.length > 1);
  for (const line of lines) assert.ok(line.length <= 105, line);
  assert.deepEqual(lines.join(" ").split(" "), words);
});

test("runs of spaces and newlines count as one break", () => {
  assert.deepEqual(wrap("a  b\n\nc", 3), ["a b", "c"]);
});

test("a word longer than the width stays whole on its own line", () => {
  assert.deepEqual(wrap(`ab ${"z".repeat(12)} cd`, 10), ["ab", "z".repeat(12), "cd"]);
});
