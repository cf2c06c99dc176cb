// lessons/player_core.js and draft_core.js: the comparisons the player makes with the
// server's `accept` (no maths), the progress event's detail, the summary, the stored
// record, and the editor's draft (steps added, moved, removed; the l= link round trip).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  accepted,
  linkedStep,
  parseRecord,
  progressDetail,
  progressText,
  readNumber,
  recordKey,
  responseText,
  summary,
  withStep,
} from "../../static/js/lessons/player_core.js";
import {
  addStep,
  changeQuery,
  decodeParam,
  emptyDraft,
  keepKeys,
  labStep,
  lessonParam,
  mainStep,
  MAX_STEPS,
  moveStep,
  readDraft,
  removeStep,
} from "../../static/js/lessons/draft_core.js";

const CHOICES = [
  { id: "k1", label: "I (row 1)" },
  { id: "k2", label: "love (row 2)" },
  { id: "k3", label: "LLMs (row 3)" },
];
const ANSWERS = [
  null,
  { kind: "attends_most", answer: "love (row 2)", accept: { choice: "k2" }, choices: CHOICES },
  { kind: "order", answer: "…", accept: { sequence: ["k2", "k3", "k1"] }, choices: CHOICES },
  { kind: "cell_value", answer: "0.67", accept: { min: 0.665, max: 0.675 } },
  {
    kind: "click_cell",
    answer: "…",
    accept: {
      cells: [
        [2, 2],
        [2, 3],
      ],
    },
  },
];
const LESSON = {
  id: "demo",
  steps: ["Intro", "Most", "Order", "Value", "Click"].map((title, i) => ({
    title,
    question: i ? { prompt: `Q${i}` } : undefined,
  })),
};

test("accepted compares with the server's accept and does no maths", () => {
  const cases = [
    [ANSWERS[1].accept, "k2", true],
    [ANSWERS[1].accept, "k1", false],
    [ANSWERS[2].accept, ["k2", "k3", "k1"], true],
    [ANSWERS[2].accept, ["k2", "k1", "k3"], false],
    [ANSWERS[2].accept, ["k2", "k3"], false],
    [ANSWERS[3].accept, 0.67, true],
    [ANSWERS[3].accept, 0.665, true],
    [ANSWERS[3].accept, 0.676, false],
    [ANSWERS[3].accept, "0.67", false],
    [ANSWERS[4].accept, [2, 3], true],
    [ANSWERS[4].accept, [3, 2], false],
    [ANSWERS[1].accept, null, false],
    [null, "k2", false],
    [{ other: 1 }, "k2", false],
  ];
  for (const [accept, response, expected] of cases) {
    assert.equal(accepted(accept, response), expected, JSON.stringify([accept, response]));
  }
});

test("responses read as the learner chose them", () => {
  assert.equal(responseText(ANSWERS[1], "k2"), "love (row 2)");
  assert.equal(responseText(ANSWERS[2], ["k2", "k1"]), "love (row 2), then I (row 1)");
  assert.equal(responseText(ANSWERS[3], -0.5), "−0.5");
  assert.equal(responseText(ANSWERS[4], [2, 3]), "row 2, column 3");
  assert.equal(
    responseText(ANSWERS[4], [2, 3], (r, c) => `cell ${r}/${c}`),
    "cell 2/3",
  );
  assert.equal(responseText(ANSWERS[1], null), "");
  assert.equal(responseText(ANSWERS[1], "k9"), "k9");
});

test("readNumber takes decimals, a true minus and exponents, nothing else", () => {
  assert.equal(readNumber("0.67"), 0.67);
  assert.equal(readNumber(" −1.5 "), -1.5);
  assert.equal(readNumber("2e-3"), 0.002);
  for (const bad of ["", "abc", "1,5", "0x10", "Infinity", null])
    assert.equal(readNumber(bad), null);
});

test("progress detail, text and summary follow the record", () => {
  const record = { 1: "k2", 3: 0.9 };
  const detail = progressDetail({ lessonId: "demo", step: 3, answers: ANSWERS, record });
  assert.deepEqual(detail, {
    lesson: "demo",
    step: 3,
    steps: 5,
    questions: 4,
    answered: 2,
    correct: 1,
    done: false,
  });
  assert.equal(progressText(detail), "Step 4 of 5 · 2 of 4 questions answered, 1 right");
  assert.equal(progressText({ ...detail, questions: 0 }), "Step 4 of 5");
  const all = { 1: "k2", 2: ["k2", "k3", "k1"], 3: 0.9, 4: [2, 2] };
  const last = progressDetail({ lessonId: null, step: 4, answers: ANSWERS, record: all });
  assert.equal(last.done, true);
  assert.equal(last.correct, 3);
  assert.equal(last.lesson, null);
  const result = summary(LESSON, ANSWERS, record);
  assert.equal(result.questions, 4);
  assert.equal(result.correct, 1);
  assert.deepEqual(
    result.missed.map((m) => [m.step, m.title, m.answered]),
    [
      [2, "Order", false],
      [3, "Value", true],
      [4, "Click", false],
    ],
  );
});

