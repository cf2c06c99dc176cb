/**
 * panels.js — lays out a figure description's `panels` (rows of grids, "×", "=" and
 * labelled arrows; see app/figures/to_plotly.py) and draws each grid with grid.js,
 * updating in place when the layout is unchanged. Figure 3's `steps` reveal cells and
 * outline marks; every step keeps what came before visible. No numbers are made here.
 */

import { setRich } from "./dom.js";
import { renderGrid } from "./grid.js";

function signature(panels) {
  return panels
    .map((row) =>
      row
        .map((item) =>
          item.grid ? `g:${item.grid.grid}` : `o:${item.op ?? ""}:${item.arrow ?? ""}`,
        )
        .join(","),
    )
    .join("|");
}

function build(root, panels) {
  const rows = panels.map((row) => {
    const div = document.createElement("div");
    div.className = "panel-row";
    for (const item of row) {
      if (item.grid) {
        const host = document.createElement("div");
        host.className = "grid-host";
        div.append(host);
      } else {
        const op = document.createElement("span");
        op.className = item.arrow ? "op arrow" : `op ${item.op === "×" ? "times" : "equals"}`;
        setRich(op, item.arrow ?? item.op);
        if (!item.arrow) op.setAttribute("aria-hidden", "true");
        div.append(op);
      }
    }
    return div;
  });
  root.replaceChildren(...rows);
}

/** Draw `fig.panels` into `plot` (in place when only numbers changed). */
export function drawPanels(plot, fig, onCell) {
  let root = plot.querySelector(":scope > .panels");
  const sig = signature(fig.panels);
  if (!root) {
    root = document.createElement("div");
    root.className = "panels";
    plot.replaceChildren(root);
  }
  if (root.dataset.signature !== sig) {
    build(root, fig.panels);
    root.dataset.signature = sig;
  }
  const rows = root.children;
  fig.panels.forEach((row, r) => {
    const hosts = rows[r].querySelectorAll(":scope > .grid-host");
    let k = 0;
    for (const item of row) {
      if (item.grid) renderGrid(hosts[k++], item.grid, { onCell });
    }
  });
  return root;
}

/** Show one of `fig.steps`: reveal the first `show[name]` cells of a grid (all when not
 * listed; {row, cols}: the first cells of one row) and outline `marks[name]` (rows,
 * cols, cells) instead of the grid's own. */
export function showStep(plot, fig, step) {
  const root = plot.querySelector(":scope > .panels");
  if (!root) return;
  const grids = [];
  for (const row of fig.panels) for (const item of row) if (item.grid) grids.push(item.grid);
  const elements = root.querySelectorAll("[data-grid]");
  grids.forEach((desc, index) => {
    const el = elements[index];
    if (!el) return;
    const shown = step?.show?.[desc.grid];
    // a number: the first cells in reading order; {row, cols}: the first cells of one row
    const limit = shown === undefined ? Infinity : typeof shown === "number" ? shown : -1;
    const visible = (i, j) =>
      limit >= 0 ? i * desc.shape[1] + j < limit : i === shown.row && j < shown.cols;
    el.closest(".grid-host")?.classList.toggle("step-hidden", limit === 0);
    const marks = step?.marks?.[desc.grid] ?? (step ? {} : (desc.outline ?? {}));
    const rows = new Set(marks.rows ?? []);
    const cols = new Set(marks.cols ?? []);
    const cells = new Set((marks.cells ?? []).map(([i, j]) => `${i},${j}`));
    if (el.tagName !== "TABLE") return;
    for (const tr of el.tBodies[0].rows)
      tr.classList.toggle("outlined", rows.has(tr.sectionRowIndex));
    for (const td of el.querySelectorAll("td[data-row]")) {
      const i = Number(td.dataset.row);
      const j = Number(td.dataset.col);
      td.classList.toggle("pending", !visible(i, j));
      td.classList.toggle("col-outlined", cols.has(j));
      td.classList.toggle("cell-outlined", cells.has(`${i},${j}`));
    }
  });
}
