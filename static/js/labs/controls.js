/**
 * labs/controls.js — reads and writes the lab controls rendered by templates/labs/macros.html.
 * A control is a [data-control] element with data-key (its URL key) and data-kind; its
 * value travels as the URL text the server parses (app/inputs/lab_controls.py): a
 * number as typed, a toggle 1/0, a vector "2,1,0", a matrix "3,-3;1,1", a steps slider
 * the listed value at its position, a multi choice "4,16,64". No parsing or maths here.
 */

import { spokenText } from "../notation_core.js";

const inputs = (el) => [...el.querySelectorAll('[data-part="value"]')];

/** The URL text of one control as it stands now. */
export function readControl(el, described) {
  const kind = el.dataset.kind;
  const parts = inputs(el);
  switch (kind) {
    case "toggle":
      return parts[0].checked ? "1" : "0";
    case "steps":
      return described.choices[Number(parts[0].value)][0];
    case "vector":
      // One text field may hold the whole vector ("0, 1, 6"): the URL form has no spaces.
      return parts
        .map((i) =>
          i.value
            .split(",")
            .map((p) => p.trim())
            .join(","),
        )
        .join(",");
    case "multi":
      return parts
        .filter((i) => i.checked)
        .map((i) => i.value)
        .join(",");
    case "matrix": {
      const rows = [];
      for (const i of parts) (rows[Number(i.dataset.row)] ??= []).push(i.value.trim());
      return rows.map((r) => r.join(",")).join(";");
    }
    default:
      return parts[0].value.trim();
  }
}

/** Show `text` (the server's canonical form) in the control, leaving a focused input alone. */
export function writeControl(el, described, text) {
  const kind = el.dataset.kind;
  const parts = inputs(el);
  const put = (input, value) => {
    if (document.activeElement !== input && input.value !== value) input.value = value;
  };
  if (kind === "toggle") parts[0].checked = text === "1";
  else if (kind === "steps") {
    const index = described.choices.findIndex(([v]) => v === text);
    if (index >= 0) {
      put(parts[0], String(index));
      showStep(el, described);
    }
  } else if (kind === "vector" && parts.length === 1)
    put(parts[0], text); // one field: "2,0,1"
  else if (kind === "vector") text.split(",").forEach((v, i) => parts[i] && put(parts[i], v));
  else if (kind === "matrix") {
    const rows = text.split(";").map((r) => r.split(","));
    resizeMatrix(el, described, rows.length, rows[0]?.length ?? 0);
    for (const i of inputs(el))
      put(i, rows[Number(i.dataset.row)]?.[Number(i.dataset.col)] ?? i.value);
  } else if (kind === "multi") {
    const on = new Set(text.split(","));
    for (const i of parts) i.checked = on.has(i.value);
  } else put(parts[0], text);
  const range = el.querySelector('[data-part="range"]');
  if (range && document.activeElement !== range) range.value = text;
  syncDisabled(el.closest("form"));
}

/** Put a steps slider at position `index` (a player's frame) and show its label. */
export function setStep(el, described, index) {
  const input = inputs(el)[0];
  if (input.value !== String(index)) input.value = String(index);
  showStep(el, described);
}

/** A steps slider shows the listed value's label beside it (and to screen readers). */
export function showStep(el, described) {
  const input = inputs(el)[0];
  const label = described.choices[Number(input.value)]?.[1] ?? "";
  input.setAttribute("aria-valuetext", label);
  const out = el.querySelector('[data-part="output"]');
  if (out) out.textContent = label;
}

/** The header of row `r` of a matrix control, and the row's name in its cells' labels. */
function rowNames(el, described, r) {
  // What a person reads counts from 1: the masks' S has rows "q_1" …
  const prefix = el.dataset.rowPrefix; // a square matrix of a chosen size (masks' S): "q_"
  if (prefix !== undefined) return [`${prefix}${r + 1}`, `${prefix}${r + 1}`];
  const label = described?.labels?.[r]; // B1's Q, K, V: the token of each row
  return label ? [label, label] : [String(r + 1), `row ${r + 1}`];
}

/**
 * Give a matrix control `nRows` × `nCols` inputs for the server's canonical text (its
 * rows follow another control: B1's L, the masks' size). Kept cells stay; new cells are
 * copies of the first input, named like the server's (templates/labs/macros.html), and
 * the caller writes the server's numbers into every cell. One row always remains.
 */
function resizeMatrix(el, described, nRows, nCols) {
  const table = el.querySelector("table.matrix-input");
  const body = table.tBodies[0] ?? table;
  const template = inputs(el)[0];
  const legend = described?.label ?? el.querySelector("legend")?.textContent ?? "";
  const rows = () => [...body.querySelectorAll(":scope > tr")];
  rows()
    .slice(Math.max(nRows, 1))
    .forEach((tr) => tr.remove());
  for (let r = 0; r < nRows; r += 1) {
    const [header, name] = rowNames(el, described, r);
    let tr = rows()[r];
    if (!tr) {
      tr = body.insertRow();
      tr.append(Object.assign(document.createElement("th"), { scope: "row", textContent: header }));
    }
    const cells = [...tr.querySelectorAll(":scope > td")];
    cells.slice(nCols).forEach((td) => td.remove());
    for (let c = cells.length; c < nCols; c += 1) {
      const input = template.cloneNode(false);
      input.id = `${template.id.replace(/-\d+-\d+$/, "")}-${r}-${c}`;
      input.dataset.row = String(r);
      input.dataset.col = String(c);
      input.value = "0";
      input.removeAttribute("aria-invalid");
      input.setAttribute("aria-label", spokenText(`${legend} ${name}, column ${c + 1}`));
      tr.insertCell().append(input);
    }
  }
}

/** Entries of a control with data-size-by="name" (checkboxes, options) whose number is at
 * least the value of control `name` plus data-size-offset are hidden (e.g. keys past L). */
function syncSized(root) {
  for (const el of root.querySelectorAll("[data-size-by]")) {
    const source = document.querySelector(
      `[data-control="${CSS.escape(el.dataset.sizeBy)}"] [data-part="value"]`,
    );
    const limit = Number(source?.value) + Number(el.dataset.sizeOffset || 0);
    if (!Number.isFinite(limit)) continue;
    for (const entry of el.querySelectorAll('option, input[type="checkbox"]')) {
      const n = Number(entry.value);
      const hide = entry.value !== "" && Number.isFinite(n) && n >= limit;
      const box = entry.tagName === "OPTION" ? entry : entry.closest("label");
      box.hidden = hide;
      if (entry.tagName === "OPTION") entry.disabled = hide;
    }
  }
}

/** Controls with data-disabled-by="name" are disabled while toggle `name` is on. */
export function syncDisabled(form) {
  if (!form) return;
  syncSized(form);
  for (const el of form.querySelectorAll("[data-disabled-by]")) {
    const toggle = form.querySelector(
      `[data-control="${el.dataset.disabledBy}"] [data-part="value"]`,
    );
    const off = Boolean(toggle?.checked);
    for (const input of el.querySelectorAll("input")) input.disabled = off;
    el.classList.toggle("is-disabled", off);
  }
}

/** Mark a control as invalid with `message` (or clear it with null). */
export function markControl(el, message) {
  for (const input of el.querySelectorAll("input, select")) {
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}
