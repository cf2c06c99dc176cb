/**
 * lessons/edit.js — the lesson editor (/lessons/edit): the draft that "Add to lesson"
 * collects (localStorage only), its steps reordered with buttons or Alt+↑/↓, their
 * title and text written, a question kind picked with its target from menus fed by the
 * step's state (its tokens, stages, changes), then: preview as a student, the share
 * link (l=), the JSON file to download, a JSON file opened, and a check by the server
 * (POST /api/v1/lessons/answers names any field it refuses). No server storage.
 */

import { getJSON, postJSON, siteUrl } from "../api.js";
import { shortLink } from "../short_links.js";
import { copyText } from "../toolbar.js";
import {
  CHANGES,
  changeQuery,
  decodeParam,
  DRAFT_KEY,
  emptyDraft,
  lessonParam,
  moveStep,
  newQuestion,
  PROMPTS,
  readDraft,
  removeStep,
  setChoice,
  settle,
} from "./draft_core.js";
import { stepFields } from "./edit_step.js";

// The question kinds as the server declares them (app/lessons/kinds.py, editor_kinds()).
const declared = JSON.parse(document.getElementById("lesson-kinds").textContent);
const root = document.getElementById("lesson-editor");
const list = document.getElementById("editor-steps");
const status = document.getElementById("editor-status");
let draft = readDraft(localStorage.getItem(DRAFT_KEY));
const bodies = new Map(); // query -> Promise of the state's body (its tokens feed the menus)

function save() {
  localStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
}

function say(text) {
  status.textContent = text;
}

/** The lesson JSON of the draft: the editor's own notes (keys starting "_") left out. */
export function lessonOf(d) {
  const clean = (obj) =>
    Object.fromEntries(Object.entries(obj).filter(([k]) => !k.startsWith("_")));
  const lesson = { version: 1, title: d.title || "My lesson", steps: d.steps.map(clean) };
  if (d.summary) lesson.summary = d.summary;
  return lesson;
}

/** The body of a main-page step's state: from its s=, a real model's head from the API
 * (layer and head counted from 1 in the link, from 0 in the API), or its preset. */
function bodyOf(query) {
  if (!bodies.has(query)) {
    const params = new URLSearchParams(query);
    const s = params.get("s");
    const model = params.get("model");
    const preset = params.get("preset") || "i-love-llms";
    const head = () =>
      postJSON(siteUrl(`/api/v1/models/${encodeURIComponent(model)}/head`), {
        text: params.get("text") ?? "",
        layer: Number(params.get("layer")) - 1,
        head: Number(params.get("head")) - 1,
      }).then((answer) => answer.body);
    const promise = s
      ? Promise.resolve(decodeParam(s))
      : model
        ? head()
        : getJSON(siteUrl(`/api/v1/presets/${encodeURIComponent(preset)}`)).then((p) => p.body);
    bodies.set(query, promise);
  }
  return bodies.get(query);
}

function render(focusSelector = null) {
  document.getElementById("lesson-title").value = draft.title ?? "";
  document.getElementById("lesson-summary").value = draft.summary ?? "";
  document.getElementById("editor-empty").hidden = draft.steps.length > 0;
  list.replaceChildren(...draft.steps.map((step, i) => stepItem(step, i)));
  updateLinks();
  if (focusSelector) list.querySelector(focusSelector)?.focus();
}

function stepItem(step, i) {
  const item = stepFields(step, i, draft.steps.length, { declared, changes: CHANGES });
  if (step.state.page === "main") {
    bodyOf(step.state.query)
      .then((body) => item.fillTokens(body))
      .catch((error) => item.note(`The state's tokens could not be read: ${error.message}`));
  }
  return item.element;
}

function updateLinks() {
  const has = draft.steps.length > 0;
  const url = has ? `${siteUrl("/lessons/play")}?l=${lessonParam(lessonOf(draft))}` : "#";
  const preview = document.getElementById("editor-preview");
  preview.href = url;
  preview.toggleAttribute("aria-disabled", !has);
  document.getElementById("editor-link").value = has ? new URL(url, window.location.href).href : "";
}

/** Write one field of step `i` from the control that changed. */
async function fieldChanged(target) {
  const item = target.closest("[data-step]");
  if (!item) {
    if (target.id === "lesson-title") draft.title = target.value;
    if (target.id === "lesson-summary") draft.summary = target.value;
    save();
    updateLinks();
    return;
  }
  const i = Number(item.dataset.step);
  const step = draft.steps[i];
  const field = target.dataset.field;
  if (field === "title" || field === "text") step[field] = target.value;
  else if (field === "kind") {
    await setKind(step, target.value);
    save();
    return render(`[data-step="${i}"] [data-field="kind"]`);
  } else if (step.question) {
    if (field === "choice")
      setChoice(step.question, Number(target.dataset.index), target.value, declared.choices.least);
    else await questionField(step, field, target.value);
    if (field === "prompt") step._auto = false;
    else if (step._auto !== false) {
      step.question.prompt = await promptFor(step);
      target.closest("[data-step]").querySelector('[data-field="prompt"]').value =
        step.question.prompt;
    }
    if (field === "quantity") render(`[data-step="${i}"] [data-field="quantity"]`);
  }
  save();
  updateLinks();
}

/** Step `step` asks a question of `kind` ("" for none), with default targets and prompt. */
async function setKind(step, kind) {
  delete step._change;
  delete step._auto;
  if (!kind) {
    delete step.question;
    return;
  }
  step.question = newQuestion(kind, declared);
  if (kind === "direction") await questionField(step, "change", "scale");
  step.question.prompt = await promptFor(step);
}

