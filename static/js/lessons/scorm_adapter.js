/**
 * scorm_adapter.js — the SCORM side of an exported lesson (app/export/scorm.py inlines this
 * plain script into the package's one SCO). It owns talking to the LMS, and nothing else:
 * the lesson player knows nothing of SCORM, it only announces its progress on `window`:
 *
 *   "attention-lesson:progress"  {detail: {lesson, step, steps, questions, answered,
 *                                          correct, done}}
 *
 * The adapter finds the LMS's API the standard way (the window's parents, then the
 * opener's, for `API_1484_11` (SCORM 2004) or `API` (SCORM 1.2), the package's own version
 * first), initialises it, and after every progress event writes the status and the score
 * and commits:
 *   SCORM 1.2   cmi.core.lesson_status incomplete | completed | passed | failed (against the
 *               mastery score: the LMS's cmi.student_data.mastery_score, else the package's),
 *               cmi.core.score.raw/min/max;
 *   SCORM 2004  cmi.completion_status, cmi.success_status (against cmi.scaled_passing_score,
 *               else the package's), cmi.score.raw/min/max/scaled, cmi.progress_measure.
 * On `pagehide` it writes the session time and exit, commits and finishes. With no LMS
 * (the page opened from a file or a web server) it does nothing at all.
 *
 * Configuration: the <script> element's data-scorm-version ("1.2" | "2004") and
 * data-mastery-score (0..100). The score is the share of questions answered right, in
 * percent; a lesson with no question reports completion only.
 */
(function scormAdapter() {
  "use strict";

  const DIALECTS = {
    1.2: {
      api: "API",
      init: "LMSInitialize",
      get: "LMSGetValue",
      set: "LMSSetValue",
      commit: "LMSCommit",
      finish: "LMSFinish",
    },
    2004: {
      api: "API_1484_11",
      init: "Initialize",
      get: "GetValue",
      set: "SetValue",
      commit: "Commit",
      finish: "Terminate",
    },
  };
  // The ADL search gives up after this many parents (a runaway frame chain).
  const MAX_PARENTS = 500;
  const DONE_12 = ["completed", "passed", "failed"];

  const script = document.currentScript;
  const wanted = script?.dataset.scormVersion === "2004" ? "2004" : "1.2";
  const packageMastery = Number(script?.dataset.masteryScore ?? 80);

  /** The object called `name` on `win` or one of its parents, or null (another origin's
   * window throws on access: the search ends there). */
  function scan(win, name) {
    let current = win;
    for (let hops = 0; current && hops <= MAX_PARENTS; hops += 1) {
      try {
        if (current[name]) return current[name];
        if (current.parent === current) return null;
        current = current.parent;
      } catch {
        return null;
      }
    }
    return null;
  }

  function opener() {
    try {
      return window.opener ?? null;
    } catch {
      return null;
    }
  }

  /** The LMS's API and its dialect: the package's version first, then the other. */
  function findApi() {
    const order = wanted === "2004" ? ["2004", "1.2"] : ["1.2", "2004"];
    for (const version of order) {
      const name = DIALECTS[version].api;
      const api = scan(window, name) ?? (opener() ? scan(opener(), name) : null);
      if (api) return { api, version, calls: DIALECTS[version] };
    }
    return null;
  }

  const lms = findApi();
  if (!lms) return; // no LMS: the lesson works as a plain page

  /** One API call; an LMS that throws is treated as one that answered "false". */
  function call(method, ...args) {
    try {
      return String(lms.api[lms.calls[method]](...args));
    } catch {
      return "false";
    }
  }

  if (call("init", "") !== "true") return;
  const started = Date.now();
  let finished = false;
  let complete = false; // latched: a learner going back a step does not undo completion

  /** The pass mark in percent: the LMS's (set from the manifest or by the teacher), else
   * the package's. */
  function mastery() {
    if (lms.version === "1.2") {
      const given = call("get", "cmi.student_data.mastery_score");
      return given !== "" && Number.isFinite(Number(given)) ? Number(given) : packageMastery;
    }
    const scaled = call("get", "cmi.scaled_passing_score");
    return scaled !== "" && Number.isFinite(Number(scaled)) ? Number(scaled) * 100 : packageMastery;
  }
  const passMark = mastery();

  const prior =
    lms.version === "1.2"
      ? call("get", "cmi.core.lesson_status")
      : call("get", "cmi.completion_status");
  const wasComplete = lms.version === "1.2" ? DONE_12.includes(prior) : prior === "completed";

  /** [element, value] pairs for a progress report (SCORM's data model, as strings). */
  function report(progress) {
    const questions = Number(progress.questions) || 0;
    const correct = Number(progress.correct) || 0;
    const score = questions > 0 ? Math.round((100 * correct) / questions) : null;
    complete = complete || progress.done === true;
    const passed = score !== null && score >= passMark;
    const pairs = [];
    if (lms.version === "1.2") {
      let status = "incomplete";
      if (complete) status = score === null ? "completed" : passed ? "passed" : "failed";
      if (complete || !wasComplete) pairs.push(["cmi.core.lesson_status", status]);
      if (score !== null)
        pairs.push(
          ["cmi.core.score.min", "0"],
          ["cmi.core.score.max", "100"],
          ["cmi.core.score.raw", String(score)],
        );
      return pairs;
    }
    if (complete || !wasComplete)
      pairs.push(["cmi.completion_status", complete ? "completed" : "incomplete"]);
    const steps = Number(progress.steps) || 1;
    const through = Math.min(1, (Number(progress.step) + 1) / steps);
    pairs.push(["cmi.progress_measure", complete ? "1" : String(Math.round(through * 100) / 100)]);
    if (score !== null) {
      pairs.push(
        ["cmi.score.min", "0"],
        ["cmi.score.max", "100"],
        ["cmi.score.raw", String(score)],
        ["cmi.score.scaled", String(score / 100)],
      );
      if (complete) pairs.push(["cmi.success_status", passed ? "passed" : "failed"]);
    }
    return pairs;
  }

  function write(pairs) {
    for (const [element, value] of pairs) call("set", element, value);
    call("commit", "");
  }

  /** The session's length in the version's format: 1.2 HHHH:MM:SS.SS, 2004 ISO 8601. */
  function sessionTime() {
    const seconds = Math.max(0, Math.round((Date.now() - started) / 1000));
    const h = Math.floor(seconds / 3600);
    const m = Math.floor((seconds % 3600) / 60);
    const s = seconds % 60;
    if (lms.version === "2004") return `PT${h}H${m}M${s}S`;
    const two = (n) => String(n).padStart(2, "0");
    return `${two(h)}:${two(m)}:${two(s)}`;
  }

  function finish() {
    if (finished) return;
    finished = true;
    if (lms.version === "1.2")
      write([
        ["cmi.core.session_time", sessionTime()],
        ["cmi.core.exit", complete ? "" : "suspend"],
      ]);
    else
      write([
        ["cmi.session_time", sessionTime()],
        ["cmi.exit", complete ? "normal" : "suspend"],
      ]);
    call("finish", "");
  }

  if (!wasComplete)
    write([
      lms.version === "1.2"
        ? ["cmi.core.lesson_status", "incomplete"]
        : ["cmi.completion_status", "incomplete"],
    ]);

  window.addEventListener("attention-lesson:progress", (event) => {
    if (!finished && event.detail) write(report(event.detail));
  });
  window.addEventListener("pagehide", finish);
})();
