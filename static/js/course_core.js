/**
 * course_core.js — what the "Use in a course" panel decides without a DOM: a snippet or a
 * link opening the lesson at a step. The server wrote every snippet and says where in it
 * `step=N` goes (app/web/lesson_snippets.py: `step_at`, in UTF-16 code units as JS counts,
 * and `step_join`, `?step=` or `&step=` escaped as the snippet escapes its src), so nothing
 * here writes a snippet. Unit-tested in tests/js/course_core.test.mjs.
 */

/** `text` naming step index `i` (written from 1) where the server said; null: as written. */
export function spliceStep(text, at, join, i) {
  if (i === null) return text;
  return `${text.slice(0, at)}${join}${i + 1}${text.slice(at)}`;
}

/** A link as the panel prints it: whole up to `max` characters, else cut with "…"
 * (the href keeps all of it), as the server prints it. */
export function shownLink(link, max) {
  return link.length <= max ? link : `${link.slice(0, max - 1)}…`;
}
