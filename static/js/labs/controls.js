/**
 * labs/controls.js — reads and writes the lab controls rendered by templates/labs/macros.html.
 * A control is a [data-control] element with data-key (its URL key) and data-kind; its
 * value travels as the URL text the server parses (app/figures/labs/controls.py): a
 * number as typed, a toggle 1/0, a vector "2,1,0", a matrix "3,-3;1,1", a steps slider
 * the listed value at its position, a multi choice "4,16,64". No parsing or maths here.
 */

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
      return parts.map((i) => i.value.trim()).join(",");
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
    // Square matrices of a chosen size (masks' S) carry a row prefix; others (B1's Q, K, V)
    // keep their columns and take a number of rows.
    if (el.dataset.rowPrefix !== undefined) reshapeMatrix(el, rows.length, rows[0]?.length ?? 0);
    else resizeMatrix(el, described, rows.length);
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

/** A matrix whose number of rows follows another control (B1's L): add rows (copies of
 * the last, relabelled) or remove them until the editor has `count` rows. */
function resizeMatrix(el, described, count) {
  const body =
    el.querySelector("table.matrix-input tbody") ?? el.querySelector("table.matrix-input");
  const rows = () => [...body.querySelectorAll(":scope > tr")];
  while (rows().length > count && rows().length > 1) rows().at(-1).remove();
  while (rows().length < count) {
    const r = rows().length;
    const tr = rows().at(-1).cloneNode(true);
    const name = described?.labels?.[r] ?? String(r);
    tr.querySelector("th").textContent = name;
    for (const input of tr.querySelectorAll("input")) {
      const c = input.dataset.col;
      input.dataset.row = String(r);
      input.id = input.id.replace(/-\d+-(\d+)$/, `-${r}-$1`);
      input.setAttribute("aria-label", `${described?.label ?? ""} ${name}, column ${c}`);
      input.removeAttribute("aria-invalid");
    }
    body.append(tr);
  }
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

/**
 * A square matrix control (data-row-prefix) whose canonical text has another shape gets
 * that many rows and columns of inputs: kept cells stay, new ones are filled by the
 * caller from the server's text. Row headers are the prefix and the 0-based row.
 */
function reshapeMatrix(el, nRows, nCols) {
  const body =
    el.querySelector("table.matrix-input tbody") ?? el.querySelector("table.matrix-input");
  const legend = el.querySelector("legend")?.textContent ?? "";
  const template = inputs(el)[0];
  const rows = [...body.querySelectorAll("tr")];
  if (rows.length === nRows && rows.every((tr) => tr.querySelectorAll("input").length === nCols))
    return;
  rows.slice(nRows).forEach((tr) => tr.remove());
  for (let r = 0; r < nRows; r += 1) {
    let tr = body.querySelectorAll("tr")[r];
    if (!tr) {
      tr = document.createElement("tr");
      const th = document.createElement("th");
      th.scope = "row";
      th.textContent = `${el.dataset.rowPrefix}${r}`;
      tr.append(th);
      body.append(tr);
    }
    const cells = [...tr.querySelectorAll("td")];
    cells.slice(nCols).forEach((td) => td.remove());
    for (let c = cells.length; c < nCols; c += 1) {
      const input = template.cloneNode(false);
      input.id = `${template.id.replace(/-\d+-\d+$/, "")}-${r}-${c}`;
      input.dataset.row = String(r);
      input.dataset.col = String(c);
      input.value = "0";
      input.removeAttribute("aria-invalid");
      input.setAttribute("aria-label", `${legend} ${el.dataset.rowPrefix}${r}, column ${c}`);
      const td = document.createElement("td");
      td.append(input);
      tr.append(td);
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
