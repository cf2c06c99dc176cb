/**
 * editor.js — the matrix editor: X (with token labels and padding flags), the source S
 * for cross-attention, W^Q, W^K and W^V; or, for a direct-mode state, Q, K and V. Builds the same markup as
 * templates/macros/editor.html, handles spreadsheet keys (arrows move, Enter commits,
 * Escape reverts) and shows each invalid entry on its cell (aria-invalid plus a message
 * linked by aria-describedby). What was typed is read by numbers.js; nothing is computed.
 * The decisions that need no DOM (windows, keys, where a typed cell goes) are in
 * editor_core.js.
 */

import { setRich } from "./dom.js";
import {
  LABELS,
  WINDOW_STEPS,
  cellLabel,
  errorId,
  isWindowed,
  keyAction,
  leavesWindow,
  specsOf,
  stepTarget,
  windowBarState,
  windowOf as windowAt,
} from "./editor_core.js";

export { WINDOW } from "./editor_core.js";

const origins = {}; // matrix name -> [first row, first column] of its window
let bodyOf = () => null; // the page's current body (set by wireWindows)
let labelChars = null; // the longest token label: the server's limit (setLimits)
import { spokenText } from "./notation_core.js";
import { isDirect } from "./shapes.js";

/** The server's input limits, from #initial-state (``limits``). */
export function setLimits(limits) {
  labelChars = limits?.label_chars ?? null;
}

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(key, value === true ? "" : String(value));
  }
  if (text !== null) node.textContent = text;
  return node;
}

function headRow(name, c0, c1, withPadding, tokenAttr) {
  const tr = el("tr");
  const corner = el("th", { scope: "col" });
  corner.append(el("span", { class: "visually-hidden" }, tokenAttr ? "token" : "row"));
  tr.append(corner);
  if (withPadding)
    tr.append(
      el(
        "th",
        { scope: "col", class: "pad-col", title: "Padding: every query ignores this key" },
        "pad",
      ),
    );
  for (let j = c0; j < c1; j += 1) tr.append(el("th", { scope: "col" }, String(j + 1)));
  return tr;
}

function bodyRow(name, row, i, opts, c0 = 0, c1 = row.length) {
  const tr = el("tr");
  const th = el("th", { scope: "row" });
  if (opts.tokenAttr) {
    th.append(
      el("input", {
        class: "token",
        type: "text",
        [opts.tokenAttr]: i,
        value: opts.labels?.[i] ?? "",
        maxlength: labelChars,
        spellcheck: "false",
        autocomplete: "off",
        "aria-label": `Label of row ${i + 1}`, // rows count from 1 (the notation key)
      }),
    );
  } else {
    th.textContent = String(i + 1);
  }
  tr.append(th);
  if (opts.padding) {
    const td = el("td", { class: "pad-col" });
    td.append(
      el("input", {
        type: "checkbox",
        "data-padding": i,
        checked: Boolean(opts.padding[i]),
        "aria-label": `Row ${i + 1} is padding`,
      }),
    );
    tr.append(td);
  }
  for (let j = c0; j < c1; j += 1) {
    const value = row[j];
    const td = el("td");
    td.append(
      el("input", {
        class: "cell",
        type: "text",
        inputmode: "decimal",
        autocomplete: "off",
        spellcheck: "false",
        "data-matrix": name,
        "data-row": i,
        "data-col": j,
        value: String(value),
        "aria-label": cellLabel(name, i, j),
      }),
    );
    tr.append(td);
  }
  return tr;
}

/** The window [r0, r1) × [c0, c1) of a rows × cols matrix shown by the editor. */
function windowOf(name, rows, cols) {
  const { origin, bounds } = windowAt(origins[name] ?? [0, 0], rows, cols);
  origins[name] = origin;
  return bounds;
}

function buildTable(name, rows, opts) {
  const cols = rows[0]?.length ?? 0;
  const [r0, r1, c0, c1] = windowOf(name, rows.length, cols);
  const table = el("table", {
    class: "grid-editor",
    "aria-describedby": `${name}-hint`,
    "data-window": r1 - r0 < rows.length || c1 - c0 < cols ? `${r0},${c0}` : null,
  });
  const caption = el("caption");
  const title = el("span", { class: "matrix-name" });
  // "W^Q" in the one notation (MathML), as the server's caption_html writes it.
  setRich(title, name.startsWith("w_") ? `W^${name.slice(2).toUpperCase()}` : LABELS[name]);
  caption.append(
    title,
    " ",
    el("span", { class: "shape", "data-role": "shape" }, `${rows.length} × ${cols}`),
  );
  const thead = el("thead");
  thead.append(headRow(name, c0, c1, Boolean(opts.padding), opts.tokenAttr));
  const tbody = el("tbody");
  for (let i = r0; i < r1; i += 1) tbody.append(bodyRow(name, rows[i], i, opts, c0, c1));
  table.append(caption, thead, tbody);
  return table;
}

