// numbers.js: the one parser of a typed number (the page's editor and the embeds').
import assert from "node:assert/strict";
import { test } from "node:test";

import { parseNumber } from "../../static/js/numbers.js";

test("decimal numbers as typed", () => {
  const cases = { 3: 3, "-0.5": -0.5, ".5": 0.5, "+2": 2, "1e-3": 0.001, "1E3": 1000, "2.": 2 };
  for (const [text, value] of Object.entries(cases)) assert.equal(parseNumber(text), value, text);
});

test("the minus sign U+2212, which the page prints, reads as minus", () => {
  assert.equal(parseNumber("\u22121"), -1);
  assert.equal(parseNumber("−2.5"), -2.5);
  assert.equal(parseNumber("1e−3"), 0.001);
});

test("spaces around are ignored", () => {
  assert.equal(parseNumber("  7 \t"), 7);
  assert.equal(parseNumber(" −0 "), -0);
});

test("empty text is refused with a message saying what to type", () => {
  for (const text of ["", "   "]) {
    const error = parseNumber(text);
    assert.ok(error instanceof Error, JSON.stringify(text));
    assert.match(error.message, /^empty: type a number/);
  }
});

test("text that is not a decimal number is refused, naming what was typed", () => {
  for (const text of ["abc", "1,5", "0x10", "Infinity", "NaN", "1e", "--1", "1 2", "½"]) {
    const error = parseNumber(text);
    assert.ok(error instanceof Error, text);
    assert.equal(error.message, `“${text}” is not a number`);
  }
});

test("a number too large for a double is refused", () => {
  const error = parseNumber("1e999");
  assert.ok(error instanceof Error);
  assert.match(error.message, /too large/);
});
