// scorm_adapter.js against scorm-again (the LMS's side of SCORM 1.2 and 2004, a pinned dev
// dependency): the plain script runs in a fresh context whose `window` sits in a chain of
// frames, as an exported SCO does inside an LMS. The progress events are the lesson
// player's contract ("attention-lesson:progress"). tests/browser/test_lesson_scorm.py runs
// the real exported package in Chromium; these check every branch quickly.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

import { Scorm12API } from "scorm-again/scorm12";
import { Scorm2004API } from "scorm-again/scorm2004";

const SOURCE = readFileSync(new URL("../../static/js/lessons/scorm_adapter.js", import.meta.url), {
  encoding: "utf8",
});

/** A frame: an EventTarget with `parent` (itself at the top) and optional `opener`. */
function frame(parent = null, extra = {}) {
  const win = new EventTarget();
  win.parent = parent ?? win;
  win.opener = null;
  return Object.assign(win, extra);
}

/** Run the adapter as the script of `win`, with the <script>'s data attributes. */
function load(win, dataset = { scormVersion: "1.2", masteryScore: "80" }) {
  const context = { window: win, document: { currentScript: { dataset } } };
  vm.runInNewContext(SOURCE, context);
  const send = (detail) =>
    win.dispatchEvent(new CustomEvent("attention-lesson:progress", { detail }));
  const answer = (detail) =>
    win.dispatchEvent(new CustomEvent("attention-lesson:answer", { detail }));
  return { send, answer, hide: () => win.dispatchEvent(new Event("pagehide")) };
}

/** What the SCO wrote, element by element (exit and session_time are write-only), and
 * how often it committed. */
function recorder(api) {
  const log = { set: {}, commits: 0 };
  const prefix = api instanceof Scorm12API ? "LMS" : "";
  api.on(`${prefix}SetValue.cmi.*`, (element, value) => {
    log.set[element] = value;
  });
  api.on(`${prefix}Commit`, () => {
    log.commits += 1;
  });
  return log;
}

const progress = (over) => ({
  lesson: "why-scale",
  step: 0,
  steps: 4,
  questions: 3,
  answered: 0,
  correct: 0,
  done: false,
  ...over,
});

test("SCORM 1.2: found two frames up; incomplete, then failed below the mastery score", () => {
  const api = new Scorm12API({ logLevel: 5 });
  const log = recorder(api);
  const lmsWindow = frame(null, { API: api });
  const { send, hide } = load(frame(frame(lmsWindow)));
  assert.equal(api.cmi.core.lesson_status, "incomplete");
  assert.equal(log.commits, 1);
  send(progress({ step: 1, answered: 1, correct: 1 }));
  assert.equal(api.cmi.core.lesson_status, "incomplete");
  assert.equal(api.cmi.core.score.raw, "33");
  send(progress({ step: 3, answered: 3, correct: 2, done: true }));
  assert.equal(api.cmi.core.lesson_status, "failed"); // 67 < 80
  assert.equal(api.cmi.core.score.raw, "67");
  assert.equal(api.cmi.core.score.min, "0");
  assert.equal(api.cmi.core.score.max, "100");
  send(progress({ step: 2, answered: 3, correct: 2, done: false })); // back a step
  assert.equal(api.cmi.core.lesson_status, "failed");
  assert.equal(log.commits, 4); // one per report
  hide();
  assert.equal(log.set["cmi.core.exit"], "");
  assert.match(log.set["cmi.core.session_time"], /^\d{4}:\d{2}:\d{2}\.\d{2}$/);
  assert.equal(api.isTerminated(), true);
  hide(); // a second pagehide finishes nothing more
});

test("SCORM 1.2: passed at the mastery score; the LMS's mastery score wins", () => {
  const api = new Scorm12API({ logLevel: 5 });
  api.loadFromJSON({ student_data: { mastery_score: "60" } });
  const { send, hide } = load(frame(frame(null, { API: api })));
  send(progress({ step: 3, answered: 3, correct: 2, done: true })); // 67 >= 60
  assert.equal(api.cmi.core.lesson_status, "passed");
  hide();
});

test("SCORM 1.2: a lesson without questions is completed, with no score", () => {
  const api = new Scorm12API({ logLevel: 5 });
  const log = recorder(api);
  const { send, hide } = load(frame(frame(null, { API: api })));
  send(progress({ step: 1, steps: 2, questions: 0, done: true }));
  assert.equal(api.cmi.core.lesson_status, "completed");
  assert.equal(api.cmi.core.score.raw, "");
  hide();
  assert.equal(log.set["cmi.core.exit"], "");
});

