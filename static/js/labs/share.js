/**
 * labs/share.js — the lab figures' toolbar: Embed and Link copy what the server built
 * (the lab API's `links`); PNG/SVG save the figure laid out for its size (a chart as its
 * Plotly plot with entry, title and caption; a figure drawn as number grids as the
 * server's SVG, GET /api/v1/labs/{id}/export.svg, the PNG being that SVG at twice its
 * size); HTML saves the figure as one offline file (GET /api/v1/labs/{id}/export.html);
 * "Copy as NumPy" copies the experiment's script from the API.
 */

import { send, siteUrl } from "../api.js";
import { saveBlob, saveSlide, saveSvg } from "../slide.js";
import { barStatus, copyOrShow } from "../toolbar.js";

/** The URL of a lab file the server draws: the figure's own link's state, this figure. */
export function labFileUrl(file, link, figure) {
  const page = new URL(link, window.location.href);
  const lab = page.pathname.split("/").filter(Boolean).pop();
  const query = new URLSearchParams(page.search);
  query.delete("figure"); // the link's own figure (figure=<name>): the page's key, not the API's
  query.set("figures", figure);
  query.set("theme", document.documentElement.dataset.theme === "dark" ? "dark" : "light");
  return siteUrl(`/api/v1/labs/${encodeURIComponent(lab)}/${file}?${query}`);
}

/** Save the panel as "png" or "svg"; resolves with the image's { width, height }. */
export async function downloadImage(panel, format, heading, link) {
  const plot = panel.querySelector(".js-plotly-plot");
  const charted = plot && !panel.querySelector('[data-role="plot-box"]')?.hidden;
  const filename = `attention-lab-${panel.dataset.figure}`;
  if (charted) {
    const el = panel.querySelector('[data-role="caption"]');
    const caption = el?.dataset.notation ?? el?.textContent ?? ""; // as written: W^Q, d_k
    return saveSlide(plot, { heading, caption, filename, format });
  }
  const url = labFileUrl("export.svg", link, panel.dataset.figure);
  const text = await (await send(url, { accept: "image/svg+xml" })).text();
  return saveSvg(text, { filename, format });
}

/** Save the panel's figure as one offline HTML file; resolves with its file name. */
async function downloadHtml(panel, link) {
  const response = await send(labFileUrl("export.html", link, panel.dataset.figure), {
    accept: "text/html",
  });
  const named = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "");
  const filename = named ? named[1] : `attention-lab-${panel.dataset.figure}.html`;
  saveBlob(await response.blob(), filename);
  return filename;
}

async function act(kind, bar, panel, info) {
  if (!info.links) throw new Error("the figure is not drawn yet");
  if (kind === "embed") return copyOrShow(bar, info.links.embed, `Embed code for ${info.heading}`);
  if (kind === "link") return copyOrShow(bar, info.links.link, `Link to ${info.heading}`);
  if (kind === "numpy")
    return copyOrShow(
      bar,
      await info.numpy(),
      `NumPy script for ${info.heading} (run it with python)`,
    );
  if (kind === "html")
    return `${info.heading} saved as ${await downloadHtml(panel, info.links.link)}: one HTML file that works offline.`;
  const { width, height } = await downloadImage(panel, kind, info.heading, info.links.link);
  return `${info.heading} saved as ${kind.toUpperCase()}, ${width} × ${height} pixels, caption included.`;
}

/**
 * One delegated handler for every button[data-share] in `root`. `current(name)` returns
 * { links: {link, embed}, heading, numpy: async () => script text }.
 */
export function wireShare(root, current) {
  root.addEventListener("click", async (e) => {
    const button = e.target.closest("button[data-share]");
    if (!button || button.dataset.working) return;
    const bar = button.closest(".share-bar");
    const panel = button.closest("[data-figure]");
    button.dataset.working = "1";
    let message;
    try {
      message = await act(button.dataset.share, bar, panel, current(panel.dataset.figure));
    } catch (error) {
      message = `${button.getAttribute("aria-label")} failed: ${error.message}`;
    } finally {
      delete button.dataset.working;
    }
    barStatus(bar, message);
  });
}
