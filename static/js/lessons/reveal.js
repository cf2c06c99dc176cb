/**
 * lessons/reveal.js — the words the player shows after a prediction and at the end: the
 * reveal ("Right." / "Not quite." "You predicted … It is …", the server's why and the
 * nearest common mistake) and the summary's list of questions to look at again. Every
 * text the server wrote goes through setRich (text, its notation as MathML).
 */

import { setRich } from "../dom.js";
import { accepted, responseText } from "./player_core.js";

function paragraph(className, text) {
  const p = Object.assign(document.createElement("p"), { className });
  setRich(p, text);
  return p;
}

// A choice is a sentence of its own ("Its weights are the same"), so it is quoted: "You
// chose Its weights are the same. It is …" read as one garbled sentence.
const quoted = (text) => `“${text}”`;

function answerText(answer) {
  return answer.kind === "multiple_choice"
    ? `The answer is ${quoted(answer.answer)}.`
    : `It is ${answer.answer}.`;
}

function verdictText(answer, predicted) {
  return answer.kind === "multiple_choice"
    ? `You chose ${quoted(predicted)}. ${answerText(answer)}`
    : `You predicted ${predicted}. ${answerText(answer)}`;
}

/** The reveal box of `answer` for `response` (null: revealed without a prediction). */
export function revealBox(answer, response, cellName) {
  const box = document.createElement("div");
  box.className = "lesson-reveal";
  box.dataset.reveal = "";
  box.setAttribute("role", "status");
  box.tabIndex = -1;
  if (response !== null && response !== undefined) {
    const right = accepted(answer.accept, response);
    box.dataset.correct = String(right);
    const predicted = responseText(answer, response, cellName);
    const verdict = right ? "Right." : "Not quite.";
    box.append(paragraph("lesson-verdict", `${verdict} ${verdictText(answer, predicted)}`));
  } else {
    box.append(paragraph("lesson-verdict", answerText(answer)));
  }
  if (answer.why) box.append(paragraph("lesson-why", answer.why)); // a teacher's may be ""
  if (answer.misconception) {
    const { answer: wrong, why } = answer.misconception;
    box.append(paragraph("lesson-mistake", `A common mistake: ${wrong}. ${why}`));
  }
  return box;
}

/** The summary's items: a button back to each missed step, "(not answered)" if so. */
export function missedItems(missed) {
  return missed.map((m) => {
    const li = document.createElement("li");
    const button = Object.assign(document.createElement("button"), {
      type: "button",
      className: "link-button",
    });
    button.dataset.goto = String(m.step);
    setRich(button, `Step ${m.step + 1}: ${m.title}`);
    li.append(button, m.answered ? "" : " (not answered)");
    return li;
  });
}
