// shapes.js: structural edits keep every shape consistent and never touch the input.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  edit,
  headChoices,
  isDirect,
  keyRows,
  queryRows,
  setCross,
  setPadding,
  width,
} from "../../static/js/shapes.js";

const body = () => ({
  tokens: ["a", "b", "c"],
  x: [
    [1, 2],
    [3, 4],
    [5, 6],
  ],
  w_q: [
    [1, 0, 1, 0],
    [0, 1, 0, 1],
  ],
  w_k: [
    [1, 1, 1, 1],
    [2, 2, 2, 2],
  ],
  w_v: [
    [1, 2],
    [3, 4],
  ],
});

/** Every shape rule of the module's header comment. */
function assertConsistent(b) {
  const dModel = width(b.x);
  for (const row of b.x) assert.equal(row.length, dModel);
  for (const m of [b.w_q, b.w_k, b.w_v]) assert.equal(m.length, dModel);
  assert.equal(width(b.w_q), width(b.w_k));
  if (b.tokens) assert.equal(b.tokens.length, b.x.length);
  if (b.source) {
    for (const row of b.source.x) assert.equal(row.length, dModel);
    assert.equal(b.source.tokens.length, b.source.x.length);
  }
  if (b.w_o) assert.equal(b.w_o.length, width(b.w_v));
  if (b.padding) assert.equal(b.padding.length, keyRows(b).length);
}

test("add and remove a token: zeros, a default label, the input untouched", () => {
  const before = body();
  const added = edit(before, "add-token");
  assert.deepEqual(added.x.at(-1), [0, 0]);
  assert.deepEqual(added.tokens, ["a", "b", "c", "t3"]);
  assert.deepEqual(before, body());
  assertConsistent(added);
  const removed = edit(added, "remove-token");
  assert.deepEqual(removed, before);
});

test("a body without labels gets t0, t1, ... when a token is added", () => {
  const { tokens, ...unlabelled } = body();
  assert.deepEqual(edit(unlabelled, "add-token").tokens, ["t0", "t1", "t2", "t3"]);
});

test("the last token, d_model, d_k or d_v column cannot be removed", () => {
  const one = { x: [[1]], w_q: [[1]], w_k: [[1]], w_v: [[1]] };
  for (const action of ["remove-token", "remove-d_model", "remove-d_k", "remove-d_v"]) {
    assert.equal(edit(one, action), one, action);
  }
});

test("d_model, d_k and d_v edits resize every matrix that shares the size", () => {
  for (const action of ["add-d_model", "remove-d_model", "add-d_k", "remove-d_k", "add-d_v"]) {
    assertConsistent(edit(body(), action));
  }
  assert.equal(width(edit(body(), "add-d_k").w_k), 5);
  const withWo = { ...body(), w_o: [[1], [1]] };
  const more = edit(withWo, "add-d_v");
  assert.equal(width(more.w_v), 3);
  assert.deepEqual(more.w_o.at(-1), [0]);
  assertConsistent(more);
});

test("an unknown action returns the body itself", () => {
  const b = body();
  assert.equal(edit(b, "explode"), b);
});

test("cross-attention: S starts as a copy of X, keeps its shape through edits, and goes", () => {
  const cross = setCross(body(), true);
  assert.deepEqual(cross.source.x, body().x);
  assert.deepEqual(cross.source.tokens, ["a", "b", "c"]);
  assert.equal(keyRows(cross), cross.source.x);
  const more = edit(edit(cross, "add-source"), "add-d_model");
  assert.equal(more.source.x.length, 4);
  assertConsistent(more);
  assert.equal(setCross(more, false).source, undefined);
});

test("padding has one flag per key and disappears when all flags are off", () => {
  const padded = setPadding(body(), 1, true);
  assert.deepEqual(padded.padding, [false, true, false]);
  assertConsistent(edit(padded, "add-token"));
  assert.deepEqual(edit(padded, "add-token").padding, [false, true, false, false]);
  assert.equal(setPadding(padded, 1, false).padding, undefined);
  const cross = setPadding(edit(setCross(body(), true), "add-source"), 3, true);
  assert.deepEqual(cross.padding, [false, false, false, true]);
});

test("head choices divide both d_k and d_v", () => {
  assert.deepEqual(headChoices(body()), [1, 2]);
  const wide = {
    ...body(),
    w_v: [
      [1, 2, 3, 4, 5, 6],
      [0, 0, 0, 0, 0, 0],
    ],
  };
  assert.deepEqual(headChoices(wide), [1, 2]);
  const square = { ...body(), w_v: body().w_q };
  assert.deepEqual(headChoices(square), [1, 2, 4]);
});

test("a direct-mode body: Q's rows are the queries, K's the keys, heads divide d_k and d_v", () => {
  const direct = {
    tokens: ["a", "b"],
    q: [
      [1, 0, 1, 0],
      [0, 1, 0, 1],
    ],
    k: [
      [1, 1, 1, 1],
      [2, 2, 2, 2],
      [3, 3, 3, 3],
    ],
    v: [
      [1, 2],
      [3, 4],
      [5, 6],
    ],
  };
  assert.equal(isDirect(direct), true);
  assert.equal(isDirect(body()), false);
  assert.equal(queryRows(direct), direct.q);
  assert.equal(keyRows(direct), direct.k);
  assert.equal(queryRows(body()).length, 3);
  assert.deepEqual(headChoices(direct), [1, 2]);
  assert.deepEqual(setPadding(direct, 2, true).padding, [false, false, true]);
});
