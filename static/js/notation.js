/**
 * notation.js — the page's notation renderer: setNotation(node, text) writes `text` into
 * `node` with the product's notation (W^Q, d_k, q_2, √d_k, e^−2, …) as MathML, built node
 * by node (never innerHTML: every other character stays text). The same strings become
 * the same MathML as the server's `math` filter (app/templating.py); what to convert is
 * notation_core.js.
 */

import { notationTokens } from "./notation_core.js";

const MATHML = "http://www.w3.org/1998/Math/MathML";

function mathNode(tree) {
  const el = document.createElementNS(MATHML, tree[0]);
  for (const child of tree.slice(1))
    el.append(typeof child === "string" ? document.createTextNode(child) : mathNode(child));
  return el;
}

function leaves(tree) {
  return tree
    .slice(1)
    .map((child) => (typeof child === "string" ? child : leaves(child)))
    .join("");
}

function nodeOf([kind, value, source, spoken]) {
  if (kind === "text") return document.createTextNode(value);
  const math = document.createElementNS(MATHML, "math");
  math.setAttribute("alttext", source); // the text as typed ("√d_k"), as the server writes it
  math.setAttribute("aria-label", spoken); // MathML's own text is read unreliably in a name
  math.append(mathNode(value));
  return math;
}

/** Nodes for `text`: text nodes and <math> elements. */
export function notationNodes(text) {
  return notationTokens(text).map(nodeOf);
}

// Text -> what a reader sees of it (its notation's leaves), or null when it has no
// notation: every figure's labels and sentences are set again on each edit, and scanning
// them with the vocabulary's patterns each time cost more than the few that change.
const seenOf = new Map();
const SEEN_MAX = 5000;

function seenText(source) {
  let seen = seenOf.get(source);
  if (seen === undefined) {
    const tokens = notationTokens(source);
    seen = tokens.some(([kind]) => kind === "math")
      ? tokens.map(([kind, value]) => (kind === "text" ? value : leaves(value))).join("")
      : null;
    if (seenOf.size >= SEEN_MAX) seenOf.clear();
    seenOf.set(source, seen);
  }
  return seen;
}

/** Write `text` into `node` with its notation as MathML. Unchanged text is not redrawn
 * (node.dataset.notation remembers the source), so calling it on every update is cheap. */
export function setNotation(node, text) {
  const source = String(text ?? "");
  const seen = seenText(source);
  if (seen === null) {
    if (node.textContent !== source || node.children.length) node.textContent = source;
    if (node.dataset.notation !== undefined) delete node.dataset.notation;
    return;
  }
  // The text a reader sees (a <math>'s textContent is its leaves): unchanged means no work.
  if (node.dataset.notation === source && node.textContent === seen) return;
  node.replaceChildren(...notationTokens(source).map(nodeOf));
  node.dataset.notation = source;
}
