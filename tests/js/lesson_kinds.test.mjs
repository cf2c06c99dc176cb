// lessons/draft_core.js reads the question kinds as the server declares them
// (app/lessons/kinds.py; the fixture is that declaration, checked against it by
// tests/unit/test_lesson_kinds.py): a new question's values, which menus show, and the
// key asked for only when another has one value (direction's column, one weight only).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import {
  newQuestion,
  PROMPTS,
  setChoice,
  settle,
  shows,
} from "../../static/js/lessons/draft_core.js";

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

test("a teacher's own question starts with two choices of its own copy", () => {
  const q = newQuestion("multiple_choice", declared);
  assert.deepEqual(q, { kind: "multiple_choice", prompt: "", choices: ["Yes", "No"], right: 1 });
  setChoice(q, 0, "Sure", declared.choices.least);
  assert.deepEqual(declared.kinds.multiple_choice.starts.choices, ["Yes", "No"]);
  assert.deepEqual(newQuestion("multiple_choice", declared).choices, ["Yes", "No"]);
  assert.deepEqual(declared.kinds.multiple_choice.states, ["main", "lab"]);
  assert.deepEqual(declared.kinds.attends_most.states, ["main"]);
  assert.deepEqual(
    ["choices", "right", "why", "row", "stage"].filter((k) => shows(q, k, declared)),
    ["choices", "right", "why"],
  );
});

test("the choices are the boxes filled in; a gap between two is kept for the check", () => {
  const least = declared.choices.least;
  const q = { kind: "multiple_choice", choices: ["Yes", "No"] };
  setChoice(q, 3, "Maybe", least);
  assert.deepEqual(q.choices, ["Yes", "No", "", "Maybe"]);
  setChoice(q, 3, "", least);
  assert.deepEqual(q.choices, ["Yes", "No"]);
  setChoice(q, 1, "", least);
  assert.deepEqual(q.choices, ["Yes", ""]); // never fewer than a question needs
});
