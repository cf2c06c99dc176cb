/**
 * lessons/player_core.js — what the lesson player decides without a DOM: whether a
 * response is accepted (a comparison with the server's `accept`, never maths), what a
 * response reads as, the progress event's detail and the end-of-lesson summary, and the
 * record a student's browser keeps. Unit-tested in tests/js/lesson_player_core.test.mjs.
 *
 * A response is what the learner committed: a choice id ("k2", "up"), a sequence of
 * choice ids (order), a number (cell_value) or [row, col] counted from 1 (click_cell).
 */

/** True when `response` is what `accept` (from POST /api/v1/lessons/answers) accepts. */
export function accepted(accept, response) {
  if (!accept || response === null || response === undefined) return false;
  if ("choice" in accept) return response === accept.choice;
  if ("sequence" in accept) {
    return (
      Array.isArray(response) &&
      response.length === accept.sequence.length &&
      response.every((id, i) => id === accept.sequence[i])
    );
  }
  if ("min" in accept) {
    return typeof response === "number" && response >= accept.min && response <= accept.max;
  }
  if ("cells" in accept) {
    return (
      Array.isArray(response) &&
      accept.cells.some(([row, col]) => row === response[0] && col === response[1])
    );
  }
  return false;
}

/** The label of choice `id` among `choices`, else the id itself. */
export function choiceLabel(choices, id) {
  return (choices ?? []).find((c) => c.id === id)?.label ?? String(id);
}

/** A response as the learner reads it: "love (row 2)", "I (row 1), then love (row 2)",
 * "0.67", or for a cell what `cellName(row, col)` says. */
export function responseText(answer, response, cellName = (r, c) => `row ${r}, column ${c}`) {
  if (response === null || response === undefined) return "";
  if (answer.kind === "click_cell") return cellName(response[0], response[1]);
  if (answer.kind === "order")
    return response.map((id) => choiceLabel(answer.choices, id)).join(", then ");
  if (answer.kind === "cell_value") return String(response).replace("-", "−");
  return choiceLabel(answer.choices, response);
}

/** The number typed in a number input, or null when it is not a number. */
export function readNumber(text) {
  const trimmed = String(text ?? "")
    .trim()
    .replace("−", "-");
  if (trimmed === "" || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed)) return null;
  return Number(trimmed);
}

/** Indexes of the steps that ask a question. */
export function questionSteps(answers) {
  return answers.flatMap((a, i) => (a ? [i] : []));
}

/** The detail of the "attention-lesson:progress" event (the shared contract). */
export function progressDetail({ lessonId, step, answers, record }) {
  const asked = questionSteps(answers);
  const answered = asked.filter((i) => record[i] !== undefined);
  const correct = answered.filter((i) => accepted(answers[i].accept, record[i]));
  return {
    lesson: lessonId ?? null,
    step,
    steps: answers.length,
    questions: asked.length,
    answered: answered.length,
    correct: correct.length,
    done: step === answers.length - 1 && answered.length === asked.length,
  };
}

/** The summary at the end: score and the questions missed (or left unanswered). */
export function summary(lesson, answers, record) {
  const asked = questionSteps(answers);
  const missed = asked
    .filter((i) => !accepted(answers[i].accept, record[i]))
    .map((i) => ({
      step: i,
      title: lesson.steps[i].title,
      prompt: lesson.steps[i].question?.prompt ?? "",
      answered: record[i] !== undefined,
    }));
  return { questions: asked.length, correct: asked.length - missed.length, missed };
}

/** The progress line: "Step 3 of 8 · 2 of 5 questions answered, 1 right". */
export function progressText(detail) {
  const head = `Step ${detail.step + 1} of ${detail.steps}`;
  if (!detail.questions) return head;
  const noun = detail.questions === 1 ? "question" : "questions";
  return `${head} · ${detail.answered} of ${detail.questions} ${noun} answered, ${detail.correct} right`;
}

/** The key a student's record is stored under: the lesson's id, else its JSON. */
export function recordKey(lesson) {
  if (lesson.id) return `attention-lesson:${lesson.id}`;
  let hash = 0;
  for (const ch of JSON.stringify(lesson)) hash = (hash * 31 + ch.codePointAt(0)) | 0;
  return `attention-lesson:local-${(hash >>> 0).toString(36)}`;
}

/** A stored record, or an empty one when the text is missing or not a record. */
export function parseRecord(text, steps) {
  try {
    const data = JSON.parse(text ?? "null");
    if (!data || typeof data !== "object" || typeof data.responses !== "object")
      throw new Error("not a record");
    const at = Number.isInteger(data.at) && data.at >= 0 && data.at < steps ? data.at : 0;
    const responses = {};
    for (const [k, v] of Object.entries(data.responses)) {
      if (Number(k) >= 0 && Number(k) < steps) responses[Number(k)] = v;
    }
    return { at, responses };
  } catch {
    return { at: 0, responses: {} };
  }
}

/** The step a lesson's address names: `step=N`, counted from 1 as the progress line counts
 * ("Step 6 of 8" is `step=6`), returned as an index from 0; null when the address names
 * none, or a step this lesson does not have (the player then resumes the record). */
export function linkedStep(search, steps) {
  const text = new URLSearchParams(search).get("step");
  if (text === null || !/^[1-9]\d{0,3}$/.test(text)) return null;
  const n = Number(text);
  return n <= steps ? n - 1 : null;
}

/** `url` with `step=` naming step index `i` (written from 1), or without it when `i` is
 * null; every other parameter is kept as written (an `l=` link is not re-encoded) and so
 * is the fragment. */
export function withStep(url, i) {
  const hashAt = url.indexOf("#");
  const hash = hashAt < 0 ? "" : url.slice(hashAt);
  const rest = hashAt < 0 ? url : url.slice(0, hashAt);
  const queryAt = rest.indexOf("?");
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? "" : rest.slice(queryAt + 1);
  const kept = query.split("&").filter((p) => p !== "" && !/^step(=|$)/.test(p));
  if (i !== null) kept.push(`step=${i + 1}`);
  return `${path}${kept.length ? `?${kept.join("&")}` : ""}${hash}`;
}
