/**
 * labs/render.js — draws one lab figure description (app/figures/labs) into its panel:
 * text (caption, readout, quotations, warnings, the stop-and-try answer), tables
 * (textContent only), the Plotly chart and the number grid. Shared by the lab page and
 * the lab embeds. No numbers are made here: every string arrives formatted.
 */

const ROLES = ["title", "caption", "readout", "quotes", "tables", "primary-tables", "plot",
  "plot-box", "grid", "reveal", "question", "answer", "alt-tables"];

export function part(panel, role) {
  return panel.querySelector(`[data-role="${role}"]`);
}

export { ROLES };

/** A data table from {caption, col_headers, row_headers, cells}. */
export function buildTable(spec) {
  const table = document.createElement("table");
  table.className = "data-table";
  table.createCaption().textContent = spec.caption ?? "";
  if (spec.col_headers?.length) {
    const head = table.createTHead().insertRow();
    if (spec.row_headers?.length) head.append(Object.assign(document.createElement("td"), { className: "corner" }));
    for (const label of spec.col_headers) {
      head.append(Object.assign(document.createElement("th"), { scope: "col", textContent: label }));
    }
  }
  const body = table.createTBody();
  spec.cells.forEach((row, i) => {
    const tr = body.insertRow();
    if (spec.row_headers?.length) {
      tr.append(Object.assign(document.createElement("th"), { scope: "row", textContent: spec.row_headers[i] ?? "" }));
    }
    for (const text of row) tr.insertCell().textContent = text;
  });
  return table;
}

function setList(el, items, make) {
  if (el) el.replaceChildren(...(items ?? []).map(make));
}

function quote(q) {
  const p = document.createElement("p");
  p.className = `quote quote-${q.kind ?? "source"}`;
  const who = Object.assign(document.createElement("strong"), { textContent: `${q.source}: ` });
  p.append(who, document.createTextNode(q.text));
  return p;
}

function renderText(panel, fig) {
  const set = (role, text) => { const el = part(panel, role); if (el) el.textContent = text ?? ""; };
  set("title", fig.title);
  set("caption", fig.caption);
  setList(part(panel, "readout"), fig.readout, (line) => Object.assign(document.createElement("li"), { textContent: line }));
  setList(part(panel, "quotes"), [...(fig.quotes ?? []), ...(fig.warnings ?? []).map((text) => ({ source: "Note", text, kind: "warning" }))], quote);
  const reveal = part(panel, "reveal");
  if (reveal) {
    reveal.hidden = !fig.reveal;
    if (fig.reveal) {
      set("question", fig.reveal.question);
      set("answer", fig.reveal.answer);
    }
  }
}

function renderTables(panel, fig) {
  const tables = (fig.tables ?? []).map(buildTable);
  const primary = part(panel, "primary-tables");
  const alt = part(panel, "alt-tables");
  if (fig.table_view) {
    primary?.replaceChildren(...tables);
    if (alt) alt.hidden = true;
  } else {
    primary?.replaceChildren();
    if (alt) alt.hidden = tables.length === 0;
    part(panel, "tables")?.replaceChildren(...tables);
  }
}

/** Draw `fig` into `panel`; `grid` is the grid renderer's draw(container, description). */
export async function renderFigure(panel, fig, { grid = null } = {}) {
  renderText(panel, fig);
  renderTables(panel, fig);
  const box = part(panel, "plot-box") ?? part(panel, "plot");
  const plot = part(panel, "plot");
  box.hidden = !fig.plot;
  plot.setAttribute("aria-label", fig.alt ?? fig.title ?? "");
  const gridBox = part(panel, "grid");
  if (gridBox) {
    gridBox.hidden = !fig.grid;
    if (fig.grid && grid) grid(gridBox, fig.grid);
  }
  if (fig.plot) {
    await window.Plotly.react(plot, fig.plot.data, fig.plot.layout, fig.plot.config ?? {});
  }
}
