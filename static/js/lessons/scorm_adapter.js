/**
 * scorm_adapter.js — the SCORM side of an exported lesson (app/export/scorm.py inlines this
 * plain script into the package's one SCO). It owns talking to the LMS, and nothing else:
 * the lesson player knows nothing of SCORM. It listens to what the player announces on
 * `window`, and hands the player the place its record lives:
 *
 *   "attention-lesson:progress"  {detail: {lesson, step, steps, questions, answered,
 *                                          correct, done}}
 *   "attention-lesson:answer"    {detail: {lesson, step, kind, response, correct,
 *                                          latency (ms), prompt}}
 *   window.attentionLessonStore  {read(key) -> text | null, write(key, text)}: set here
 *                                when an LMS is there, read by lessons/player.js instead of
 *                                the browser's localStorage.
 *
 * The adapter finds the LMS's API the standard way (the window's parents, then the
 * opener's, for `API_1484_11` (SCORM 2004) or `API` (SCORM 1.2), the package's own version
 * first). With an LMS the LMS is the only store: the player's record (its step and the
 * responses) goes to cmi.suspend_data (within 4,096 characters in 1.2, 64,000 in 2004);
 * it comes back when the entry (cmi.core.entry / cmi.entry) is not "ab-initio", and a new
 * attempt ("ab-initio") starts clean; the browser's storage is never read or written, so
 * learners sharing a browser never see each other's answers. After every progress event
 * it writes the status and the score of this attempt and commits:
 *   SCORM 1.2   cmi.core.lesson_status incomplete | completed | passed | failed (against the
 *               mastery score: the LMS's cmi.student_data.mastery_score, else the package's),
 *               cmi.core.score.raw/min/max;
 *   SCORM 2004  cmi.completion_status, cmi.success_status (against cmi.scaled_passing_score,
 *               else the package's), cmi.score.raw/min/max/scaled, cmi.progress_measure.
 * Every checked question becomes one cmi.interactions.n entry (id "step-N", type, the
 * learner's response, result, latency, time; 2004 also the prompt as description).
 * On `pagehide` it writes the session time and exit ("suspend" while unfinished, "" or
 * "normal" when done), commits and finishes. With no LMS it does nothing at all.
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
      entry: "cmi.core.entry",
      status: "cmi.core.lesson_status",
      suspendMax: 4096,
    },
    2004: {
      api: "API_1484_11",
      init: "Initialize",
      get: "GetValue",
      set: "SetValue",
      commit: "Commit",
      finish: "Terminate",
      entry: "cmi.entry",
      status: "cmi.completion_status",
      suspendMax: 64000,
    },
  };
  // The ADL search gives up after this many parents (a runaway frame chain).
  const MAX_PARENTS = 500;
  const DONE_12 = ["completed", "passed", "failed"];
  // Each lesson question kind as a SCORM interaction type (the same words in 1.2 and 2004).
  const TYPES = {
    attends_most: "choice",
    direction: "choice",
    click_cell: "choice",
    multiple_choice: "choice",
    section_question: "choice",
    order: "sequencing",
    cell_value: "numeric",
  };

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
  if (!lms) return; // no LMS: the lesson works as a plain page, its record in the browser
  const v12 = lms.version === "1.2";

  /** One API call; an LMS that throws is treated as one that answered "false". */
  function call(method, ...args) {
    try {
      return String(lms.api[lms.calls[method]](...args));
    } catch {
      return "false";
    }
  }

  // From here on the LMS is the record's only home. Until the LMS answers (or if it never
  // does) the record lives as long as the page: never in the browser's shared storage.
  let suspended = null;
  let live = false;
  window.attentionLessonStore = {
    read: () => suspended,
    write(_key, text) {
      suspended = fitted(String(text));
      if (live) call("set", "cmi.suspend_data", suspended);
    },
  };

  /** The record within the version's suspend_data limit: the latest responses are
   * dropped first should a long lesson ever pass it (40 steps fit in either). */
  function fitted(text) {
    if (text.length <= lms.calls.suspendMax) return text;
    try {
      const record = JSON.parse(text);
      const keys = Object.keys(record.responses ?? {}).sort((a, b) => Number(b) - Number(a));
      let out = text;
      for (const key of keys) {
        delete record.responses[key];
        out = JSON.stringify(record);
        if (out.length <= lms.calls.suspendMax) return out;
      }
      return out.length <= lms.calls.suspendMax ? out : "";
    } catch {
      return "";
    }
  }

  if (call("init", "") !== "true") return;
  live = true;
  const started = Date.now();
  let finished = false;
  let complete = false; // latched: a learner going back a step does not undo completion

  // "ab-initio": a new attempt, nothing of an earlier one is shown or counted. "resume"
  // (and "", a later session of the same attempt): this learner's record, from the LMS.
  const entry = call("get", lms.calls.entry);
  const fresh = entry === "ab-initio";
  if (!fresh) {
    const saved = call("get", "cmi.suspend_data");
    suspended = saved && saved !== "false" ? saved : null;
  }

  /** The pass mark in percent: the LMS's (set from the manifest or by the teacher), else
   * the package's. */
  function mastery() {
    if (v12) {
      const given = call("get", "cmi.student_data.mastery_score");
      return given !== "" && Number.isFinite(Number(given)) ? Number(given) : packageMastery;
    }
    const scaled = call("get", "cmi.scaled_passing_score");
    return scaled !== "" && Number.isFinite(Number(scaled)) ? Number(scaled) * 100 : packageMastery;
  }
  const passMark = mastery();

  // A completion this attempt already reached (an earlier session of it) is not undone;
  // a new attempt has none.
  const prior = fresh ? "" : call("get", lms.calls.status);
  const wasComplete = v12 ? DONE_12.includes(prior) : prior === "completed";

  /** [element, value] pairs for a progress report (SCORM's data model, as strings). */
  function report(progress) {
    const questions = Number(progress.questions) || 0;
    const correct = Number(progress.correct) || 0;
    const score = questions > 0 ? Math.round((100 * correct) / questions) : null;
    complete = complete || progress.done === true;
    const passed = score !== null && score >= passMark;
    const pairs = [];
    if (v12) {
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

  /** A length of time in the version's format: 1.2 HHHH:MM:SS.SS, 2004 ISO 8601. */
  function span(milliseconds) {
    const hundredths = Math.max(0, Math.round(milliseconds / 10));
    const h = Math.floor(hundredths / 360000);
    const m = Math.floor((hundredths % 360000) / 6000);
    const s = (hundredths % 6000) / 100;
    if (!v12) return `PT${h}H${m}M${s.toFixed(2)}S`;
    const two = (n) => String(n).padStart(2, "0");
    return `${String(h).padStart(4, "0")}:${two(m)}:${s.toFixed(2).padStart(5, "0")}`;
  }

  /** A number as a SCORM decimal (no exponent, at most 10 places). */
  function decimal(x) {
    const n = Number(x);
    if (!Number.isFinite(n)) return "0";
    return n.toFixed(10).replace(/\.?0+$/, "") || "0";
  }

  /** The learner's response in the interaction type's format. */
  function responseText(kind, response) {
    const sep = v12 ? "," : "[,]";
    if (kind === "cell_value") return decimal(response);
    if (kind === "order") return (Array.isArray(response) ? response : []).map(String).join(sep);
    if (kind === "click_cell" && Array.isArray(response))
      return `row-${response[0]}-column-${response[1]}`;
    return String(response);
  }

  /** [element, value] pairs of one checked question, appended as interaction n. */
  function interaction(answer) {
    const count = Number(call("get", "cmi.interactions._count"));
    const n = Number.isInteger(count) && count >= 0 ? count : 0;
    const at = `cmi.interactions.${n}.`;
    const kind = String(answer.kind);
    const when = new Date();
    const pairs = [
      [`${at}id`, `step-${Number(answer.step) + 1}`],
      [`${at}type`, TYPES[kind] ?? (v12 ? "performance" : "other")],
    ];
    if (v12)
      pairs.push(
        [`${at}student_response`, responseText(kind, answer.response)],
        [`${at}result`, answer.correct ? "correct" : "wrong"],
        [`${at}latency`, span(Number(answer.latency) || 0)],
        [`${at}time`, when.toTimeString().slice(0, 8)],
      );
    else
      pairs.push(
        [`${at}learner_response`, responseText(kind, answer.response)],
        [`${at}result`, answer.correct ? "correct" : "incorrect"],
        [`${at}latency`, span(Number(answer.latency) || 0)],
        [`${at}timestamp`, when.toISOString().slice(0, 19)],
        [`${at}description`, String(answer.prompt ?? "").slice(0, 250)],
      );
    return pairs;
  }

  function finish() {
    if (finished) return;
    finished = true;
    const time = span(Date.now() - started);
    if (v12)
      write([
        ["cmi.core.session_time", time],
        ["cmi.core.exit", complete ? "" : "suspend"],
      ]);
    else
      write([
        ["cmi.session_time", time],
        ["cmi.exit", complete ? "normal" : "suspend"],
      ]);
    call("finish", "");
  }

  if (!wasComplete) write([[lms.calls.status, "incomplete"]]);

  window.addEventListener("attention-lesson:progress", (event) => {
    if (!finished && event.detail) write(report(event.detail));
  });
  window.addEventListener("attention-lesson:answer", (event) => {
    if (!finished && event.detail) write(interaction(event.detail));
  });
  window.addEventListener("pagehide", finish);
})();
