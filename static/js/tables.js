/**
 * tables.js — the one renderer of a data table ({ caption, col_headers, row_headers,
 * cells }: every cell a string the server formatted) as an HTML table with headers a
 * screen reader can walk. Used by the page's figures (the tables under each figure), the
 * embeds and the labs. With `derivations` (a grid of arithmetic lines of the same shape)
 * the cells become a keyboard grid whose focus shows each cell's arithmetic (charts.js
 * wires the keys). Text nodes only (with their notation as MathML, dom.js setRich); no
 * numbers are made here.
 */

import { setRich } from "./dom.js";

function header(scope, text) {
  const th = Object.assign(document.createElement("th"), { scope });
  setRich(th, text);
  return th;
}

/** A <table class="data-table"> for `spec`; headers only where the spec has them. */
export function dataTable(spec, derivations = null) {
  const table = document.createElement("table");
  table.className = "data-table";
  if (derivations) table.setAttribute("role", "grid");
  setRich(table.createCaption(), spec.caption ?? "");
  const rowHeaders = spec.row_headers?.length ? spec.row_headers : null;
  if (spec.col_headers?.length) {
    const head = table.createTHead().insertRow();
    if (rowHeaders)
      head.append(Object.assign(document.createElement("td"), { className: "corner" }));
    for (const label of spec.col_headers) head.append(header("col", label));
  }
  const body = table.createTBody();
  spec.cells.forEach((row, i) => {
    const tr = body.insertRow();
    if (rowHeaders) tr.append(header("row", rowHeaders[i] ?? ""));
    row.forEach((text, j) => {
      const td = tr.insertCell();
      setRich(td, text);
      if (derivations) {
        td.tabIndex = i === 0 && j === 0 ? 0 : -1;
        td.dataset.derivation = derivations[i]?.[j] ?? "";
      }
    });
  });
  return table;
}
