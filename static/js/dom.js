/**
 * dom.js — the DOM helpers every drawing module uses: find a panel's part by its
 * data-role, and set a node's text only when it changed (unchanged text costs no layout),
 * as plain text (setText) or with the product's notation as MathML (setRich: every text
 * the server wrote for a reader, such as titles, captions, readouts and headers).
 */

import { setNotation } from "./notation.js";

/** The element of `panel` with data-role=`role`, or null. */
export function part(panel, role) {
  return panel.querySelector(`[data-role="${role}"]`);
}

/** Set `node`'s text to `text` unless it already reads so. */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Set `node`'s text to `text`, its notation (W^Q, d_k, q_2, √d_k…) as MathML. */
export function setRich(node, text) {
  setNotation(node, text);
}
