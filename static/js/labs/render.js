/**
 * labs/render.js — draws one lab figure description (app/figures/labs) into its panel:
 * text (caption, readout, quotations, warnings, the stop-and-try answer), tables
 * (tables.js), the Plotly chart and the number grid. Shared by the lab page and
 * the lab embeds. No numbers are made here: every string arrives formatted.
 */

import { siteUrl } from "../api.js";
import { part, setRich } from "../dom.js";
import { renderGrid } from "../grid.js";
import { spokenText } from "../notation_core.js";
import { dataTable } from "../tables.js";
import { renderGuess } from "./guess.js";

function setList(el, items, make) {
  if (el) el.replaceChildren(...(items ?? []).map(make));
}

/** A quotation: its source in bold (linked to the sources page when the server names
 * one by title), then the text. */
function quote(q) {
  const p = document.createElement("p");
  p.className = `quote quote-${q.kind ?? "source"}`;
  const who = document.createElement("strong");
  if (q.href) {
    // the server writes site paths ("/sources#…"): under the root path behind a proxy
    who.append(
      Object.assign(document.createElement("a"), { href: siteUrl(q.href), textContent: q.source }),
    );
    who.append(": ");
  } else who.textContent = `${q.source}: `;
  const text = document.createElement("span");
  setRich(text, q.text);
  p.append(who, text);
  return p;
}

function renderText(panel, fig) {
  const set = (role, text) => {
    const el = part(panel, role);
    if (el) setRich(el, text ?? "");
  };
  set("title", fig.title);
  set("caption", fig.caption);
  setList(part(panel, "readout"), fig.readout, (line) => {
    const li = document.createElement("li");
    setRich(li, line);
    return li;
  });
  setList(
    part(panel, "quotes"),
    [
      ...(fig.quotes ?? []),
      ...(fig.warnings ?? []).map((text) => ({ source: "Note", text, kind: "warning" })),
    ],
    quote,
  );
  renderGuess(panel, fig.reveal ?? null);
  relabelChoices(panel, fig.choice_labels);
}

/** A figure may name the options of its choice controls for the state it drew
 * (`choice_labels`: B2's rows become "love (row 2)"): options past the list are hidden. */
function relabelChoices(panel, labels) {
  for (const [name, list] of Object.entries(labels ?? {})) {
    const select = panel.querySelector(`[data-control="${CSS.escape(name)}"] select`);
    if (!select) continue;
    [...select.options].forEach((option, i) => {
      const shown = i < list.length;
      if (shown) option.textContent = list[i];
      option.hidden = !shown;
      option.disabled = !shown;
    });
  }
}

const pendingTables = new WeakMap(); // panel -> tables not built yet (their details are closed)

/** The table view is built at once; a chart's table alternative when its details open
 * (a slider drag then redraws the chart only). */
function renderTables(panel, fig) {
  const primary = part(panel, "primary-tables");
  const alt = part(panel, "alt-tables");
  if (fig.table_view) {
    primary?.replaceChildren(...(fig.tables ?? []).map((spec) => dataTable(spec)));
    if (alt) alt.hidden = true;
    return;
  }
  primary?.replaceChildren();
  if (!alt) return;
  alt.hidden = (fig.tables ?? []).length === 0;
  pendingTables.set(panel, fig.tables ?? []);
  if (!alt.dataset.wired) {
    alt.dataset.wired = "1";
    alt.addEventListener("toggle", () => alt.open && buildPending(panel));
  }
  if (alt.open) buildPending(panel);
}

function buildPending(panel) {
  const tables = pendingTables.get(panel);
  if (!tables) return;
  pendingTables.delete(panel);
  part(panel, "tables")?.replaceChildren(...tables.map((spec) => dataTable(spec)));
}

/** The grids of a figure, each under its heading and badge, updated in place. */
function renderGrids(panel, grids) {
  const box = part(panel, "grid");
  if (!box) return;
  box.hidden = grids.length === 0;
  while (box.children.length > grids.length) box.lastElementChild.remove();
  grids.forEach((item, i) => {
    let slot = box.children[i];
    if (!slot) {
      slot = document.createElement("div");
      slot.className = "lab-grid-item";
      const heading = Object.assign(document.createElement("p"), { className: "grid-heading" });
      const host = Object.assign(document.createElement("div"), { className: "grid-host" });
      slot.append(heading, host);
      box.append(slot);
    }
    slot.dataset.badge = item.badge ?? "";
    const heading = slot.querySelector(".grid-heading");
    setRich(heading, item.heading ?? "");
    if (item.badge) {
      const badge = Object.assign(document.createElement("span"), {
        className: "badge grid-badge",
        textContent: item.badge,
      });
      heading.append(" ", badge);
    }
    renderGrid(slot.querySelector(".grid-host"), item.desc, {
      onCell: (info) => {
        const line = part(panel, "derivation");
        if (line && info) setRich(line, info.hover ?? `${info.desc.label} ${info.text}`);
      },
    });
  });
}

const dragHandlers = new WeakMap(); // plot element -> the current drag callback

/** A figure with `drag` ({control, shape}) lets the reader drag that shape's end: the
 * callback receives the end's position as Plotly reports it (the server snaps it). */
function wireDrag(plot, fig, onDrag) {
  dragHandlers.set(plot, fig.drag && onDrag ? (x, y) => onDrag(fig.drag.control, x, y) : null);
  if (plot.dataset.dragWired) return;
  plot.dataset.dragWired = "1";
  plot.on("plotly_relayout", (event) => {
    const handler = dragHandlers.get(plot);
    const x = event?.[`shapes[0].x1`];
    const y = event?.[`shapes[0].y1`];
    if (handler && x !== undefined && y !== undefined) handler(x, y);
  });
}

/** Draw `fig` into `panel`: text, tables, number grids and the Plotly chart.
 * options.onDrag(control, x, y) makes a figure's `drag` shape editable. */
export async function renderFigure(panel, fig, options = {}) {
  renderText(panel, fig);
  renderTables(panel, fig);
  renderGrids(panel, fig.grids ?? []);
  const line = part(panel, "derivation");
  if (line) {
    line.hidden = !(fig.grids ?? []).length;
    setRich(
      line,
      fig.grid_hint ??
        "Point at a cell, or tab into a grid and use the arrow keys, to see its arithmetic.",
    );
  }
  const box = part(panel, "plot-box") ?? part(panel, "plot");
  const plot = part(panel, "plot");
  box.hidden = !fig.plot;
  plot.setAttribute("aria-label", spokenText(fig.alt ?? fig.title ?? ""));
  if (fig.plot) {
    const config = { ...(fig.plot.config ?? {}) };
    if (!(fig.drag && options.onDrag)) delete config.edits;
    await window.Plotly.react(plot, fig.plot.data, fig.plot.layout, config);
    wireDrag(plot, fig, options.onDrag);
  }
}
