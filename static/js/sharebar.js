/**
 * sharebar.js — the main page's share and export buttons: per figure "Embed", "Link",
 * "PNG", "SVG", "HTML" (templates/macros/figure.html) and the page's "Copy as NumPy", "Download
 * CSV (zip)", "Download JSON" (templates/index.html). One delegated click handler on
 * `button[data-share]`; share.js asks the server for every snippet and file. Each outcome
 * is shown beside the button and announced in the page's aria-live line (#announce).
 */

import * as share from "./share.js";
import { SHORT_ENOUGH, shortEmbedSnippet, shortPageLink } from "./short_links.js";
import { barStatus, copyOrShow } from "./toolbar.js";

async function shareAction(kind, bar, { state, presetId, modelQuery = null }) {
  const panel = bar.closest("[data-figure]");
  const n = panel ? Number(panel.dataset.figure) : null;
  switch (kind) {
    case "embed": {
      const snippet = await share.embedSnippet(n, state, presetId, modelQuery);
      // a long state's iframe gets a short src (/e/<id>) when the server stores it
      const link = share.linkFor(state, presetId, n, modelQuery);
      return copyOrShow(bar, await shortEmbedSnippet(snippet, link), `Embed code for Figure ${n}`);
    }
    case "link": {
      // a long state's link is offered short (/s/<id>) when the server stores it; one that
      // fits any field (a preset, a model's head) stays readable as it is
      const long = share.linkFor(state, presetId, n, modelQuery);
      const short = long.length > SHORT_ENOUGH ? await shortPageLink(long) : null;
      const said = await copyOrShow(bar, short ?? long, `Link to Figure ${n}`);
      return short ? said.replace(/ copied\.$/, " copied (a short link).") : said;
    }
    case "png":
    case "svg": {
      const { width, height } = await share.downloadImage(panel, kind, state, presetId);
      return `Figure ${n} saved as ${kind.toUpperCase()}, ${width} × ${height} pixels, caption included.`;
    }
    case "html":
      return `Figure ${n} saved as ${await share.downloadHtml(n, state, presetId)}: one HTML file that works offline.`;
    case "numpy":
      return copyOrShow(
        bar,
        await share.numpySnippet(state),
        "NumPy script (run it with python to print every stage)",
      );
    default:
      return `Saved ${await share.downloadStages(state, kind)}.`;
  }
}

/**
 * Handle clicks on every `button[data-share]` inside `root` (one delegated listener).
 * `current()` returns { state: { body, view }, presetId, modelQuery? } as the page holds
 * them now (modelQuery: a real model's head's short link while the state is its own).
 */
export function wireShare(root, current) {
  root.addEventListener("click", async (e) => {
    const button = e.target.closest("button[data-share]");
    if (!button || button.dataset.working) return;
    const bar = button.closest(".share-bar");
    button.dataset.working = "1"; // a double click gives one download, not two
    try {
      barStatus(bar, await shareAction(button.dataset.share, bar, current()));
    } catch (error) {
      barStatus(
        bar,
        `${button.getAttribute("aria-label") ?? button.textContent} failed: ${error.message}`,
      );
    } finally {
      delete button.dataset.working;
    }
  });
}
