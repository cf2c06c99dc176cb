/**
 * lessons/player.js — the lesson player: one step at a time (title, text, figures, the
 * question), Check commits a prediction, the reveal says "You predicted … It is …" (a
 * choice quoted: "You chose “…”. The answer is “…”.") with the server's why and the
 * nearest misconception, Previous/Next move, a progress line follows, and the last step
 * ends with the summary. Student mode keeps the record (the
 * step and the responses) in localStorage, or, inside an LMS, where the SCORM adapter's
 * `window.attentionLessonStore` puts it (cmi.suspend_data: never the browser's storage,
 * which learners sharing a computer share); presenter mode hides the answers until the teacher reveals them
 * (R), with → / ← for the steps. After every commit and step change the player
 * dispatches "attention-lesson:progress" on window (SCORM and embeds listen), and after
 * each Check "attention-lesson:answer" (the step, kind, response, whether it is right and
 * the milliseconds since the question was shown: SCORM's interactions). The address names
 * the step shown (`?step=N`, counted from 1; history.replaceState, the fragment kept), and
 * a link that names one opens there, before the record's step (not in an LMS, whose record
 * alone says the step).
 *
 * `startPlayer(root, source)` takes a source: { lesson, lessonId, mode, answers(),
 * step(i) -> Promise of the step's figure data, staticFigure(n), openUrl(i) }. Online it
 * fetches (lessons/source_online.js), offline it reads inlined data (source_offline.js):
 * the player itself never fetches, so the offline document inlines it as it is.
 */

import { part, setRich } from "../dom.js";
import { stageGrids } from "./figures.js";
import {
  accepted,
  linkedStep,
  parseRecord,
  progressDetail,
  progressText,
  readNumber,
  recordKey,
  summary,
  withStep,
} from "./player_core.js";
import { buildQuestion, lock, restore, STAGE_GRIDS } from "./questions.js";
import { missedItems, revealBox } from "./reveal.js";
import { StepViews } from "./views.js";

// The kinds whose figure shows before the answer (see show()).
export const SHOWN_KINDS = ["click_cell", "multiple_choice"];

const browserStore = {
  read(key) {
    try {
      return globalThis.localStorage?.getItem(key) ?? null;
    } catch {
      return null; // storage refused (file:// in some browsers, private windows)
    }
  },
  write(key, value) {
    try {
      globalThis.localStorage?.setItem(key, value);
    } catch {
      /* the record then lives as long as the page */
    }
  },
};

/** Where the record lives: the LMS's, when the SCORM adapter found one, else the browser. */
function recordStore() {
  const lms = globalThis.attentionLessonStore;
  return lms && typeof lms.read === "function" && typeof lms.write === "function"
    ? lms
    : browserStore;
}

function cellNamer(grids) {
  return (row, col, td = null) => {
    const cell = td ?? grids[0]?.querySelector(`td[data-row="${row - 1}"][data-col="${col - 1}"]`);
    const table = cell?.closest("table");
    const rowName = table?.querySelector(`tbody tr:nth-child(${row}) th`)?.textContent?.trim();
    const colName = table?.querySelectorAll("thead th")?.[col - 1]?.textContent?.trim();
    // The order the server's answers use ("row 2 (love), column 1 (I)"), so the
    // prediction and the answer read alike.
    const r = rowName ? `row ${row} (${rowName})` : `row ${row}`;
    const c = colName ? `column ${col} (${colName})` : `column ${col}`;
    return `${r}, ${c}`;
  };
}