test("the stored record survives only in its own shape", () => {
  assert.equal(recordKey(LESSON), "attention-lesson:demo");
  const local = recordKey({ steps: [{ title: "a" }] });
  assert.match(local, /^attention-lesson:local-[0-9a-z]+$/);
  assert.notEqual(local, recordKey({ steps: [{ title: "b" }] }));
  assert.deepEqual(parseRecord('{"at": 2, "responses": {"1": "k2", "9": "x"}}', 5), {
    at: 2,
    responses: { 1: "k2" },
  });
  assert.deepEqual(parseRecord('{"at": 7, "responses": {}}', 5), { at: 0, responses: {} });
  for (const bad of [null, "", "[]", "{", '{"responses": 3}']) {
    assert.deepEqual(parseRecord(bad, 5), { at: 0, responses: {} });
  }
});

test("the draft: steps from figures and labs, moved, removed, capped", () => {
  const step = mainStep(6, "Weights", "?preset=i-love-llms&focus=2&junk=1");
  assert.deepEqual(step.state, { page: "main", query: "preset=i-love-llms&focus=2", figures: [6] });
  assert.equal(step.title, "Figure 6: Weights");
  const lab = labStep("C", "c1", "C1: Scaling", "?dk=64&other=1&theme=dark", ["dk", "preset", "s"]);
  assert.deepEqual(lab.state, { page: "lab", lab: "C", section: "c1", query: "dk=64" });
  let draft = addStep(addStep(emptyDraft(), step), lab);
  assert.deepEqual(
    moveStep(draft, 1, -1).steps.map((s) => s.state.page),
    ["lab", "main"],
  );
  assert.equal(moveStep(draft, 0, -1), draft);
  assert.equal(removeStep(draft, 0).steps[0], lab);
  for (let i = 2; i < MAX_STEPS; i++) draft = addStep(draft, step);
  assert.throws(() => addStep(draft, step), /at most 40 steps/);
  assert.deepEqual(readDraft("garbage"), emptyDraft());
  assert.equal(readDraft(JSON.stringify(draft)).steps.length, MAX_STEPS);
  assert.equal(keepKeys("a=1&b=2", ["b"]), "b=2");
});

test("a step added on a real model's head keeps the model, text, layer, head and view", () => {
  const page = "?model=tiny-decoder&text=kqzfmbwd+kqzfmbwd&layer=2&head=3&focus=13&junk=1";
  const step = mainStep(6, "Weights", page);
  assert.deepEqual(step.state, {
    page: "main",
    query: "model=tiny-decoder&text=kqzfmbwd+kqzfmbwd&layer=2&head=3&focus=13",
    figures: [6],
  });
  // Once edited, the page's state is an s= body again, and the step keeps that.
  assert.equal(mainStep(6, "W", "?s=abc&head=2&text=x").state.query, "s=abc&head=2");
});

test("l= round-trips a lesson with text outside ASCII; a change query toggles the body", () => {
  const lesson = { version: 1, title: "Why √d_k — «scale»", steps: [] };
  const text = lessonParam(lesson);
  assert.match(text, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(JSON.parse(Buffer.from(text, "base64url").toString("utf8")), lesson);
  assert.deepEqual(decodeParam(text), lesson);
  assert.equal(decodeParam("%%%"), null);
  const body = { tokens: ["a"], scale: true, mask: "none" };
  const query = changeQuery("preset=x&focus=2", body, "scale");
  const params = new URLSearchParams(query);
  assert.equal(params.get("focus"), "2");
  assert.equal(params.get("preset"), null);
  assert.equal(decodeParam(params.get("s")).scale, false);
  const masked = decodeParam(new URLSearchParams(changeQuery("", body, "mask")).get("s"));
  assert.equal(masked.mask, "causal");
  // A real model's head keeps its link and names the switch (no s= of its whole state).
  const head = "model=tiny-decoder&text=abab&layer=2&head=2&focus=3";
  const causal = { tokens: ["[BOS]", "a"], scale: true, mask: "causal" };
  assert.equal(changeQuery(head, causal, "scale"), `${head}&scale=0`);
  assert.equal(changeQuery(head, causal, "mask"), `${head}&mask=none`);
  assert.equal(changeQuery(`${head}&s=x`, causal, "mask"), `${head}&mask=none`);
});

test("linkedStep reads step=N, from 1, only for a step the lesson has", () => {
  assert.equal(linkedStep("?step=6", 8), 5);
  assert.equal(linkedStep("?l=abc&step=1&mode=present", 8), 0);
  assert.equal(linkedStep("?step=8", 8), 7);
  assert.equal(linkedStep("", 8), null);
  for (const bad of ["9", "0", "-1", "2.5", "abc", "", "1e1", "06", "99999", "%31"])
    assert.equal(linkedStep(`?step=${bad}`, 8), bad === "%31" ? 0 : null, bad);
});

test("withStep sets, replaces or removes step=, keeping the rest as written", () => {
  const base = "https://lab.example.edu/lessons/why-scale";
  assert.equal(withStep(base, 5), `${base}?step=6`);
  assert.equal(withStep(`${base}#player`, 0), `${base}?step=1#player`);
  assert.equal(withStep(`${base}?step=2&mode=present#x`, 3), `${base}?mode=present&step=4#x`);
  assert.equal(withStep(`${base}?step=2`, null), base);
  assert.equal(withStep(`${base}?mode=present&step=2#x`, null), `${base}?mode=present#x`);
  // An l= link is kept byte for byte (base64url, never re-encoded); "steps=" is not step=.
  const link = "/embed/lesson?l=eyJ2ZXJzaW9uIjox_-A&steps=2";
  assert.equal(withStep(link, 1), `${link}&step=2`);
});
