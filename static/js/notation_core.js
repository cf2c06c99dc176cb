/**
 * notation_core.js — the DOM-free half of the one notation renderer: finds the product's
 * closed vocabulary (W^Q, d_k, q_2, √d_k, e^−2, …) in a text and returns MathML trees.
 * The patterns are notation-vocabulary.json, which the server's `math` filter
 * (app/notation.py) reads too, so page, labs and templates convert the same strings alike.
 *
 *   notationTokens(text) -> [["text", string] | ["math", tree, source, spoken]]
 *     a tree is [element, child, …] whose children are trees or strings; spoken is its
 *     accessible name ("d k"), the <math>'s aria-label.
 *   plotlyMarkup(text) -> the same text in Plotly's markup (<sub>, <sup>; the rest escaped)
 *   spokenText(text) -> the text with its notation in words ("W Q"), for an aria-label
 * (app/notation.py `plotly_markup` and `spoken` are their twins, on the same case list).
 */

import vocabulary from "./notation-vocabulary.json" with { type: "json" };

// "u": the patterns hold characters outside ASCII (√, −); "g": search from lastIndex.
const PATTERNS = vocabulary.patterns.map((p) => ({
  regex: new RegExp(p.regex, "gu"),
  tree: p.tree,
  spoken: p.spoken,
}));

function fill(tree, match) {
  if (typeof tree === "string") return tree.replace(/\$(\d)/g, (_, n) => match[Number(n)]);
  return [tree[0], ...tree.slice(1).map((child) => fill(child, match))];
}

/** The earliest match at or after `pos`; a tie goes to the earlier pattern. */
function first(text, pos) {
  let best = null;
  for (const pattern of PATTERNS) {
    pattern.regex.lastIndex = pos;
    const match = pattern.regex.exec(text);
    if (match && (best === null || match.index < best.match.index)) best = { match, pattern };
  }
  return best;
}

/** `text` split into text and notation, as app/notation.py `tokens` splits it. */
export function notationTokens(text) {
  const source = String(text ?? "");
  const out = [];
  let pos = 0;
  for (let found = first(source, 0); found; found = first(source, pos)) {
    const { match, pattern } = found;
    if (match.index > pos) out.push(["text", source.slice(pos, match.index)]);
    out.push(["math", fill(pattern.tree, match), match[0], fill(pattern.spoken, match)]);
    pos = match.index + match[0].length;
  }
  if (pos < source.length) out.push(["text", source.slice(pos)]);
  return out;
}

/** True when `text` holds no notation (a plain text node is enough). */
export function isPlain(text) {
  return first(String(text ?? ""), 0) === null;
}

const PLOTLY_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

function plotlyOf(tree) {
  if (typeof tree === "string") return tree.replace(/[&<>]/g, (c) => PLOTLY_ESCAPES[c]);
  const [element, ...children] = tree;
  const parts = children.map(plotlyOf);
  if (element === "msup") return `${parts[0]}<sup>${parts[1]}</sup>`;
  if (element === "msub") return `${parts[0]}<sub>${parts[1]}</sub>`;
  if (element === "msqrt") return `√${parts.join("")}`;
  return parts.join(""); // mi, mn, mo, mrow: their text
}

/** `text` in Plotly's own text markup, its notation as <sub>/<sup> (for a chart saved as
 * PNG or SVG, where MathML cannot go); everything else escaped, so a label stays text. */
export function plotlyMarkup(text) {
  return notationTokens(text)
    .map(([, value]) => plotlyOf(value))
    .join("");
}

/** `text` with its notation as a screen reader should say it ("d k", "square root of d k"),
 * for an aria-label, where MathML cannot go. */
export function spokenText(text) {
  return notationTokens(text)
    .map((token) => (token[0] === "text" ? token[1] : token[3]))
    .join("");
}
