/**
 * share.js — the main page's per-figure "Embed", "Link", PNG/SVG and "Copy as NumPy"
 * buttons, and the stage downloads. The server builds every snippet and export (oEmbed,
 * /api/v1/export); this module only asks for them, copies text and saves files. No maths.
 *
 * All functions take the page state { body, view } (as in state.js) and an optional
 * presetId (kept in links while the body is the unchanged preset). Copy functions resolve
 * to the copied text (so the page can also show it) and reject with a readable Error.
 */

import { getJSON, postJSON, send } from "./api.js";
import { plotly } from "./plotly.js";
import { figuresView, toQuery } from "./state.js";

const SLIDE = { width: 800, height: 450, scale: 2 }; // 1600 × 900 pixels

/** Copy text; falls back to a hidden textarea where the Clipboard API is unavailable. */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return text;
  }
  const area = Object.assign(document.createElement("textarea"), { value: text, readOnly: true });
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("the browser refused to copy; select the text and copy it by hand");
  return text;
}

/** The page URL of this state, scrolled to figure N when given. */
export function linkFor(state, presetId = null, figure = null) {
  const hash = figure ? `#fig-${figure}` : "";
  return `${window.location.origin}/?${toQuery(state, presetId)}${hash}`;
}

/** The embed URL of figure N in this state. */
export function embedUrl(figure, state, presetId = null) {
  return `${window.location.origin}/embed/${figure}?${toQuery(state, presetId)}`;
}

/** The <iframe> snippet for figure N (built by the server's oEmbed endpoint). */
export async function embedSnippet(figure, state, presetId = null) {
  const url = encodeURIComponent(embedUrl(figure, state, presetId));
  return (await getJSON(`/oembed?format=json&url=${url}`)).html;
}

function viewQuery(view) {
  const params = new URLSearchParams();
  for (const key of ["focus", "head", "stretch", "row"]) {
    if (view?.[key] !== undefined && view[key] !== null) params.set(key, String(view[key]));
  }
  return params.toString();
}

function postExport(state, format) {
  const url = `/api/v1/export?format=${format}&${viewQuery(state.view)}`;
  return send(url, { json: state.body, accept: "*/*" });
}

/** The numpy-only Python script (text) that recomputes and prints every stage of this state. */
export async function numpySnippet(state) {
  return (await postExport(state, "numpy")).text();
}

function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement("a"), { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Download every stage: format "csv" (a zip of CSV files) or "json". */
export async function downloadStages(state, format = "csv") {
  const response = await postExport(state, format);
  const named = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "");
  const filename = named ? named[1] : `attention-lab-state.${format === "csv" ? "zip" : "json"}`;
  saveBlob(await response.blob(), filename);
  return filename;
}

function textOf(figureEl, selectors) {
  for (const selector of selectors) {
    const el = figureEl.querySelector(selector);
    if (el?.textContent?.trim()) return el.textContent.trim();
  }
  return "";
}

/** Break a caption into lines of at most `width` characters at spaces (layout, not maths). */
function wrap(text, width = 105) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * A figure the page draws as grids, as the server's Plotly conversion of the same
 * description (the one converter, app/figures/to_plotly.py): { data, layout }.
 */
async function plotlyTwin(figureEl, state) {
  if (!state) return null;
  const number = Number(figureEl.dataset.figure);
  const theme = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
  const view = figuresView(state.view, theme, [number]);
  const fig = (await postJSON("/api/v1/figures", { ...state.body, view })).figures[String(number)];
  return { data: fig.data, layout: fig.layout };
}

/**
 * Save the figure inside `figureEl` (an element holding one Plotly plot, e.g. #fig-6) as
 * "png" or "svg" at slide size (1600 × 900), with its title and caption printed under
 * the plot exactly as the server wrote them.
 */
export async function downloadImage(figureEl, format = "png", state = null) {
  const plot = figureEl.querySelector(".js-plotly-plot") ?? (await plotlyTwin(figureEl, state));
  if (!plot) throw new Error("this figure has no plot to save");
  const number = figureEl.id.replace(/^fig-/, "");
  const title = textOf(figureEl, ['[data-role="title"]', '[data-field="title"]', "h2", "h1"]);
  const caption = wrap(
    textOf(figureEl, ['[data-role="caption"]', '[data-field="caption"]', "figcaption p"]),
  );
  const layout = structuredClone(plot.layout);
  Object.assign(layout, { width: SLIDE.width, height: SLIDE.height, autosize: false });
  // The page's background, so light-on-dark figures stay readable outside the page.
  const background = getComputedStyle(document.body).backgroundColor;
  layout.paper_bgcolor = /rgba\(.*,\s*0\)$|transparent/.test(background) ? "#ffffff" : background;
  layout.title = {
    text: `Figure ${number}. ${title}`,
    x: 0.01,
    xanchor: "left",
    y: 0.98,
    yanchor: "top",
    yref: "container",
  };
  layout.margin = { ...(layout.margin ?? {}), t: 120, b: 50 + 16 * caption.length };
  layout.annotations = [
    ...(layout.annotations ?? []),
    {
      text: caption.join("<br>"),
      showarrow: false,
      xref: "paper",
      yref: "paper",
      x: 0,
      y: 0,
      xanchor: "left",
      yanchor: "top",
      yshift: -30,
      align: "left",
      font: { size: 12 },
    },
  ];
  const Plotly = await plotly();
  const holder = document.createElement("div");
  holder.style.position = "fixed";
  holder.style.left = "-10000px";
  document.body.append(holder);
  try {
    await Plotly.newPlot(holder, structuredClone(plot.data), layout, { staticPlot: true });
    await Plotly.downloadImage(holder, {
      format,
      filename: `attention-lab-figure-${number}`,
      ...SLIDE,
    });
  } finally {
    Plotly.purge(holder);
    holder.remove();
  }
}