/** The window's position and the buttons that move it (only for a matrix larger than it). */
function windowBar(name, rows) {
  const cols = rows[0]?.length ?? 0;
  if (!isWindowed(rows.length, cols)) return null;
  const { text: where, disabled } = windowBarState(
    windowOf(name, rows.length, cols),
    rows.length,
    cols,
  );
  const bar = el("div", {
    class: "window-bar row-wrap",
    role: "group",
    "data-role": "window",
    "aria-label": spokenText(`Part of ${LABELS[name]} shown`),
  });
  const button = (step, text, label, off) =>
    el(
      "button",
      {
        type: "button",
        class: "button small",
        "data-window-step": step,
        "aria-label": label,
        disabled: off,
      },
      text,
    );
  bar.append(
    el("span", { class: "window-where" }, where),
    button("up", "↑", spokenText(`Earlier rows of ${LABELS[name]}`), disabled.up),
    button("down", "↓", spokenText(`Later rows of ${LABELS[name]}`), disabled.down),
    button("left", "←", spokenText(`Earlier columns of ${LABELS[name]}`), disabled.left),
    button("right", "→", spokenText(`Later columns of ${LABELS[name]}`), disabled.right),
  );
  return bar;
}

function renderBlock(root, name, rows, opts) {
  const block = root.querySelector(`[data-block="${name}"]`);
  block.querySelector("table").replaceWith(buildTable(name, rows, opts));
  block.querySelector("[data-role=window]")?.remove();
  const bar = windowBar(name, rows);
  if (bar) block.querySelector("table").before(bar);
  for (const input of block.querySelectorAll("input[type=text]"))
    input.dataset.committed = input.value;
  return block;
}

/** Rebuild every matrix table from `body`. */
export function renderEditor(root, body) {
  for (const [name, rows, opts] of specsOf(body))
    clearErrors(renderBlock(root, name, rows ?? [], opts), true);
  const direct = isDirect(body);
  root.querySelector("#source-block").hidden = !body.source || direct;
  root.querySelector("#direct-block").hidden = !direct;
  for (const block of root.querySelectorAll("#x-block, .weights-row")) block.hidden = direct;
}

/** Move the window of matrix `name` by (dRow, dCol) cells; true when it moved. */
function shiftWindow(root, name, dRow, dCol) {
  const body = bodyOf();
  const spec = body && specsOf(body).find(([n]) => n === name);
  if (!spec) return false;
  const rows = spec[1] ?? [];
  const [r, c] = origins[name] ?? [0, 0];
  const before = windowOf(name, rows.length, rows[0]?.length ?? 0);
  origins[name] = [r + dRow, c + dCol];
  if (String(windowOf(name, rows.length, rows[0]?.length ?? 0)) === String(before)) return false;
  clearErrors(renderBlock(root, name, rows, spec[2]), true);
  return true;
}

/** The window buttons; `getBody` gives the body the page shows now. */
export function wireWindows(root, getBody) {
  bodyOf = getBody;
  root.addEventListener("click", (event) => {
    const button = event.target.closest("[data-window-step]");
    if (!button) return;
    const name = button.closest("[data-block]").dataset.block;
    const [dRow, dCol] = WINDOW_STEPS[button.dataset.windowStep];
    shiftWindow(root, name, dRow, dCol);
    root
      .querySelector(`[data-block="${name}"] [data-window-step="${button.dataset.windowStep}"]`)
      ?.focus();
  });
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
  const id = errorId(input?.dataset, block.dataset.block);
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
  const row = rows.indexOf(tr);
  const cells = [...tr.querySelectorAll("input.cell")];
  const atEdge = leavesWindow(row, rows.length, cells.indexOf(input), cells.length, dRow, dCol);
  if (atEdge && input.dataset.matrix && input.closest("table[data-window]")) {
    // A windowed matrix: move the window one cell and go on to the next cell of the matrix.
    const root = input.closest("#editor") ?? document;
    const [i, j] = [Number(input.dataset.row) + dRow, Number(input.dataset.col) + dCol];
    if (shiftWindow(root, input.dataset.matrix, dRow, dCol)) {
      const target = root.querySelector(
        `input[data-matrix="${input.dataset.matrix}"][data-row="${i}"][data-col="${j}"]`,
      );
      target?.focus();
      target?.select();
      return;
    }
  }
  const rowInputs = (each) => [...each.querySelectorAll("input[type=text]")];
  const index = rowInputs(tr).indexOf(input);
  const next = rows[row + dRow] && rowInputs(rows[row + dRow]);
  const to = next && stepTarget(row, index, dRow, dCol, rows.length, next.length);
  const target = to && next[to[1]];
  if (target && target !== input) {
    target.focus();
    target.select();
  }
}

/** Arrow keys move; Left/Right only when the caret is already at that edge of the text. */
export function handleKey(event, { commit, revert }) {
  const input = event.target;
  const action = keyAction(event.key, {
    atStart: input.selectionStart === 0,
    atEnd: input.selectionEnd === input.value.length,
  });
  if (!action) return;
  event.preventDefault();
  if (action === "revert") {
    revert(input);
    return;
  }
  commit(input);
  if (action.move) move(input, ...action.move);
}
