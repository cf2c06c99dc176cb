/**
 * share.js — the main page's per-figure "Embed", "Link", PNG/SVG/HTML and "Copy as
 * NumPy" buttons, and the stage downloads. The server builds every snippet and export (oEmbed,
 * /api/v1/export); this module only asks for them and saves files. No maths.
 *
 * All functions take the page state { body, view } (as in state.js) and an optional
 * presetId (kept in links while the body is the unchanged preset); they resolve to the
 * text or file name and reject with a readable Error. Copying is toolbar.js's.
 */

import { getJSON, send, siteUrl } from "./api.js";
import { saveBlob, saveSlide, saveSvg } from "./slide.js";
import { figureLink, toQuery, viewQuery as stateViewQuery } from "./state.js";

/**
 * The page URL of this state naming figure N when given (`fig=N`, so the page's oEmbed
 * discovery embeds it, and `#fig-N` to scroll); `modelQuery` (a real model's head,
 * model=…&text=…&layer=…&head=…) stands for the body while it is that head's.
 */
export function linkFor(state, presetId = null, figure = null, modelQuery = null) {
  const query = modelQuery
    ? [modelQuery, stateViewQuery(state.view)].filter(Boolean).join("&")
    : toQuery(state, presetId);
  return `${window.location.origin}${siteUrl(`/${figureLink(query, figure)}`)}`;
}

/**
 * The embed URL of figure N in this state; `modelQuery` (a real model's head) stands for
 * the body while it is that head's, as in `linkFor`: the server runs the model for the
 * embed (app/web/model_embed.py), so the snippet stays short.
 */
export function embedUrl(figure, state, presetId = null, modelQuery = null) {
  const query = modelQuery
    ? [modelQuery, stateViewQuery(state.view)].filter(Boolean).join("&")
    : toQuery(state, presetId);
  return `${window.location.origin}${siteUrl(`/embed/${figure}?${query}`)}`;
}

/** The <iframe> snippet for the embed URL `url` (built by the server's oEmbed endpoint). */
export async function snippetFor(url) {
  return (await getJSON(siteUrl(`/oembed?format=json&url=${encodeURIComponent(url)}`))).html;
}

/** The <iframe> snippet for figure N (built by the server's oEmbed endpoint). */
export async function embedSnippet(figure, state, presetId = null, modelQuery = null) {
  return snippetFor(embedUrl(figure, state, presetId, modelQuery));
}

function viewQuery(view) {
  const params = new URLSearchParams();
  for (const key of ["focus", "head", "stretch", "row"]) {
    if (view?.[key] !== undefined && view[key] !== null) params.set(key, String(view[key]));
  }
  return params.toString();
}

function postExport(state, format) {
  const url = siteUrl(`/api/v1/export?format=${format}&${viewQuery(state.view)}`);
  return send(url, { json: state.body, accept: "*/*" });
}

/** The numpy-only Python script (text) that recomputes and prints every stage of this state. */
export async function numpySnippet(state) {
  return (await postExport(state, "numpy")).text();
}

/** Download every stage: format "csv" (a zip of CSV files) or "json". */
export async function downloadStages(state, format = "csv") {
  const response = await postExport(state, format);
  const filename = filenameOf(response, `attention-lab-state.${format === "csv" ? "zip" : "json"}`);
  saveBlob(await response.blob(), filename);
  return filename;
}

function textOf(figureEl, selectors) {
  for (const selector of selectors) {
    const el = figureEl.querySelector(selector);
    // the text as the server wrote it (W^Q, d_k), not MathML's leaves ("dk")
    const text = el?.dataset.notation ?? el?.textContent;
    if (text?.trim()) return text.trim();
  }
  return "";
}

/** The URL of a file the server draws from this state: `path` under /api/v1/export/. */
export function exportUrl(path, state, presetId, params) {
  const query = new URLSearchParams(toQuery(state, presetId));
  for (const [key, value] of Object.entries(params)) query.set(key, String(value));
  return siteUrl(`/api/v1/export/${path}?${query}`);
}

function drawnTheme() {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}

/** The file name the server gives in Content-Disposition, else `fallback`. */
function filenameOf(response, fallback) {
  const named = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "");
  return named ? named[1] : fallback;
}

/**
 * Save figure N as "png" or "svg", laid out for its size. A figure drawn as number grids
 * is the server's SVG (heading, grids, legend, caption; the PNG is that SVG at twice its
 * size); a chart is its Plotly plot with the title and caption printed with it.
 * Resolves with the image's { width, height } in pixels.
 */
export async function downloadImage(figureEl, format = "png", state = null, presetId = null) {
  const number = Number(figureEl.dataset.figure ?? figureEl.id.replace(/^fig-/, ""));
  const filename = `attention-lab-figure-${number}`;
  const plot = figureEl.querySelector(".js-plotly-plot");
  if (!plot) {
    if (!state) throw new Error("this figure is not drawn yet");
    const url = exportUrl("figure.svg", state, presetId, { figure: number, theme: drawnTheme() });
    const text = await (await send(url, { accept: "image/svg+xml" })).text();
    return saveSvg(text, { filename, format });
  }
  const title = textOf(figureEl, ['[data-role="title"]', '[data-field="title"]', "h2", "h1"]);
  const caption = textOf(figureEl, [
    '[data-role="caption"]',
    '[data-field="caption"]',
    "figcaption p",
  ]);
  return saveSlide(plot, { heading: `Figure ${number}. ${title}`, caption, filename, format });
}

/** Download figure N of this state as one offline HTML file (the server writes it). */
export async function downloadHtml(number, state, presetId = null) {
  const url = exportUrl("figures.html", state, presetId, {
    figures: number,
    theme: drawnTheme(),
  });
  const response = await send(url, { accept: "text/html" });
  const filename = filenameOf(response, `attention-lab-figure-${number}.html`);
  saveBlob(await response.blob(), filename);
  return filename;
}