/** The prompt a kind starts with, its rows and columns named by the state's tokens. */
async function promptFor(step) {
  const q = step.question;
  const body = step.state.page === "main" ? await bodyOf(step.state.query) : {};
  const tokens = body.tokens ?? [];
  const keys = body.source?.tokens ?? tokens;
  const row = q.row ? `${tokens[q.row - 1] ?? "?"} (row ${q.row})` : "";
  const names = {
    row,
    col: q.col ? `${keys[q.col - 1] ?? "?"} (column ${q.col})` : "",
    stage: q.stage ?? "",
    which: q.which,
    quantity: declared.quantities[q.quantity] ?? "",
    change: CHANGES[step._change] ?? "",
  };
  return PROMPTS[q.kind](names).slice(0, 300);
}

async function questionField(step, field, value) {
  const q = step.question;
  if (field === "change") {
    step._change = value;
    const body = await bodyOf(step.state.query);
    q.change = changeQuery(step.state.query, body, value);
  } else if (field === "prompt" || field === "stage" || field === "which") {
    q[field] = value;
  } else if (field === "why") {
    if (value) q.why = value;
    else delete q.why; // an empty reason is no reason
  } else if (field === "quantity") {
    q.quantity = value;
  } else if (value === "") delete q[field];
  else q[field] = Number(value);
  settle(q, declared);
}

function act(button) {
  const item = button.closest("[data-step]");
  const i = Number(item.dataset.step);
  const action = button.dataset.act;
  if (action === "up" || action === "down") {
    const delta = action === "up" ? -1 : 1;
    const before = draft;
    draft = moveStep(draft, i, delta);
    if (draft === before) return;
    save();
    render(`[data-step="${i + delta}"] [data-act="${action}"]`);
    say(`Step moved to position ${i + delta + 1}.`);
  } else if (action === "remove") {
    draft = removeStep(draft, i);
    save();
    render(`[data-step="${Math.min(i, draft.steps.length - 1)}"] [data-field="title"]`);
    say(`Step ${i + 1} removed.`);
  }
}

async function check() {
  if (!draft.steps.length) return say("The lesson has no steps yet.");
  say("Checking…");
  try {
    const answer = await postJSON(siteUrl("/api/v1/lessons/answers"), lessonOf(draft));
    const asked = answer.steps.filter(Boolean).length;
    say(
      `The lesson is valid: ${draft.steps.length} steps, ${asked} questions with computed answers.`,
    );
  } catch (error) {
    const first = error.errors?.[0];
    say(first ? `${first.field}: ${first.msg}` : error.message);
  }
}

function download() {
  const blob = new Blob([JSON.stringify(lessonOf(draft), null, 2)], { type: "application/json" });
  const a = Object.assign(document.createElement("a"), {
    href: URL.createObjectURL(blob),
    download: `${(draft.title || "lesson").replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.json`,
  });
  a.click();
  URL.revokeObjectURL(a.href);
}

async function openFile(file) {
  try {
    const data = JSON.parse(await file.text());
    if (!data || !Array.isArray(data.steps)) throw new Error("it has no steps");
    draft = { ...emptyDraft(), ...data };
    save();
    render();
    say(`Opened “${file.name}”: ${draft.steps.length} steps.`);
  } catch (error) {
    say(`“${file.name}” is not a lesson file: ${error.message}.`);
  }
}

async function startFrom(id) {
  try {
    const lesson = await getJSON(siteUrl(`/api/v1/lessons/${encodeURIComponent(id)}`));
    delete lesson.id;
    draft = { ...emptyDraft(), ...lesson };
    save();
    render();
    say(`Your draft is now a copy of “${lesson.title}”.`);
  } catch (error) {
    say(`The lesson could not be loaded: ${error.message}`);
  }
}

function wire() {
  root.addEventListener("input", (e) => {
    if (e.target.matches("input[type=text], textarea")) fieldChanged(e.target);
  });
  root.addEventListener("change", (e) => {
    if (e.target.matches("select, input[type=number]")) fieldChanged(e.target);
  });
  root.addEventListener("click", (e) => {
    const button = e.target.closest("button[data-act]");
    if (button) act(button);
  });
  list.addEventListener("keydown", (e) => {
    if (!e.altKey || (e.key !== "ArrowUp" && e.key !== "ArrowDown")) return;
    const item = e.target.closest("[data-step]");
    if (!item) return;
    e.preventDefault();
    act(item.querySelector(`[data-act="${e.key === "ArrowUp" ? "up" : "down"}"]`));
  });
  document.getElementById("editor-check").addEventListener("click", check);
  document.getElementById("editor-download").addEventListener("click", download);
  document.getElementById("editor-file").addEventListener("change", (e) => {
    if (e.target.files[0]) openFile(e.target.files[0]);
  });
  document.getElementById("editor-copy").addEventListener("click", async () => {
    const link = document.getElementById("editor-link").value;
    if (!link) return say("The lesson has no steps yet.");
    // the short link (/l/<id>) when the server stores the lesson, else the long one
    const short = await shortLink({ lesson: lessonOf(draft) });
    try {
      await copyText(short ?? link);
      say(short ? `Short link copied: ${short}` : "Link copied.");
    } catch {
      say("Copy the link from the box.");
    }
  });
  document.getElementById("editor-new").addEventListener("click", () => {
    draft = emptyDraft();
    save();
    render();
    say("A new, empty lesson.");
  });
  for (const button of document.querySelectorAll("[data-start-from]")) {
    button.addEventListener("click", () => startFrom(button.dataset.startFrom));
  }
}

wire();
render();
root.dataset.ready = "true";
