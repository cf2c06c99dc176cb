// notation_core.js: the DOM-free half of the notation renderer. The shared case list
// (tests/notation_cases.json) is checked by the Python parser too (tests/unit/test_notation.py),
// so the page's JavaScript and the server's `math` filter convert the same strings alike.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  isPlain,
  notationTokens,
  plotlyMarkup,
  spokenText,
} from "../../static/js/notation_core.js";

const { cases } = JSON.parse(
  readFileSync(new URL("../notation_cases.json", import.meta.url), "utf8"),
);

test("every shared case splits into the same tokens as the server's parser", () => {
  assert.ok(cases.length >= 20);
  for (const { text, tokens } of cases) assert.deepEqual(notationTokens(text), tokens, text);
});

test("every shared case: the same Plotly markup and spoken form as the server's", () => {
  for (const { text, plotly, spoken } of cases) {
    assert.equal(plotlyMarkup(text), plotly, text);
    assert.equal(spokenText(text), spoken, text);
  }
  assert.equal(spokenText("Download W^Q"), "Download W Q");
  assert.equal(spokenText("e^−∞ = 0"), "e to the minus infinity = 0");
});

test("the vocabulary's shapes: superscript, subscript, root, power", () => {
  assert.deepEqual(notationTokens("W^O"), [
    ["math", ["msup", ["mi", "W"], ["mi", "O"]], "W^O", "W O"],
  ]);
  assert.deepEqual(notationTokens("√d_k"), [
    ["math", ["msqrt", ["msub", ["mi", "d"], ["mi", "k"]]], "√d_k", "square root of d k"],
  ]);
  assert.deepEqual(notationTokens("e^−2"), [
    ["math", ["msup", ["mi", "e"], ["mn", "−2"]], "e^−2", "e to the −2"],
  ]);
  assert.deepEqual(notationTokens("q_2 (love)"), [
    ["math", ["msub", ["mi", "q"], ["mn", "2"]], "q_2", "q 2"],
    ["text", " (love)"],
  ]);
});

test("text outside the vocabulary stays text, markup included", () => {
  for (const text of ["e^-2", "W^{O}", "d_ks", "<b>x</b>", "q2·k2", ""]) {
    assert.equal(isPlain(text), true, text);
    assert.deepEqual(notationTokens(text), text ? [["text", text]] : [], text);
  }
  assert.equal(isPlain("d_k"), false);
  assert.deepEqual(notationTokens(null), []);
});

test("the text is kept whole: the tokens' sources join back into it", () => {
  for (const { text } of cases) {
    const joined = notationTokens(text)
      .map((t) => (t[0] === "text" ? t[1] : t[2]))
      .join("");
    assert.equal(joined, text);
  }
});

test("a saved chart's heading and caption: notation in Plotly's <sub>/<sup>, the rest escaped", () => {
  assert.equal(plotlyMarkup("divided by √d_k"), "divided by √d<sub>k</sub>");
  assert.equal(plotlyMarkup("W^Q and z_2 (love)"), "W<sup>Q</sup> and z<sub>2</sub> (love)");
  assert.equal(plotlyMarkup("e^−2"), "e<sup>−2</sup>");
  assert.equal(plotlyMarkup("<b>a & b</b>"), "&lt;b&gt;a &amp; b&lt;/b&gt;"); // a label is text
});
