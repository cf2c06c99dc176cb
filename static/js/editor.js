/**
 * editor.js — the matrix editor: X (with token labels and padding flags), the source S
 * for cross-attention, W^Q, W^K and W^V. Builds the same markup as
 * templates/macros/editor.html, handles spreadsheet keys (arrows move, Enter commits,
 * Escape reverts) and shows each invalid entry on its cell (aria-invalid plus a message
 * linked by aria-describedby). It parses what was typed; it never computes.
 */

import { keyRows } from "./shapes.js";

const LABELS = { x: "X", source_x: "S (source)", w_q: "W^Q", w_k: "W^K", w_v: "W^V" };
const COLUMN = { x: "d_model column", source_x: "d_model column", w_q: "d_k column", w_k: "d_k column", w_v: "d_v column" };

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(key, value === true ? "" : String(value));
  }
  if (text !== null) node.textContent = text;
  return node;
}

/** "3", "-0.5", "1e3" -> number; anything else -> an Error saying why. */
export function parseNumber(text) {
  const t = text.trim().replace(/^\u2212/, "-");
  if (t === "") return new Error("empty: type a number, e.g. 0 or -1.5");
  const value = Number(t);
  if (!Number.isFinite(value)) return new Error(`“${text}” is not a number`);
  return value;
}

function headRow(name, count, withPadding, tokenAttr) {
  const tr = el("tr");
  const corner = el("th", { scope: "col" });
  corner.append(el("span", { class: "visually-hidden" }, tokenAttr ? "token" : "row"));
  tr.append(corner);
  if (withPadding) tr.append(el("th", { scope: "col", class: "pad-col", title: "Padding: every query ignores this key" }, "pad"));
  for (let j = 0; j < count; j += 1) tr.append(el("th", { scope: "col" }, String(j + 1)));
  return tr;
}

function bodyRow(name, row, i, opts) {
  const tr = el("tr");
  const th = el("th", { scope: "row" });
  if (opts.tokenAttr) {
    th.append(el("input", { class: "token", type: "text", [opts.tokenAttr]: i, value: opts.labels?.[i] ?? "",
      maxlength: 64, spellcheck: "false", autocomplete: "off", "aria-label": `Label of token ${i}` }));
  } else {
    th.textContent = String(i + 1);
  }
  tr.append(th);
  if (opts.padding) {
    const td = el("td", { class: "pad-col" });
    td.append(el("input", { type: "checkbox", "data-padding": i, checked: Boolean(opts.padding[i]), "aria-label": `Token ${i} is padding` }));
    tr.append(td);
  }
  row.forEach((value, j) => {
    const td = el("td");
    td.append(el("input", { class: "cell", type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
      "data-matrix": name, "data-row": i, "data-col": j, value: String(value),
      "aria-label": `${LABELS[name]} row ${i + 1}, ${COLUMN[name]} ${j + 1}` }));
    tr.append(td);
  });
  return tr;
}

function buildTable(name, rows, opts) {
  const table = el("table", { class: "grid-editor", "aria-describedby": `${name}-hint` });
  const caption = el("caption");
  caption.append(el("span", { class: "matrix-name" }, LABELS[name]), " ",
    el("span", { class: "shape", "data-role": "shape" }, `${rows.length} × ${rows[0]?.length ?? 0}`));
  const thead = el("thead");
  thead.append(headRow(name, rows[0]?.length ?? 0, Boolean(opts.padding), opts.tokenAttr));
  const tbody = el("tbody");
  rows.forEach((row, i) => tbody.append(bodyRow(name, row, i, opts)));
  table.append(caption, thead, tbody);
  return table;
}

/** Rebuild every matrix table from `body`. */
export function renderEditor(root, body) {
  const cross = Boolean(body.source);
  const padding = keyRows(body).map((_, i) => Boolean(body.padding?.[i]));
  const specs = [
    ["x", body.x, { tokenAttr: "data-token", labels: body.tokens, padding: cross ? null : padding }],
    ["source_x", cross ? body.source.x : [], { tokenAttr: "data-source-token", labels: body.source?.tokens, padding: cross ? padding : null }],
    ["w_q", body.w_q, {}], ["w_k", body.w_k, {}], ["w_v", body.w_v, {}],
  ];
  for (const [name, rows, opts] of specs) {
    const block = root.querySelector(`[data-block="${name}"]`);
    block.querySelector("table").replaceWith(buildTable(name, rows ?? [], opts));
    clearErrors(block, true);
  }
  root.querySelector("#source-block").hidden = !cross;
  for (const input of root.querySelectorAll("input[type=text]")) input.dataset.committed = input.value;
}

/* ---- errors on cells ---- */

function errorList(block) {
  const box = block.querySelector("[data-role=error]");
  let list = box.querySelector("ul");
  if (!list) {
    list = el("ul");
    box.append(list);
  }
  return list;
}

/** Mark `input` (or, with input null, the whole block) invalid with `message`. */
export function markError(block, input, message, origin) {
  const list = errorList(block);
  const id = input ? `err-${input.dataset.matrix ?? "token"}-${input.dataset.row ?? input.dataset.token ?? input.dataset.sourceToken}-${input.dataset.col ?? "label"}` : `err-${block.dataset.block}`;
  list.querySelector(`#${CSS.escape(id)}`)?.remove();
  const where = input ? input.getAttribute("aria-label") : LABELS[block.dataset.block];
  const item = el("li", { id, "data-origin": origin }, `${where}: ${message}`);
  list.append(item);
  if (input) {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", id);
    input.dataset.origin = origin;
  }
}

/** Remove the mark of one input. */
export function clearError(block, input) {
  const id = input.getAttribute("aria-describedby");
  if (id) block.querySelector(`#${CSS.escape(id)}`)?.remove();
  input.removeAttribute("aria-invalid");
  input.removeAttribute("aria-describedby");
  delete input.dataset.origin;
}

/** Clear the server's marks (origin "server"), or every mark with `all`. */
export function clearErrors(block, all = false) {
  for (const item of block.querySelectorAll("[data-role=error] li")) {
    if (all || item.dataset.origin === "server") item.remove();
  }
  for (const input of block.querySelectorAll("[aria-invalid=true]")) {
    if (all || input.dataset.origin === "server") clearError(block, input);
  }
}

/* ---- spreadsheet keys ---- */

function move(input, dRow, dCol) {
  const tr = input.closest("tr");
  const rows = [...tr.parentElement.children];
  const r = rows.indexOf(tr) + dRow;
  if (r < 0 || r >= rows.length) return;
  const rowInputs = (row) => [...row.querySelectorAll("input[type=text]")];
  const c = rowInputs(tr).indexOf(input) + dCol;
  const target = rowInputs(rows[r])[Math.max(0, Math.min(c, rowInputs(rows[r]).length - 1))];
  if (target && target !== input) {
    target.focus();
    target.select();
  }
}

/** Arrow keys move; Left/Right only when the caret is already at that edge of the text. */
export function handleKey(event, { commit, revert }) {
  const input = event.target;
  const atStart = input.selectionStart === 0;
  const atEnd = input.selectionEnd === input.value.length;
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (event.key in moves) {
    if (event.key === "ArrowLeft" && !atStart) return;
    if (event.key === "ArrowRight" && !atEnd) return;
    event.preventDefault();
    commit(input);
    move(input, ...moves[event.key]);
  } else if (event.key === "Enter") {
    event.preventDefault();
    commit(input);
  } else if (event.key === "Escape") {
    event.preventDefault();
    revert(input);
  }
}
