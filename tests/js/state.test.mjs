// state.js: the link codec (body -> base64url JSON) and the view's query and API forms.
// The decoder here is node's own base64url, so the round trip checks the encoder against
// an independent implementation, as the server (app/inputs/link.py) decodes it.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  encodeBody,
  figureLink,
  figuresView,
  setViewDefaults,
  toQuery,
} from "../../static/js/state.js";

// The server's table (app.inputs.view.url_defaults), as #initial-state hands it over.
const VIEW_DEFAULTS = { focus: 1, head: 0, stretch: 8, row: "textbook", theme: "auto" };
setViewDefaults(VIEW_DEFAULTS);

const decode = (text) => JSON.parse(Buffer.from(text, "base64url").toString("utf8"));

const BODY = {
  tokens: ["I", "love", "LLMs"],
  x: [
    [1, 0, 1, 0],
    [0, 2, 0, 2],
    [1, 1, 1, 1],
  ],
  w_q: [
    [1, 0],
    [0, 1],
    [1, 0],
    [0, 1],
  ],
  w_k: [
    [0.5, -1e-3],
    [0, 1],
    [1, 0],
    [0, -2.25],
  ],
  w_v: [[1], [2], [3], [4]],
  mask: "causal",
  scale: false,
};

test("encodeBody round-trips a body exactly, numbers included", () => {
  assert.deepEqual(decode(encodeBody(BODY)), BODY);
});

test("encodeBody is base64url without padding", () => {
  for (const tokens of [["a"], ["ab"], ["abc"], ["?>?>"], ["ÿÿÿ"]]) {
    const text = encodeBody({ tokens });
    assert.match(text, /^[A-Za-z0-9_-]+$/, text);
    assert.deepEqual(decode(text), { tokens });
  }
});

test("encodeBody keeps non-ASCII labels (UTF-8, not Latin-1)", () => {
  const body = { tokens: ["café", "−1", "注意", "🙂"], x: [[1], [2], [3], [4]] };
  assert.deepEqual(decode(encodeBody(body)), body);
});

test("toQuery names a preset instead of the body, and leaves default view values out", () => {
  const query = toQuery({ body: BODY, view: { ...VIEW_DEFAULTS } }, "causal");
  assert.equal(query, "preset=causal");
});

test("toQuery carries the body and every view value that differs from the default", () => {
  const view = { focus: 2, head: 0, stretch: 4, row: "focus", theme: "dark" };
  const params = new URLSearchParams(toQuery({ body: BODY, view }));
  assert.deepEqual([...params.keys()], ["s", "focus", "stretch", "row", "theme"]);
  assert.deepEqual(decode(params.get("s")), BODY);
  assert.equal(params.get("focus"), "2");
  assert.equal(params.get("stretch"), "4");
  assert.equal(params.get("row"), "focus");
  assert.equal(params.get("theme"), "dark");
});

test("toQuery skips view keys that are undefined", () => {
  assert.equal(toQuery({ body: {}, view: { focus: undefined } }, "p"), "preset=p");
});

test("figuresView renames row to softmax_row and adds the theme and figures", () => {
  const view = { focus: 1, head: 0, stretch: 8, row: "focus", theme: "auto" };
  assert.deepEqual(figuresView(view, "dark", [3, 12]), {
    focus: 1,
    head: 0,
    stretch: 8,
    softmax_row: "focus",
    theme: "dark",
    figures: [3, 12],
  });
});

test("a link to a figure names it in the query (the server reads it) and in the fragment", () => {
  assert.equal(figureLink("preset=causal", 7), "?preset=causal&fig=7#fig-7");
  assert.equal(figureLink("preset=causal&focus=2", 12), "?preset=causal&focus=2&fig=12#fig-12");
  assert.equal(figureLink("", 6), "?fig=6#fig-6");
  // a query that named another figure names this one, once
  assert.equal(figureLink("fig=3&preset=causal", 9), "?preset=causal&fig=9#fig-9");
  // no figure: the query alone, no fragment (the page's URL before this change)
  assert.equal(figureLink("preset=causal"), "?preset=causal");
  assert.equal(figureLink("preset=causal", null), "?preset=causal");
  // the body's base64url travels untouched
  const query = toQuery({ body: BODY, view: {} });
  const link = figureLink(query, 8);
  assert.equal(new URLSearchParams(link.slice(1, link.indexOf("#"))).get("s"), encodeBody(BODY));
});
