/**
 * dom.js — the two DOM helpers every drawing module uses: find a panel's part by its
 * data-role, and set a node's text only when it changed (unchanged text costs no layout).
 */

/** The element of `panel` with data-role=`role`, or null. */
export function part(panel, role) {
  return panel.querySelector(`[data-role="${role}"]`);
}

/** Set `node`'s text to `text` unless it already reads so. */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
