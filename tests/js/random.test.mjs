// random.js: "Randomise" is reproducible from its seed and keeps the shapes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { newSeed, randomise } from "../../static/js/random.js";

const body = {
  tokens: ["a", "b"],
  x: [
    [9, 9, 9],
    [9, 9, 9],
  ],
  w_q: [[9], [9], [9]],
  w_k: [[9], [9], [9]],
  w_v: [
    [9, 9],
    [9, 9],
    [9, 9],
  ],
  source: { x: [[9, 9, 9]], tokens: ["s"] },
};

test("the same seed gives the same numbers; another seed other numbers", () => {
  assert.deepEqual(randomise(body, "123456"), randomise(body, "123456"));
  assert.notDeepEqual(randomise(body, "123456").x, randomise(body, "654321").x);
});

test("shapes and labels stay; every entry is a whole number in [−2, 2]", () => {
  const out = randomise(body, "42");
  assert.deepEqual(out.tokens, body.tokens);
  for (const key of ["x", "w_q", "w_k", "w_v"]) {
    assert.equal(out[key].length, body[key].length);
    for (const [i, row] of out[key].entries()) {
      assert.equal(row.length, body[key][i].length);
      for (const v of row) assert.ok(Number.isInteger(v) && v >= -2 && v <= 2, `${key}: ${v}`);
    }
  }
  assert.equal(out.source.x[0].length, 3);
  assert.equal(body.x[0][0], 9, "the input is not changed");
});

test("a new seed is six digits", () => {
  for (let i = 0; i < 20; i += 1) assert.match(newSeed(), /^[1-9]\d{5}$/);
});

test("a direct-mode body gets new Q, K and V of the same shapes", () => {
  const direct = { q: [[9, 9]], k: [[9, 9]], v: [[9], [9]] };
  const out = randomise(direct, "7");
  for (const key of ["q", "k", "v"]) {
    assert.deepEqual(
      out[key].map((row) => row.length),
      direct[key].map((row) => row.length),
    );
    assert.ok(out[key].flat().every((n) => Number.isInteger(n) && n >= -2 && n <= 2));
  }
  assert.equal("x" in out, false);
  assert.deepEqual(randomise(direct, "7"), out);
});
