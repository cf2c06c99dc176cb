/**
 * labs/guess.js — a stop-and-try question (A2): the figure stays hidden until the reader
 * commits to a guess. A radio group (one choice per key, keyboard: arrows move, Space
 * picks) and a Check button; on Check the panel shows the figure and the line "You
 * predicted …. It is …: why". The choices, the correct one and the why arrive with the
 * figure from the server (`fig.reveal`); nothing is computed here.
 */

import { part, setRich } from "../dom.js";

const checked = new WeakMap(); // panel -> {question, guess label} of the last Check

function choiceInput(panel, [value, label], index) {
  const id = `${panel.dataset.figure}-guess-${index}`;
  const input = Object.assign(document.createElement("input"), {
    type: "radio",
    name: `${panel.dataset.figure}-guess`,
    value,
    id,
  });
  const text = Object.assign(document.createElement("label"), { htmlFor: id });
  text.dataset.text = label; // the words as the server wrote them (the label shows MathML)
  setRich(text, label);
  const row = Object.assign(document.createElement("div"), { className: "guess-choice" });
  row.append(input, " ", text);
  return row;
}

/** The result line: after a Check on this question, "You predicted … It is …"; after
 * the controls moved on, the answer for the current state only. */
function showResult(panel, reveal) {
  const box = part(panel, "result");
  const last = checked.get(panel);
  if (!box || !last) return;
  box.replaceChildren();
  const right = last.value === reveal.correct;
  const lines =
    last.question === reveal.question
      ? [
          `You predicted ${last.label}. It is ${reveal.correct_label}${right ? ": right." : "."}`,
          reveal.why,
        ]
      : [`Now: ${reveal.correct_label}.`, reveal.why];
  for (const text of lines) {
    const line = document.createElement("p");
    setRich(line, text);
    box.append(line);
  }
}

function wire(panel, form) {
  if (form.dataset.wired) return;
  form.dataset.wired = "1";
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const picked = form.querySelector('input[type="radio"]:checked');
    const error = part(panel, "result");
    if (!picked) {
      error.textContent = "Pick one answer first, then Check.";
      return;
    }
    const label = form.querySelector(`label[for="${CSS.escape(picked.id)}"]`).dataset.text;
    checked.set(panel, { question: form.dataset.question, value: picked.value, label });
    panel.dataset.guess = "done";
    showResult(panel, JSON.parse(form.dataset.reveal));
    // The chart was drawn while hidden (no width): fit it to its box now it shows.
    // Plotly resizes after its own short timer; <… data-fit="done"> says it has, so a
    // pointer aimed at the chart (a drag of q's tip) aims where it will stay.
    const plot = part(panel, "plot");
    if (plot?.data && window.Plotly) {
      plot.dataset.fit = "pending";
      window.Plotly.Plots.resize(plot).then(() => {
        plot.dataset.fit = "done";
      });
    }
  });
}

/** Draw `reveal` (or hide the question when the figure has none). */
export function renderGuess(panel, reveal) {
  const form = part(panel, "reveal");
  if (!form) return;
  form.hidden = !reveal;
  if (!reveal) {
    delete panel.dataset.guess;
    return;
  }
  const question = part(panel, "question");
  if (question) setRich(question, reveal.question);
  const choices = part(panel, "choices");
  const values = (reveal.choices ?? []).map(([value]) => value).join("|");
  if (choices && choices.dataset.values !== values) {
    const before = form.querySelector('input[type="radio"]:checked')?.value;
    choices.replaceChildren(...(reveal.choices ?? []).map((c, i) => choiceInput(panel, c, i)));
    choices.dataset.values = values;
    if (before) {
      const again = [...choices.querySelectorAll("input")].find((el) => el.value === before);
      if (again) again.checked = true;
    }
  }
  form.dataset.question = reveal.question;
  form.dataset.reveal = JSON.stringify(reveal);
  if (!checked.has(panel)) panel.dataset.guess = "pending";
  wire(panel, form);
  showResult(panel, reveal);
}
