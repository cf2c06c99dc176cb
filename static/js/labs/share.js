/**
 * labs/share.js — the lab figures' toolbar: Embed and Link copy what the server built
 * (the lab API's `links`), PNG/SVG save the chart at slide size with its entry, title
 * and caption, "Copy as NumPy" copies the experiment's script from the API.
 */

import { saveSlide } from "../slide.js";
import { barStatus, copyOrShow } from "../toolbar.js";

/** Save the panel's chart as "png" or "svg" (title and caption printed with it); a
 * figure drawn only as number grids saves `exported` ({data, layout}: the server's Plotly
 * version of the same grids). */
export async function downloadImage(panel, format, heading, exported = null) {
  const plot = panel.querySelector(".js-plotly-plot");
  const charted = plot && !panel.querySelector('[data-role="plot-box"]')?.hidden;
  const source = charted ? { data: plot.data, layout: plot.layout } : exported;
  if (!source) throw new Error("this entry has no chart to save");
  const caption = panel.querySelector('[data-role="caption"]')?.textContent ?? "";
  const filename = `attention-lab-${panel.dataset.figure}`;
  await saveSlide(source, { heading, caption, filename, format, top: 80, bottom: 60, gap: 40 });
}

/**
 * One delegated handler for every button[data-share] in `root`. `current(name)` returns
 * { links: {link, embed}, heading, exported, numpy: async () => script text }.
 */
export function wireShare(root, current) {
  root.addEventListener("click", async (e) => {
    const button = e.target.closest("button[data-share]");
    if (!button || button.dataset.working) return;
    const bar = button.closest(".share-bar");
    const panel = button.closest("[data-figure]");
    const info = current(panel.dataset.figure);
    button.dataset.working = "1";
    let message;
    try {
      const kind = button.dataset.share;
      if (!info.links) throw new Error("the figure is not drawn yet");
      if (kind === "embed")
        message = await copyOrShow(bar, info.links.embed, `Embed code for ${info.heading}`);
      else if (kind === "link")
        message = await copyOrShow(bar, info.links.link, `Link to ${info.heading}`);
      else if (kind === "numpy")
        message = await copyOrShow(
          bar,
          await info.numpy(),
          `NumPy script for ${info.heading} (run it with python)`,
        );
      else {
        await downloadImage(panel, kind, info.heading, info.exported);
        message = `${info.heading} saved as ${kind.toUpperCase()}, 1600 × 900 pixels, caption included.`;
      }
    } catch (error) {
      message = `${button.getAttribute("aria-label")} failed: ${error.message}`;
    } finally {
      delete button.dataset.working;
    }
    barStatus(bar, message);
  });
}