test("SCORM 1.2: an earlier pass is not set back to incomplete; leaving early suspends", () => {
  const api = new Scorm12API({ logLevel: 5 });
  api.loadFromJSON({ core: { lesson_status: "passed" } });
  const log = recorder(api);
  const { send, hide } = load(frame(frame(null, { API: api })));
  send(progress({ step: 1, answered: 1, correct: 1 }));
  assert.equal(api.cmi.core.lesson_status, "passed");
  hide();
  assert.equal(log.set["cmi.core.exit"], "suspend");
});

test("SCORM 2004: found through the opener; completion, success, scaled score", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  const log = recorder(api);
  const lms = frame(null, { API_1484_11: api });
  const popup = frame(null, { opener: frame(lms) });
  const { send, hide } = load(popup, { scormVersion: "2004", masteryScore: "80" });
  assert.equal(api.cmi.completion_status, "incomplete");
  send(progress({ step: 1, answered: 1, correct: 1 }));
  assert.equal(api.cmi.progress_measure, "0.5");
  assert.equal(api.cmi.success_status, "unknown");
  send(progress({ step: 3, answered: 3, correct: 3, done: true }));
  assert.equal(api.cmi.completion_status, "completed");
  assert.equal(api.cmi.success_status, "passed");
  assert.equal(api.cmi.score.raw, "100");
  assert.equal(api.cmi.score.scaled, "1");
  assert.equal(api.cmi.progress_measure, "1");
  hide();
  assert.equal(log.set["cmi.exit"], "normal");
  assert.match(log.set["cmi.session_time"], /^PT\d+H\d+M\d+\.\d{2}S$/);
  assert.equal(api.isTerminated(), true);
});

test("SCORM 2004: the LMS's scaled passing score decides; failed below it", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  api.loadFromJSON({ scaled_passing_score: "0.9" });
  const { send } = load(frame(frame(null, { API_1484_11: api })), { scormVersion: "2004" });
  send(progress({ step: 3, answered: 3, correct: 2, done: true }));
  assert.equal(api.cmi.success_status, "failed");
  assert.equal(api.cmi.score.scaled, "0.67");
});

test("a 2004 package in a 1.2-only LMS speaks 1.2", () => {
  const api = new Scorm12API({ logLevel: 5 });
  const { send } = load(frame(frame(null, { API: api })), { scormVersion: "2004" });
  send(progress({ step: 3, answered: 3, correct: 3, done: true }));
  assert.equal(api.cmi.core.lesson_status, "passed");
});

test("no LMS, a parent of another origin, or a refusing LMS: silent and harmless", () => {
  const alone = frame();
  load(alone).send(progress({ done: true }));
  const foreign = new Proxy(frame(), {
    get() {
      throw new Error("SecurityError: cross-origin frame");
    },
  });
  const child = frame(foreign);
  const { send, hide } = load(child);
  send(progress({ done: true }));
  hide();
  const calls = [];
  const refusing = {
    LMSInitialize: () => "false",
    LMSSetValue: (...args) => calls.push(args),
    LMSCommit: () => calls.push("commit"),
  };
  load(frame(frame(null, { API: refusing }))).send(progress({ done: true }));
  assert.deepEqual(calls, []);
  const throwing = {
    LMSInitialize: () => "true",
    LMSGetValue: () => {
      throw new Error("broken LMS");
    },
    LMSSetValue: () => {
      throw new Error("broken LMS");
    },
    LMSCommit: () => "true",
    LMSFinish: () => "true",
  };
  const broken = load(frame(frame(null, { API: throwing })));
  broken.send(progress({ done: true }));
  broken.hide();
});

/** The interactions the LMS holds, as scorm-again serialises them for its server. */
function interactions(api) {
  const data = api.renderCMIToJSONObject();
  return Object.values((data.cmi ?? data).interactions ?? {});
}

const checked = (over) => ({
  lesson: "why-scale",
  step: 1,
  kind: "attends_most",
  response: "k2",
  correct: true,
  latency: 3250,
  prompt: "Which key does I attend to most?",
  ...over,
});

test("SCORM 1.2: the record lives in cmi.suspend_data, and comes back on resume", () => {
  const api = new Scorm12API({ logLevel: 5 });
  const win = frame(frame(null, { API: api }));
  load(win);
  const store = win.attentionLessonStore;
  assert.equal(store.read("attention-lesson:why-scale"), null); // a first launch: clean
  const record = JSON.stringify({ at: 2, responses: { 1: "k2" } });
  store.write("attention-lesson:why-scale", record);
  assert.equal(api.cmi.suspend_data, record);
  const again = new Scorm12API({ logLevel: 5 });
  again.loadFromJSON({ core: { entry: "resume" }, suspend_data: record });
  const next = frame(frame(null, { API: again }));
  load(next);
  assert.equal(next.attentionLessonStore.read("attention-lesson:why-scale"), record);
});

