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
  return { send, hide: () => win.dispatchEvent(new Event("pagehide")) };
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
  assert.match(log.set["cmi.core.session_time"], /^\d{2,4}:\d{2}:\d{2}$/);
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
  assert.match(log.set["cmi.session_time"], /^PT\d+H\d+M\d+S$/);
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
