/**
 * heads_core.js — the DOM-free part of the model page (node --test): where an arrow key
 * moves in the layers × heads grid, how the summary table sorts, and the page's own
 * addresses. No maths: every number, word and colour comes from the server.
 */

import { moveCell } from "../grid_core.js";

/** The [layer, head] an arrow, Home/End or PageUp/PageDown key moves to, or null. */
export function moveHead(key, layer, head, layers, heads) {
  return moveCell(key, layer, head, [layers, heads]);
}

const byOrder = (a, b) => a.layer - b.layer || a.head - b.head;
const COMPARE = {
  order: byOrder,
  pattern: (a, b) => a.words.localeCompare(b.words) || byOrder(a, b),
  entropy: (a, b) => a.entropy - b.entropy || byOrder(a, b),
  sink: (a, b) => a.sink - b.sink || byOrder(a, b),
  group: (a, b) => (a.kv_head ?? 0) - (b.kv_head ?? 0) || byOrder(a, b),
};

/** The summaries (a flat list) sorted by `key` ("order", "pattern", "entropy", "sink",
 * "group": the key/value head a query head reads). */
export function sortSummaries(rows, key, descending = false) {
  const sorted = [...rows].sort(COMPARE[key] ?? byOrder);
  return descending ? sorted.reverse() : sorted;
}

/** The query of heads.json for a sentence, in a theme, with special tokens greyed or not. */
export function headsQuery(text, theme, hideSpecial) {
  return new URLSearchParams({ text, theme, hide_special: hideSpecial ? "1" : "0" }).toString();
}

/** The same query with the head whose full grid is wanted (0-based layer and head). */
export function headQuery(text, theme, hideSpecial, layer, head) {
  const query = new URLSearchParams(headsQuery(text, theme, hideSpecial));
  query.set("layer", String(layer));
  query.set("head", String(head));
  return query.toString();
}

/** The query of generate.json: `steps` tokens after `text` (greedy when `seed` is "",
 * else sampled with it; both as typed), drawn for `layer`/`head` (0-based) in `theme`. */
export function generateQuery(text, theme, steps, seed, layer, head) {
  const query = new URLSearchParams({ text, theme, steps: String(steps) });
  if (seed !== "") query.set("seed", String(seed));
  query.set("layer", String(layer));
  query.set("head", String(head));
  return query.toString();
}

/** The page's own query: the sentence, the theme unless automatic, and what the
 * generation mode keeps (`extra`: its steps and seed, or nothing). */
export function pageQuery(text, theme, extra = {}) {
  const query = new URLSearchParams({ text });
  if (theme !== "auto") query.set("theme", theme);
  for (const [key, value] of Object.entries(extra)) query.set(key, String(value));
  return query.toString();
}

/** The next direction when a column's sort button is pressed (same column: flip). */
export function nextSort(current, key) {
  if (current.key !== key) return { key, descending: false };
  return { key, descending: !current.descending };
}