test("ab-initio starts clean: an earlier attempt's record and status are not this one's", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  api.loadFromJSON({
    entry: "ab-initio",
    completion_status: "completed",
    suspend_data: JSON.stringify({ at: 3, responses: { 1: "k2" } }),
  });
  const win = frame(frame(null, { API_1484_11: api }));
  const { send } = load(win, { scormVersion: "2004", masteryScore: "80" });
  assert.equal(win.attentionLessonStore.read("attention-lesson:why-scale"), null);
  assert.equal(api.cmi.completion_status, "incomplete");
  send(progress({ step: 0 }));
  assert.equal(api.cmi.completion_status, "incomplete");
  assert.equal(api.cmi.score.raw, "0");
});

test("the record is kept within SCORM 1.2's 4,096 characters (the latest answers go first)", () => {
  const api = new Scorm12API({ logLevel: 5 });
  const win = frame(frame(null, { API: api }));
  load(win);
  const responses = {};
  for (let i = 0; i < 40; i += 1) responses[i] = Array.from({ length: 30 }, (_, k) => `k${k}`);
  win.attentionLessonStore.write("k", JSON.stringify({ at: 39, responses }));
  const kept = JSON.parse(api.cmi.suspend_data);
  assert.ok(api.cmi.suspend_data.length <= 4096);
  assert.equal(kept.at, 39);
  assert.ok("0" in kept.responses && !("39" in kept.responses));
});

test("an LMS that will not initialise still keeps the record off the browser's storage", () => {
  const refusing = { LMSInitialize: () => "false" };
  const win = frame(frame(null, { API: refusing }));
  load(win);
  win.attentionLessonStore.write("k", "{}");
  assert.equal(win.attentionLessonStore.read("k"), "{}");
});

test("SCORM 1.2: each checked question is one interaction, in 1.2's vocabulary", () => {
  const api = new Scorm12API({ logLevel: 5 });
  const log = recorder(api);
  const { answer } = load(frame(frame(null, { API: api })));
  answer(checked());
  answer(checked({ step: 3, kind: "order", response: ["k3", "k1", "k2"], correct: false }));
  answer(checked({ step: 4, kind: "cell_value", response: -0.125, latency: 61_500 }));
  answer(checked({ step: 5, kind: "click_cell", response: [2, 1], correct: false }));
  answer(checked({ step: 6, kind: "direction", response: "up", latency: 3_725_010 }));
  answer(checked({ step: 7, kind: "multiple_choice", response: "c3", correct: false }));
  const got = interactions(api);
  assert.deepEqual(
    got.map((x) => [x.id, x.type, x.student_response, x.result, x.latency]),
    [
      ["step-2", "choice", "k2", "correct", "00:00:03.25"],
      ["step-4", "sequencing", "k3,k1,k2", "wrong", "00:00:03.25"],
      ["step-5", "numeric", "-0.125", "correct", "00:01:01.5"], // the LMS's own rendering
      ["step-6", "choice", "row-2-column-1", "wrong", "00:00:03.25"],
      ["step-7", "choice", "up", "correct", "01:02:05.01"],
      ["step-8", "choice", "c3", "wrong", "00:00:03.25"], // a teacher's own question
    ],
  );
  for (const x of got) assert.match(x.time, /^\d{2}:\d{2}:\d{2}$/);
  // What the SCO wrote: HHHH:MM:SS.SS, as SCORM 1.2's CMITimespan reads.
  assert.equal(log.set["cmi.interactions.2.latency"], "0000:01:01.50");
  assert.equal(log.set["cmi.interactions.4.latency"], "0001:02:05.01");
});

test("SCORM 2004: each checked question is one interaction, in 2004's vocabulary", () => {
  const api = new Scorm2004API({ logLevel: 5 });
  const { answer } = load(frame(frame(null, { API_1484_11: api })), { scormVersion: "2004" });
  answer(checked());
  answer(checked({ step: 3, kind: "order", response: ["k3", "k1", "k2"], correct: false }));
  answer(checked({ step: 4, kind: "cell_value", response: 1e-7, latency: 61_500 }));
  answer(checked({ step: 5, kind: "multiple_choice", response: "c1" }));
  const got = interactions(api);
  assert.deepEqual(
    got.map((x) => [x.id, x.type, x.learner_response, x.result, x.latency]),
    [
      ["step-2", "choice", "k2", "correct", "PT0H0M3.25S"],
      ["step-4", "sequencing", "k3[,]k1[,]k2", "incorrect", "PT0H0M3.25S"],
      ["step-5", "numeric", "0.0000001", "correct", "PT0H1M1.50S"],
      ["step-6", "choice", "c1", "correct", "PT0H0M3.25S"],
    ],
  );
  assert.equal(got[0].description, "Which key does I attend to most?");
  for (const x of got) assert.match(x.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
});
