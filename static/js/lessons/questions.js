/**
 * lessons/questions.js — one step's question as a form the learner commits: radio inputs
 * for a choice (attends_most, direction, a teacher's multiple_choice, a lab section's own
 * question under its numbered words, `asks`), a radio group per place for an order, a number
 * input for cell_value, and for click_cell the figure's own grid cells (data-row/data-col,
 * counted from 0 as the grid writes them; the question counts from 1): a click, or Enter
 * or Space on a focused cell, picks it. `read()` returns the response or null.
 */

import { setRich } from "../dom.js";

// Which grids of a figure show a stage (app/figures/context.py names them so).
export const STAGE_GRIDS = {
  Q: ["q"],
  K: ["k"],
  V: ["v"],
  scores: ["scores"],
  scaled: ["scaled", "masked"],
  weights: ["weights"],
  Z: ["output"],
};

let uid = 0;
const listening = new WeakMap(); // grid -> the AbortController of its pick listeners

function radio(name, choice, id) {
  const input = Object.assign(document.createElement("input"), {
    type: "radio",
    name,
    value: choice.id,
    id,
  });
  const label = Object.assign(document.createElement("label"), { htmlFor: id });
  const text = document.createElement("span");
  setRich(text, choice.label);
  label.append(input, " ", text);
  return label;
}

function fieldset(legendText, children, className = "choices") {
  const box = Object.assign(document.createElement("fieldset"), { className });
  const legend = document.createElement("legend");
  setRich(legend, legendText);
  box.append(legend, ...children);
  return box;
}

// A teacher's own question asks for an answer; the computed kinds for a prediction.
const LEGENDS = { multiple_choice: "Your answer" };

function choiceForm(form, answer) {
  const name = `lesson-q-${++uid}`;
  const group = fieldset(
    LEGENDS[answer.kind] ?? "Your prediction",
    answer.choices.map((c, i) => radio(name, c, `${name}-${i}`)),
  );
  form.append(group);
  return () => form.querySelector(`input[name="${name}"]:checked`)?.value ?? null;
}

function orderForm(form, answer) {
  const base = `lesson-q-${++uid}`;
  const places = answer.choices.map((_, p) =>
    fieldset(
      `Place ${p + 1}${p === 0 ? " (most weight)" : ""}`,
      answer.choices.map((c, i) => radio(`${base}-${p}`, c, `${base}-${p}-${i}`)),
      "choices order-place",
    ),
  );
  form.append(...places);
  return () => {
    const picked = places.map((_, p) => form.querySelector(`input[name="${base}-${p}"]:checked`));
    return picked.every(Boolean) ? picked.map((input) => input.value) : null;
  };
}

function numberForm(form, readNumber) {
  const id = `lesson-q-${++uid}`;
  const input = Object.assign(document.createElement("input"), {
    type: "number",
    step: "any",
    id,
    className: "lesson-number",
    autocomplete: "off",
  });
  const label = Object.assign(document.createElement("label"), {
    htmlFor: id,
    textContent: "Your prediction ",
  });
  label.append(input);
  form.append(label);
  return () => readNumber(input.value);
}

/** click_cell: the cells of `grids` pick the response; `status` says which is picked. */
function cellForm(form, grids, cellName) {
  let picked = null;
  const status = Object.assign(document.createElement("p"), { className: "cell-pick" });
  status.setAttribute("aria-live", "polite");
  status.textContent = grids.length
    ? "Click a cell of the grid, or Tab into it, move with the arrow keys and press Enter."
    : "The grid this question asks about is not among this step's figures.";
  form.append(status);
  const pick = (td) => {
    for (const grid of grids)
      grid.querySelector("td.lesson-picked")?.classList.remove("lesson-picked");
    td.classList.add("lesson-picked");
    picked = [Number(td.dataset.row) + 1, Number(td.dataset.col) + 1];
    status.textContent = `Your pick: ${cellName(picked[0], picked[1], td)}.`;
  };
  for (const grid of grids) {
    // A step's grids are drawn once and kept (views.js): the last visit's listeners and
    // marks go, this visit's come.
    listening.get(grid)?.abort();
    const controller = new AbortController();
    listening.set(grid, controller);
    const { signal } = controller;
    for (const td of grid.querySelectorAll(".lesson-picked, .lesson-answer"))
      td.classList.remove("lesson-picked", "lesson-answer");
    grid.classList.add("lesson-pickable");
    grid.addEventListener(
      "click",
      (event) => {
        const td = event.target.closest("td[data-row]");
        if (td && !form.dataset.locked) pick(td);
      },
      { signal },
    );
    grid.addEventListener(
      "keydown",
      (event) => {
        const td = event.target.closest("td[data-row]");
        if (!td || form.dataset.locked || (event.key !== "Enter" && event.key !== " ")) return;
        event.preventDefault();
        pick(td);
      },
      { signal },
    );
  }
  return () => picked;
}

/** Build the question form for `answer` into `form`; returns `read()`. */
export function buildQuestion(form, question, answer, { grids, cellName, readNumber }) {
  form.dataset.question = answer.kind;
  const prompt = Object.assign(document.createElement("p"), { className: "lesson-prompt" });
  prompt.id = `lesson-prompt-${++uid}`;
  setRich(prompt, question.prompt);
  form.setAttribute("aria-labelledby", prompt.id);
  form.append(prompt);
  if (answer.asks) {
    // A lab section's own question, in the lab's words with this state's numbers.
    const asks = Object.assign(document.createElement("p"), { className: "lesson-asks" });
    asks.id = `lesson-asks-${uid}`;
    setRich(asks, answer.asks);
    form.setAttribute("aria-labelledby", `${prompt.id} ${asks.id}`);
    form.append(asks);
  }
  if (answer.kind === "order") return orderForm(form, answer);
  if (answer.kind === "cell_value") return numberForm(form, readNumber);
  if (answer.kind === "click_cell") return cellForm(form, grids, cellName);
  return choiceForm(form, answer);
}

/** Put a stored response back into the form (a revisited step). */
export function restore(form, answer, response) {
  if (response === null || response === undefined) return;
  if (answer.kind === "cell_value") {
    form.querySelector("input[type=number]").value = String(response);
  } else if (answer.kind === "order") {
    const groups = form.querySelectorAll("fieldset");
    response.forEach((id, p) => {
      const input = [...(groups[p]?.querySelectorAll("input") ?? [])].find((i) => i.value === id);
      if (input) input.checked = true;
    });
  } else if (answer.kind !== "click_cell") {
    const input = [...form.querySelectorAll("input[type=radio]")].find((i) => i.value === response);
    if (input) input.checked = true;
  }
}

/** Lock the form once committed: its inputs no longer change the response. */
export function lock(form) {
  form.dataset.locked = "1";
  for (const input of form.querySelectorAll("input")) input.disabled = true;
}
