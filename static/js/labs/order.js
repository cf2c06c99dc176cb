/**
 * labs/order.js — E1's token buttons: pick the token at one position, then another, and
 * the two swap places (pointer or keyboard: the buttons are ordinary buttons). A pick
 * sets the hidden `swap` control to "i,j" and asks for the figure; the server applies the
 * swap to `perm` and answers with the new order, whose tokens label the buttons. No maths.
 */

import { lab, panels } from "./lab.js";

const panel = panels.get("shuffle");
const strip = panel?.querySelector('[data-role="token-strip"]');
let picked = null;

function status(text) {
  strip.querySelector('[data-role="strip-status"]').textContent = text;
}

function label(fig) {
  const tokens = fig.tables?.[0]?.row_headers ?? [];
  for (const button of strip.querySelectorAll("[data-position]")) {
    const token = tokens[Number(button.dataset.position)];
    // rows are counted from 1 on the page (the URL's perm counts from 0)
    if (token !== undefined)
      button.textContent = `${token} (row ${Number(button.dataset.position) + 1})`;
  }
}

if (strip) {
  lab.hooks.push((name, fig, preview) => {
    if (name === "shuffle" && !preview) label(fig);
  });
  strip.addEventListener("click", (e) => {
    const button = e.target.closest("[data-position]");
    if (!button) return;
    if (picked === null || picked === button) {
      const again = picked === button;
      for (const b of strip.querySelectorAll("[data-position]"))
        b.setAttribute("aria-pressed", "false");
      picked = again ? null : button;
      button.setAttribute("aria-pressed", String(!again));
      status(
        again
          ? "Pick cancelled."
          : `Picked ${button.textContent}: now pick the token to swap it with.`,
      );
      return;
    }
    const select = panel.querySelector('[data-control="swap"] select');
    select.value = `${picked.dataset.position},${button.dataset.position}`;
    picked.setAttribute("aria-pressed", "false");
    status(
      `Swapped rows ${Number(picked.dataset.position) + 1} and ${Number(button.dataset.position) + 1}.`,
    );
    picked = null;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}
