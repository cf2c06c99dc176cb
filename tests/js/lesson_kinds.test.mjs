// lessons/draft_core.js reads the question kinds as the server declares them
// (app/lessons/kinds.py; the fixture is that declaration, checked against it by
// tests/unit/test_lesson_kinds.py): a new question's values, which menus show, and the
// key asked for only when another has one value (direction's column, one weight only).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { newQuestion, PROMPTS, settle, shows } from "../../static/js/lessons/draft_core.js";

const declared = JSON.parse(
  readFileSync(new URL("./fixtures/lesson_kinds.json", import.meta.url), "utf8"),
);

test("every declared kind has a prompt, and no other kind does", () => {
  assert.deepEqual(Object.keys(PROMPTS).sort(), Object.keys(declared.kinds).sort());
});

test("a new question starts with the declared values and nothing its condition refuses", () => {
  assert.deepEqual(newQuestion("cell_value", declared), {
    kind: "cell_value",
    prompt: "",
    stage: "weights",
    row: 1,
    col: 1,
  });
  assert.deepEqual(newQuestion("direction", declared), {
    kind: "direction",
    prompt: "",
    quantity: "entropy",
    row: 1,
  });
});

test("direction's column comes with the quantity weight and goes with any other", () => {
  const q = newQuestion("direction", declared);
  assert.equal(shows(q, "col", declared), false);
  q.quantity = "weight";
  settle(q, declared);
  assert.equal(q.col, 1);
  assert.equal(shows(q, "col", declared), true);
  q.quantity = "max_weight";
  settle(q, declared);
  assert.equal("col" in q, false);
});

test("a menu shows only for the keys its kind reads", () => {
  const click = newQuestion("click_cell", declared);
  assert.deepEqual(
    ["stage", "which", "row", "col", "tolerance", "quantity", "change"].filter((k) =>
      shows(click, k, declared),
    ),
    ["stage", "which", "row"],
  );
  assert.equal(shows({ kind: "nonesuch" }, "row", declared), false);
});
