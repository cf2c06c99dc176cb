import assert from "node:assert/strict";
import { test } from "node:test";

import {
  generateQuery,
  headQuery,
  headsQuery,
  moveHead,
  nextSort,
  pageQuery,
  sortSummaries,
} from "../../static/js/models/heads_core.js";

test("arrow keys move within 6 × 12 heads and stop at the edges", () => {
  assert.deepEqual(moveHead("ArrowRight", 0, 0, 6, 12), [0, 1]);
  assert.deepEqual(moveHead("ArrowDown", 0, 3, 6, 12), [1, 3]);
  assert.equal(moveHead("ArrowUp", 0, 3, 6, 12), null);
  assert.equal(moveHead("ArrowRight", 2, 11, 6, 12), null);
  assert.deepEqual(moveHead("End", 2, 4, 6, 12), [2, 11]);
  assert.equal(moveHead("a", 2, 4, 6, 12), null);
});

test("summaries sort by entropy, pattern or order, ties in layer/head order", () => {
  const rows = [
    { layer: 0, head: 1, words: "previous-token head", entropy: 0.5 },
    { layer: 0, head: 0, words: "broad head", entropy: 1.5 },
    { layer: 1, head: 0, words: "broad head", entropy: 0.1 },
  ];
  const heads = (list) => list.map((r) => `${r.layer}.${r.head}`);
  assert.deepEqual(heads(sortSummaries(rows, "entropy")), ["1.0", "0.1", "0.0"]);
  assert.deepEqual(heads(sortSummaries(rows, "entropy", true)), ["0.0", "0.1", "1.0"]);
  assert.deepEqual(heads(sortSummaries(rows, "pattern")), ["0.0", "1.0", "0.1"]);
  assert.deepEqual(heads(sortSummaries(rows, "order")), ["0.0", "0.1", "1.0"]);
  assert.deepEqual(nextSort({ key: "order", descending: false }, "entropy"), {
    key: "entropy",
    descending: false,
  });
  assert.deepEqual(nextSort({ key: "entropy", descending: false }, "entropy"), {
    key: "entropy",
    descending: true,
  });
});

test("summaries sort by the weight on the first token and by shared key/value head", () => {
  const rows = [
    { layer: 0, head: 0, words: "self head", entropy: 1, sink: 0.7, kv_head: 1 },
    { layer: 0, head: 1, words: "self head", entropy: 1, sink: 0.1, kv_head: 0 },
    { layer: 1, head: 0, words: "self head", entropy: 1, sink: 0.7, kv_head: 0 },
  ];
  const heads = (list) => list.map((s) => `${s.layer}.${s.head}`);
  assert.deepEqual(heads(sortSummaries(rows, "sink")), ["0.1", "0.0", "1.0"]);
  assert.deepEqual(heads(sortSummaries(rows, "sink", true)), ["1.0", "0.0", "0.1"]);
  assert.deepEqual(heads(sortSummaries(rows, "group")), ["0.1", "1.0", "0.0"]);
});

test("heads.json's query carries the sentence as typed", () => {
  const query = new URLSearchParams(headsQuery("I love ##LLMs & more", "dark", true));
  assert.equal(query.get("text"), "I love ##LLMs & more");
  assert.equal(query.get("theme"), "dark");
  assert.equal(query.get("hide_special"), "1");
});

test("one head's query is the sentence's with its layer and head (0-based)", () => {
  const query = new URLSearchParams(headQuery("I love LLMs", "light", false, 2, 11));
  assert.equal(query.get("text"), "I love LLMs");
  assert.equal(query.get("hide_special"), "0");
  assert.equal(query.get("layer"), "2");
  assert.equal(query.get("head"), "11");
});

test("generate.json's query: greedy without a seed, the steps and seed as typed", () => {
  const greedy = new URLSearchParams(generateQuery("Hi you", "dark", "6", "", 29, 8));
  assert.deepEqual(Object.fromEntries(greedy), {
    text: "Hi you",
    theme: "dark",
    steps: "6",
    layer: "29",
    head: "8",
  });
  const sampled = new URLSearchParams(generateQuery("Hi", "light", "3", "07", 0, 0));
  assert.equal(sampled.get("seed"), "07"); // the server reads it, not the page
  assert.equal(sampled.get("steps"), "3");
});

test("the page's query keeps the generation's steps and seed, the theme unless auto", () => {
  assert.equal(pageQuery("I love LLMs", "auto"), "text=I+love+LLMs");
  assert.equal(pageQuery("Hi", "dark", { steps: 6 }), "text=Hi&theme=dark&steps=6");
  assert.equal(pageQuery("Hi", "auto", { steps: 6, seed: 7 }), "text=Hi&steps=6&seed=7");
});
