/**
 * lessons/figures.js — draws one lesson step's figures with the page's own renderers:
 * main-page figures as the page draws them (charts.js drawGrids for number grids, draw
 * for Plotly charts; Figures 1 and 2 from the page's static drawings), a lab section with
 * the lab renderer (labs/render.js). The descriptions come from the player's source (the
 * API online, the inlined data offline); nothing is computed here.
 */

import { draw, drawGrids } from "../charts.js";
import { setRich } from "../dom.js";
import { renderFigure } from "../labs/render.js";
import { plotly } from "../plotly.js";
import { dataTable } from "../tables.js";

function el(tag, attrs = {}, children = []) {
  const node = Object.assign(document.createElement(tag), attrs);
  node.append(...children);
  return node;
}

function role(tag, name, attrs = {}) {
  const node = el(tag, attrs);
  node.dataset.role = name;
  return node;
}

/** The lean answer sends each shared grid once (`ref`): put the descriptions back. */
export function resolveRefs(figures, grids) {
  for (const fig of Object.values(figures)) {
    for (const row of fig.panels ?? []) {
      row.forEach((item, k) => {
        if (item.ref) row[k] = { grid: { ...grids[item.ref], outline: item.outline ?? {} } };
      });
    }
  }
  return figures;
}

function panelShell(id, number, heading) {
  const title = role("span", "title");
  const h = el("h3", { id: `${id}-title` }, [
    el("span", { className: "fig-number", textContent: number }),
    " ",
    title,
  ]);
  const section = el("section", { className: "figure-panel lesson-figure", id }, [
    el("div", { className: "figure-head" }, [h]),
  ]);
  section.setAttribute("aria-labelledby", `${id}-title`);
  setRich(title, heading ?? "");
  return section;
}

function plotBox(label) {
  const plot = role("div", "plot", { className: "plot" });
  plot.setAttribute("role", "figure");
  plot.setAttribute("aria-label", label);
  const box = el("div", { className: "plot-scroll", tabIndex: 0 }, [plot]);
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", `${label} (scrolls sideways on narrow screens)`);
  return box;
}

/** A main-page figure's panel, drawn from its description. */
async function mainFigure(host, n, fig, prefix) {
  const panel = panelShell(`${prefix}-fig-${n}`, `Figure ${n}`, fig.title);
  panel.dataset.figure = String(n);
  const caption = role("p", "caption", { className: "caption" });
  setRich(caption, fig.caption ?? "");
  const derivation = role("p", "derivation", { className: "derivation" });
  derivation.setAttribute("aria-live", "polite");
  derivation.hidden = !fig.panels;
  const readout = role("ul", "readout", { className: "readout" });
  for (const line of fig.readout ?? []) {
    const li = el("li");
    setRich(li, line);
    readout.append(li);
  }
  panel.append(caption, plotBox(`Figure ${n}: ${fig.alt ?? fig.title ?? ""}`), derivation, readout);
  if (!fig.panels && fig.tables?.length) {
    const tables = el("details", { className: "tables" }, [
      el("summary", { textContent: `Figure ${n} as tables` }),
      el(
        "div",
        {},
        fig.tables.map((spec) => dataTable(spec)),
      ),
    ]);
    panel.append(tables);
  }
  host.append(panel);
  if (fig.panels) {
    setRich(
      derivation,
      "Point at a cell, or Tab into a grid and move with the arrow keys, to see its arithmetic.",
    );
    return drawGrids(panel, fig);
  }
  await plotly();
  return draw(panel, fig);
}

function staticFigure(host, n, source) {
  const node = source.staticFigure(n);
  if (node) host.append(node);
}

/** A lab section's panel: the parts labs/render.js fills. */
async function labFigure(host, fig, prefix) {
  const panel = panelShell(`${prefix}-lab-${fig.name}`, fig.entry ?? "", fig.title);
  panel.classList.add("lab-panel");
  panel.dataset.figure = fig.name;
  const derivation = role("p", "derivation", { className: "derivation" });
  derivation.setAttribute("aria-live", "polite");
  const plot = plotBox(`${fig.entry ?? ""}: ${fig.alt ?? fig.title ?? ""}`);
  plot.dataset.role = "plot-box";
  panel.append(
    role("p", "caption", { className: "caption" }),
    role("div", "primary-tables", { className: "lab-tables" }),
    plot,
    role("div", "grid", { className: "lab-grid", hidden: true }),
    derivation,
    role("ul", "readout", { className: "readout" }),
    role("div", "quotes", { className: "quotes" }),
  );
  host.append(panel);
  if (fig.plot) await plotly();
  return renderFigure(panel, { ...fig, reveal: null });
}

/** Draw step data (`{kind: "main", figures: {n: fig}, numbers}` or `{kind: "lab",
 * figure}`) into `host`, replacing what it held; element ids start with `prefix`. */
export async function drawStep(host, data, source, prefix = "lesson") {
  host.replaceChildren();
  if (data.kind === "lab") return labFigure(host, data.figure, prefix);
  if (data.after) return beforeAndAfter(host, data, source, prefix);
  const drawn = [];
  for (const n of data.numbers) {
    const fig = data.figures[String(n)];
    if (fig) drawn.push(mainFigure(host, n, fig, prefix));
    else staticFigure(host, n, source);
  }
  return Promise.all(drawn);
}

/** A direction question's step: its state ("Before") and under it the changed state
 * ("After the change", `data-after`), which stays out of sight until the reveal marks the
 * slot `data-revealed` (player.js; laid out meanwhile, so its charts get their width).
 * Both are the server's figures, each outlining the row the question asks about. */
function beforeAndAfter(host, data, source, prefix) {
  const half = (name, heading) => {
    const inner = el("div");
    const box = el("div", { className: "lesson-state" }, [
      el("p", { className: "lesson-state-name", textContent: heading }),
      inner,
    ]);
    box.dataset.state = name;
    host.append(box);
    return [box, inner];
  };
  const [, before] = half("before", "Before");
  const [afterBox, after] = half("after", "After the change");
  afterBox.dataset.after = "";
  const { after: changed, ...own } = data;
  return Promise.all([
    drawStep(before, own, source, prefix),
    drawStep(after, changed, source, `${prefix}-after`),
  ]);
}

/** The grid elements of stage grids named `names` inside `host`, first match first. */
export function stageGrids(host, names) {
  return names.flatMap((name) => [
    ...host.querySelectorAll(`table[data-grid="${CSS.escape(name)}"]`),
  ]);
}
