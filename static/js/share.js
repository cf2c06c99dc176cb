/**
 * share.js — the main page's per-figure "Embed", "Link", PNG/SVG and "Copy as NumPy"
 * buttons, and the stage downloads. The server builds every snippet and export (oEmbed,
 * /api/v1/export); this module only asks for them and saves files. No maths.
 *
 * All functions take the page state { body, view } (as in state.js) and an optional
 * presetId (kept in links while the body is the unchanged preset); they resolve to the
 * text or file name and reject with a readable Error. Copying is toolbar.js's.
 */

import { getJSON, postJSON, send, siteUrl } from "./api.js";
import { saveSlide } from "./slide.js";
import { figuresView, toQuery } from "./state.js";

/** The page URL of this state, scrolled to figure N when given. */
export function linkFor(state, presetId = null, figure = null) {
  const hash = figure ? `#fig-${figure}` : "";
  return `${window.location.origin}${siteUrl(`/?${toQuery(state, presetId)}${hash}`)}`;
}

/** The embed URL of figure N in this state. */
export function embedUrl(figure, state, presetId = null) {
  return `${window.location.origin}${siteUrl(`/embed/${figure}?${toQuery(state, presetId)}`)}`;
}

/** The <iframe> snippet for figure N (built by the server's oEmbed endpoint). */
export async function embedSnippet(figure, state, presetId = null) {
  const url = encodeURIComponent(embedUrl(figure, state, presetId));
  return (await getJSON(siteUrl(`/oembed?format=json&url=${url}`))).html;
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

/**
 * A figure the page draws as grids, as the server's Plotly conversion of the same
 * description (the one converter, app/figures/to_plotly.py): { data, layout }.
 */
async function plotlyTwin(figureEl, state) {
  if (!state) return null;
  const number = Number(figureEl.dataset.figure);
  const theme = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
  const view = figuresView(state.view, theme, [number]);
  const answer = await postJSON(siteUrl("/api/v1/figures"), { ...state.body, view });
  const fig = answer.figures[String(number)];
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
  const caption = textOf(figureEl, [
    '[data-role="caption"]',
    '[data-field="caption"]',
    "figcaption p",
  ]);
  await saveSlide(plot, {
    heading: `Figure ${number}. ${title}`,
    caption,
    filename: `attention-lab-figure-${number}`,
    format,
  });
}