export class LessonPlayer {
  constructor(root, source) {
    this.root = root;
    this.source = source;
    this.lesson = source.lesson;
    this.mode = source.mode === "present" ? "present" : "student";
    this.key = recordKey(this.lesson);
    this.store = recordStore();
    const saved = this.mode === "student" ? this.store.read(this.key) : null;
    const record = parseRecord(saved, this.lesson.steps.length);
    this.record = record.responses;
    // A link that names its step (?step=6, also a reload: the address follows the steps)
    // opens there; else the record's step. Inside an LMS the address is the package's, not
    // a link anyone shares: the LMS's record alone says the step.
    this.addressed = this.store === browserStore;
    const linked = this.addressed
      ? linkedStep(globalThis.location?.search ?? "", this.lesson.steps.length)
      : null;
    this.at = linked ?? record.at;
    this.revealed = new Set();
    this.askedAt = 0;
    this.answers = null;
    this.drawing = 0;
    const shelf = part(root, "shelf");
    shelf.inert = true;
    this.views = new StepViews(part(root, "figures"), shelf, source, this.lesson.steps.length);
  }

  async start() {
    this.wire();
    try {
      this.answers = await this.source.answers();
    } catch (error) {
      this.fail(`The answers could not be computed: ${error.message}`);
      this.answers = this.lesson.steps.map(() => null);
    }
    await this.show(this.at);
    this.root.dataset.ready = "true";
  }

  wire() {
    this.root.addEventListener("click", (event) => {
      if (event.target.closest("[data-next]")) this.move(1);
      else if (event.target.closest("[data-prev]")) this.move(-1);
      else if (event.target.closest("[data-reveal-now]")) this.revealNow();
      else if (event.target.closest("[data-restart]")) this.restart();
      else {
        const jump = event.target.closest("[data-goto]");
        if (jump) this.show(Number(jump.dataset.goto));
      }
    });
    if (this.mode === "present") document.addEventListener("keydown", (e) => this.presenterKey(e));
  }

  presenterKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const t = event.target;
    if (t.closest?.("input[type=number], input[type=text], textarea, select, td[data-row]")) return;
    if (t.matches?.("input[type=radio]") && event.key.startsWith("Arrow")) return;
    if (event.key === "ArrowRight" || event.key === "PageDown") this.move(1);
    else if (event.key === "ArrowLeft" || event.key === "PageUp") this.move(-1);
    else if (event.key === "r" || event.key === "R") this.revealNow();
    else return;
    event.preventDefault();
  }

  fail(text) {
    const box = part(this.root, "error");
    box.textContent = text;
    box.hidden = false;
  }

  save() {
    if (this.mode !== "student") return;
    this.store.write(this.key, JSON.stringify({ at: this.at, responses: this.record }));
  }

  emit() {
    const detail = progressDetail({
      lessonId: this.source.lessonId,
      step: this.at,
      answers: this.answers,
      record: this.record,
    });
    part(this.root, "progress").textContent = progressText(detail);
    const bar = part(this.root, "bar");
    bar.max = detail.steps;
    bar.value = this.at + 1;
    window.dispatchEvent(new CustomEvent("attention-lesson:progress", { detail }));
    return detail;
  }

  move(delta) {
    const onSummary = !part(this.root, "summary").hidden;
    if (onSummary) return delta < 0 ? this.show(this.at) : null;
    const next = this.at + delta;
    if (delta > 0 && this.at === this.lesson.steps.length - 1) return this.showSummary();
    if (next < 0 || next >= this.lesson.steps.length) return null;
    return this.show(next);
  }

  restart() {
    this.record = {};
    this.revealed.clear();
    this.save();
    return this.show(0);
  }

  /** Show step `i`: text and question at once, figures when their data is in. */
  async show(i) {
    const started = performance.now();
    const ticket = ++this.drawing;
    this.at = i;
    this.save();
    this.linkStep(i);
    const step = this.lesson.steps[i];
    const view = part(this.root, "step");
    part(this.root, "summary").hidden = true;
    view.hidden = false;
    setRich(part(this.root, "step-title"), step.title);
    setRich(part(this.root, "step-text"), step.text ?? "");
    part(this.root, "step-text").hidden = !step.text;
    this.navState();
    const answer = this.answers[i];
    const figures = part(this.root, "figures");
    const committed = this.record[i] !== undefined || this.revealed.has(i);
    // A computed answer is in the figure, so it waits for the prediction; a click_cell
    // question is asked on the figure, and a teacher's own question may be about it.
    const hideFigure = answer && !SHOWN_KINDS.includes(answer.kind) && !committed;
    // Waiting, not hidden: a projector's wide layout keeps the figures' column (and its
    // width, which views.js draws the charts at) while the answer is hidden.
    figures.toggleAttribute("data-waiting", Boolean(hideFigure));
    figures.toggleAttribute("data-revealed", Boolean(answer && committed));
    part(this.root, "figure-note").hidden = !hideFigure;
    figures.setAttribute("aria-busy", "true");
    part(this.root, "question").replaceChildren();
    part(this.root, "reveal").replaceChildren();
    this.root.dataset.step = String(i);
    delete this.root.dataset.rendered;
    this.emit();
    let box = null;
    try {
      box = await this.views.box(i);
    } catch (error) {
      if (ticket === this.drawing) this.fail(`Step ${i + 1} could not be drawn: ${error.message}`);
    }
    if (ticket !== this.drawing) return;
    if (box) this.views.place(box);
    figures.setAttribute("aria-busy", "false");
    if (answer) this.ask(i, step.question, answer);
    this.openLink(i);
    requestAnimationFrame(() => {
      if (ticket !== this.drawing) return;
      this.root.dataset.rendered = String(i);
      performance.measure("lesson:step", { start: started });
      this.views.ahead(i);
    });
  }

  /** The address names the step shown (`?step=N`, from 1, the fragment kept), so a reload
   * or a copied address reopens it; so do the links marked `data-step-link` (the mode
   * switch, an embed's "Open in Attention Lab"). `history.replaceState`: stepping adds
   * no history entries, Back leaves the lesson. */
  linkStep(i) {
    if (!this.addressed) return;
    try {
      const next = withStep(location.href, i);
      if (next !== location.href) history.replaceState(history.state, "", next);
    } catch {
      /* a document that may not change its address (file:// in some browsers) */
    }
    for (const a of document.querySelectorAll("a[data-step-link]")) a.href = withStep(a.href, i);
  }

  navState() {
    const last = this.at === this.lesson.steps.length - 1;
    this.root.querySelector("[data-prev]").disabled = this.at === 0;
    const next = this.root.querySelector("[data-next]");
    next.disabled = false;
    next.textContent = last ? "Finish" : "Next";
  }

  openLink(i) {
    const link = part(this.root, "open");
    const url = this.source.openUrl?.(i);
    link.hidden = !url;
    if (!url) return;
    const a = link.querySelector("a");
    a.href = url;
    // Inside an embed (a course page's iframe) the product opens in its own tab, as a
    // figure embed's "Open in Attention Lab" does, not inside the small frame.
    if (window.self !== window.top) {
      a.target = "_blank";
      a.rel = "noopener";
    }
  }

  ask(i, question, answer) {
    const form = part(this.root, "question");
    this.askedAt = performance.now();
    const grids = this.gridsOf(i);
    const name = cellNamer(grids);
    const inner = document.createElement("form");
    inner.className = "lesson-question";
    const read = buildQuestion(inner, question, answer, { grids, cellName: name, readNumber });
    const buttons = document.createElement("div");
    buttons.className = "row-wrap";
    const check = Object.assign(document.createElement("button"), {
      type: "submit",
      className: "button primary",
      textContent: "Check",
    });
    check.dataset.commit = "";
    buttons.append(check);
    if (this.mode === "present") {
      const reveal = Object.assign(document.createElement("button"), {
        type: "button",
        className: "button",
        textContent: "Reveal the answer (R)",
      });
      reveal.dataset.revealNow = "";
      buttons.append(reveal);
    }
    const problem = Object.assign(document.createElement("p"), { className: "field-error" });
    problem.setAttribute("role", "alert");
    inner.append(buttons, problem);
    form.append(inner);
    inner.addEventListener("submit", (event) => {
      event.preventDefault();
      const response = read();
      if (response === null) {
        problem.textContent =
          answer.kind === "multiple_choice"
            ? "Choose your answer first, then Check."
            : "Choose (or type) your prediction first, then Check.";
        return;
      }
      problem.textContent = "";
      this.commit(i, response, inner, name);
    });
    restore(inner, answer, this.record[i]);
    if (this.record[i] !== undefined) this.reveal(i, this.record[i], inner, name);
    else if (this.revealed.has(i)) this.reveal(i, null, inner, name);
  }

  commit(i, response, form, name) {
    this.record[i] = response;
    this.save();
    this.reveal(i, response, form, name);
    // Check is disabled now: the keyboard goes on from the answer (read as a status too).
    part(this.root, "reveal").querySelector("[data-reveal]")?.focus();
    this.emit();
    this.announce(i, response);
  }

  /** "attention-lesson:answer": one checked question, for SCORM's interactions. */
  announce(i, response) {
    const answer = this.answers[i];
    const detail = {
      lesson: this.source.lessonId ?? null,
      step: i,
      kind: answer.kind,
      response,
      correct: accepted(answer.accept, response),
      latency: Math.round(performance.now() - this.askedAt),
      prompt: this.lesson.steps[i].question?.prompt ?? "",
    };
    window.dispatchEvent(new CustomEvent("attention-lesson:answer", { detail }));
  }

  /** The grids of the stage step `i` asks about, in the figures on screen. */
  gridsOf(i) {
    const stage = this.lesson.steps[i].question?.stage;
    return this.views.shown ? stageGrids(this.views.shown, STAGE_GRIDS[stage] ?? []) : [];
  }

  revealNow() {
    const i = this.at;
    const form = part(this.root, "question").querySelector("form");
    if (!this.answers[i] || !form) return;
    this.revealed.add(i);
    this.reveal(i, this.record[i] ?? null, form, cellNamer(this.gridsOf(i)));
  }

  /** The reveal: the figure shows, "You predicted … It is …", the why, the mistake. */
  reveal(i, response, form, name) {
    const answer = this.answers[i];
    lock(form);
    form.querySelector("[data-commit]").disabled = true;
    const figures = part(this.root, "figures");
    figures.toggleAttribute("data-waiting", false);
    figures.toggleAttribute("data-revealed", true); // a direction step's after state shows
    part(this.root, "figure-note").hidden = true;
    for (const [row, col] of answer.accept.cells ?? []) {
      for (const grid of this.gridsOf(i))
        grid
          .querySelector(`td[data-row="${row - 1}"][data-col="${col - 1}"]`)
          ?.classList.add("lesson-answer");
    }
    const box = revealBox(answer, response, name);
    part(this.root, "reveal").replaceChildren(box);
    // A projector shows the answer in view: on a wide screen (the step laid out in two
    // columns) the whole step from its top, the figure beside the answer; in one column
    // the answer at the top, its figure following.
    if (this.mode === "present") {
      const step = part(this.root, "step");
      const beside = getComputedStyle(step).display === "grid";
      (beside ? step : box).scrollIntoView({ block: "start" });
      // A long answer would end under the sticky Previous / Next bar: lift it above.
      const under =
        box.getBoundingClientRect().bottom -
        this.root.querySelector(".lesson-nav").getBoundingClientRect().top;
      if (beside && under > 0) window.scrollBy(0, under + 8);
    }
  }

  showSummary() {
    this.drawing++;
    const result = summary(this.lesson, this.answers, this.record);
    const box = part(this.root, "summary");
    part(this.root, "step").hidden = true;
    box.hidden = false;
    const score = part(box, "score");
    score.textContent = result.questions
      ? `You answered ${result.correct} of ${result.questions} questions right.`
      : "This lesson has no questions.";
    const list = part(box, "missed");
    list.replaceChildren(...missedItems(result.missed));
    part(box, "missed-head").hidden = result.missed.length === 0;
    this.root.querySelector("[data-next]").disabled = true;
    this.root.querySelector("[data-prev]").disabled = false;
    this.at = this.lesson.steps.length - 1;
    this.emit();
    box.focus();
  }
}

/** Start a player on `root` with `source`; resolves once the first step is drawn. */
export function startPlayer(root, source) {
  const player = new LessonPlayer(root, source);
  return player.start().then(() => player);
}
