/**
 * labs/share.js — the lab figures' toolbar: Embed and Link copy what the server built
 * (figures.json's `links`), PNG/SVG save the chart at slide size with its entry, title
 * and caption, "Copy as NumPy" copies the experiment's script from the API.
 */

import { copyText } from "../share.js";

const SLIDE = { width: 800, height: 450, scale: 2 }; // 1600 × 900 pixels

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

/** Save the panel's chart as "png" or "svg" (title and caption printed with it); a
 * figure drawn only as number grids saves `exported` ({data, layout}: the server's Plotly
 * version of the same grids). */
export async function downloadImage(panel, format, heading, exported = null) {
  const plot = panel.querySelector(".js-plotly-plot");
  const charted = plot && !panel.querySelector('[data-role="plot-box"]')?.hidden;
  const source = charted ? { data: plot.data, layout: plot.layout } : exported;
  if (!source) throw new Error("this entry has no chart to save");
  const caption = wrap(panel.querySelector('[data-role="caption"]')?.textContent ?? "");
  const layout = structuredClone(source.layout);
  Object.assign(layout, { width: SLIDE.width, height: SLIDE.height, autosize: false });
  const background = getComputedStyle(document.body).backgroundColor;
  layout.paper_bgcolor = /rgba\(.*,\s*0\)$|transparent/.test(background) ? "#ffffff" : background;
  layout.title = {
    text: heading,
    x: 0.01,
    xanchor: "left",
    y: 0.98,
    yanchor: "top",
    yref: "container",
  };
  layout.margin = { ...(layout.margin ?? {}), t: 80, b: 60 + 16 * caption.length };
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
      yshift: -40,
      align: "left",
      font: { size: 12 },
    },
  ];
  const holder = document.createElement("div");
  holder.style.position = "fixed";
  holder.style.left = "-10000px";
  document.body.append(holder);
  try {
    await window.Plotly.newPlot(holder, structuredClone(source.data), layout, { staticPlot: true });
    await window.Plotly.downloadImage(holder, {
      format,
      filename: `attention-lab-${panel.dataset.figure}`,
      ...SLIDE,
    });
  } finally {
    window.Plotly.purge(holder);
    holder.remove();
  }
}

async function copyOrShow(bar, text, what) {
  bar.querySelector(".manual-copy")?.remove();
  try {
    await copyText(text);
    return `${what} copied.`;
  } catch {
    const box = Object.assign(document.createElement("textarea"), {
      value: text,
      readOnly: true,
      rows: 3,
    });
    box.className = "manual-copy";
    box.setAttribute("aria-label", what);
    bar.append(box);
    box.focus();
    box.select();
    return `The browser did not allow copying: ${what} is selected in the box, press Ctrl+C (⌘C).`;
  }
}

/**
 * One delegated handler for every button[data-share] in `root`. `current(name)` returns
 * { links: {link, embed}, heading, exported, numpy: async () => script text }.
 */
export function wireShare(root, current, announce) {
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
    const local = bar.querySelector('[data-role="share-status"]');
    local.textContent = message;
    announce(message);
    window.clearTimeout(bar.statusTimer);
    bar.statusTimer = window.setTimeout(() => {
      local.textContent = "";
    }, 8000);
  });
}
