/**
 * widget.js — the notebook widget's front end (attention_lab/widget.py), bundled with its
 * imports into attention_lab/static/widget.js by `npm run build:widget`. It draws the
 * figure description the kernel sends (`spec`) with the page's own panels.js + grid.js,
 * in place on every change, and tells the kernel whether the notebook is light or dark
 * (the kernel then rebuilds the figure in that palette). No maths here.
 */

import { drawPanels } from "./panels.js";

/** "dark" when JupyterLab (or the system, outside it) shows a dark theme. */
function notebookTheme() {
  const light = document.body?.dataset?.jpThemeLight;
  if (light !== undefined) return light === "true" ? "light" : "dark";
  return globalThis.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function paint(model, root, plot, note) {
  const spec = model.get("spec");
  const theme = model.get("theme");
  root.style.colorScheme = theme;
  root.dataset.theme = theme;
  note.textContent = model.get("error");
  note.hidden = !model.get("error");
  if (spec?.panels) drawPanels(plot, spec);
  root.querySelector(".attention-lab-title").textContent =
    `Figure ${spec?.number ?? ""}. ${spec?.title ?? ""}`;
  root.dataset.painted = String(Number(root.dataset.painted ?? 0) + 1);
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "attention-lab-widget";
  root.dataset.figure = "";
  const title = document.createElement("p");
  title.className = "attention-lab-title";
  const plot = document.createElement("div");
  const note = document.createElement("p");
  note.className = "attention-lab-error";
  note.setAttribute("role", "alert");
  root.append(title, plot, note);
  el.replaceChildren(root);
  const redraw = () => paint(model, root, plot, note);
  model.on("change:spec", redraw);
  model.on("change:error", redraw);
  redraw();
  const follow = () => {
    const theme = notebookTheme();
    if (theme === model.get("theme")) return;
    model.set("theme", theme);
    model.save_changes();
  };
  follow();
  // JupyterLab switches theme by an attribute on <body>: follow it while the view lives.
  const watcher = new MutationObserver(follow);
  if (document.body) {
    watcher.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  }
  return () => {
    watcher.disconnect();
    model.off("change:spec", redraw);
    model.off("change:error", redraw);
  };
}

export default { render };
