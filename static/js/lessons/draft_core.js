/**
 * lessons/draft_core.js — the lesson a teacher is building, kept in this browser
 * (localStorage "attention-lesson:draft"): no account, no server storage. DOM-free:
 * the step a figure or lab section makes, adding it to the draft, moving and removing
 * steps, and the `l=` link of a lesson (its JSON as base64url, as `s=` encodes a state).
 */

import { encodeBody } from "../state.js";

export const DRAFT_KEY = "attention-lesson:draft";
export const MAX_STEPS = 40;
// The main page's query keys a lesson step keeps (the state and the view: app/inputs/link.py).
export const MAIN_KEYS = ["preset", "s", "focus", "head", "stretch", "row", "theme"];
// A real model's head on the main page (`/?model=…&text=…&layer=…&head=…`, with `head` the
// model's head): the step keeps the link itself, so it reopens that head (app/lessons/model_state.py).
export const MODEL_KEYS = ["model", "text", "layer", "head", "focus", "stretch", "row", "theme"];

export function emptyDraft() {
  return { version: 1, title: "My lesson", steps: [] };
}

/** The draft stored as `text`, or an empty one. */
export function readDraft(text) {
  try {
    const data = JSON.parse(text ?? "null");
    if (data && Array.isArray(data.steps)) return { ...emptyDraft(), ...data };
  } catch {
    /* a damaged draft starts again */
  }
  return emptyDraft();
}

/** `query` ("?preset=…&focus=2") with only the keys in `keep`, as "a=1&b=2". */
export function keepKeys(query, keep) {
  const params = new URLSearchParams(query);
  const out = new URLSearchParams();
  for (const [key, value] of params) if (keep.includes(key)) out.set(key, value);
  return out.toString();
}

/** The step "Add to lesson" makes for main-page Figure `n` in the page's URL state: the
 * state and view, or every part of a model head's link. */
export function mainStep(n, title, query) {
  const model = new URLSearchParams(query).has("model");
  return {
    title: `Figure ${n}: ${title}`.slice(0, 120),
    text: "",
    state: { page: "main", query: keepKeys(query, model ? MODEL_KEYS : MAIN_KEYS), figures: [n] },
  };
}

/** The step for lab `lab`'s section `section`, its query cut to the keys it reads. */
export function labStep(lab, section, title, query, keys) {
  return {
    title: title.slice(0, 120),
    text: "",
    state: { page: "lab", lab, section, query: keepKeys(query, keys) },
  };
}

/** The draft with `step` added at the end; an error when it is full. */
export function addStep(draft, step) {
  if (draft.steps.length >= MAX_STEPS) {
    throw new Error(`a lesson has at most ${MAX_STEPS} steps`);
  }
  return { ...draft, steps: [...draft.steps, step] };
}

/** The draft with step `i` moved by `delta` (−1 up, +1 down), unchanged at the ends. */
export function moveStep(draft, i, delta) {
  const j = i + delta;
  if (j < 0 || j >= draft.steps.length) return draft;
  const steps = [...draft.steps];
  [steps[i], steps[j]] = [steps[j], steps[i]];
  return { ...draft, steps };
}

export function removeStep(draft, i) {
  return { ...draft, steps: draft.steps.filter((_, k) => k !== i) };
}

/** The `l=` value of a lesson. */
export function lessonParam(lesson) {
  return encodeBody(lesson);
}

/** base64url JSON -> value (the inverse of state.js encodeBody); null when malformed. */
export function decodeParam(text) {
  try {
    const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

// The prompt each question kind starts with (the teacher edits it). Which kinds there are,
// what each reads and starts with come from the server: app/lessons/kinds.py, handed to
// the editor as #lesson-kinds (`declared`: that JSON).
export const PROMPTS = {
  attends_most: (t) => `Which key does ${t.row} weigh most?`,
  order: (t) => `Put the keys of ${t.row} in order, from the most weight to the least.`,
  cell_value: (t) => `What is the value in the ${t.stage} grid at ${t.row}, ${t.col}?`,
  click_cell: (t) =>
    `Click the ${t.which === "min" ? "smallest" : "largest"} cell of ${t.stage}${t.row ? ` in ${t.row}` : ""}.`,
  direction: (t) =>
    `When we ${t.change}, does the ${t.quantity} of ${t.row} go up, down or stay the same?`,
  multiple_choice: () => "Which of these is right?",
  section_question: () => "Before the figure shows, answer the lab's question.",
};

/** A new question of `kind`: the values the declaration starts it with (a copy: the
 * teacher's choices are edited in place), no prompt yet. */
export function newQuestion(kind, declared) {
  return settle({ kind, prompt: "", ...structuredClone(declared.kinds[kind].starts) }, declared);
}

/** `question` with its choice `i` (from 0) written as `text`: the list grows to reach it,
 * and empty boxes at its end (past the `least` a question needs) are dropped, so the
 * choices are the boxes filled in; an empty box between two is kept, for the server's
 * check to name. */
export function setChoice(question, i, text, least) {
  const choices = [...(question.choices ?? [])];
  while (choices.length <= i) choices.push("");
  choices[i] = text;
  while (choices.length > least && choices.at(-1) === "") choices.pop();
  question.choices = choices;
  return question;
}

/** `question` with each key the declaration asks for only when another key has one value
 * (direction's column, only about one weight) added or removed to agree with that key. */
export function settle(question, declared) {
  const kind = declared.kinds[question.kind];
  for (const [key, [other, value]] of Object.entries(kind.only_when)) {
    if (question[other] === value) question[key] ??= kind.starts[key];
    else delete question[key];
  }
  return question;
}

/** Whether the editor shows the menu of `key` for `question` (its kind reads it, now). */
export function shows(question, key, declared) {
  const kind = declared.kinds[question.kind];
  if (!kind || !(key in kind.keys)) return false;
  const when = kind.only_when[key];
  return !when || question[when[0]] === when[1];
}

export const CHANGES = {
  scale: "switch the division by √d_k",
  mask: "switch the causal mask",
};

/** The body of a main-page query's changed state (scaling or the mask switched). */
export function changedBody(body, change) {
  const out = structuredClone(body);
  if (change === "scale") out.scale = !(body.scale ?? true);
  if (change === "mask") out.mask = body.mask === "causal" ? "none" : "causal";
  return out;
}

/**
 * The changed state's query: its body as s=, the view keys of `query` kept. A real
 * model's head keeps its own link and names the switch (scale=0|1, mask=none|causal:
 * app/lessons/model_state.py), so the change stays the model's exact numbers in a few
 * bytes; as s= it is the whole state (111 kB for the tiny decoder, over a lesson's limit).
 */
export function changeQuery(query, body, change) {
  if (new URLSearchParams(query).has("model")) {
    const out = new URLSearchParams(keepKeys(query, MODEL_KEYS));
    const switched = changedBody(body, change);
    if (change === "scale") out.set("scale", switched.scale ? "1" : "0");
    if (change === "mask") out.set("mask", switched.mask);
    return out.toString();
  }
  const params = new URLSearchParams(keepKeys(query, MAIN_KEYS.slice(2)));
  const out = new URLSearchParams({ s: encodeBody(changedBody(body, change)) });
  for (const [k, v] of params) out.set(k, v);
  return out.toString();
}
