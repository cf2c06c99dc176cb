/**
 * slide.js — saves a Plotly figure ({ data, layout }) as PNG or SVG at slide size
 * (1600 × 900 pixels): the heading above, the caption wrapped under the plot, on the
 * page's background so light-on-dark figures stay readable outside the page. Used by the
 * page's and the labs' PNG/SVG buttons. Layout only; the figure is the server's.
 */

import { plotly } from "./plotly.js";

const SLIDE = { width: 800, height: 450, scale: 2 }; // 1600 × 900 pixels

/** Break a caption into lines of at most `width` characters at spaces (layout, not maths). */
export function wrap(text, width = 105) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + word.length + 1 > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * Download `source` as `format` ("png" | "svg") named `filename`. `top` and `bottom` are
 * the margins (px, the caption's lines are added to the bottom), `gap` the caption's
 * distance under the plot.
 */
export async function saveSlide(
  source,
  { heading, caption, filename, format, top = 120, bottom = 50, gap = 30 },
) {
  const lines = wrap(caption ?? "");
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
  layout.margin = { ...(layout.margin ?? {}), t: top, b: bottom + 16 * lines.length };
  layout.annotations = [
    ...(layout.annotations ?? []),
    {
      text: lines.join("<br>"),
      showarrow: false,
      xref: "paper",
      yref: "paper",
      x: 0,
      y: 0,
      xanchor: "left",
      yanchor: "top",
      yshift: -gap,
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
    await Plotly.newPlot(holder, structuredClone(source.data), layout, { staticPlot: true });
    await Plotly.downloadImage(holder, { format, filename, ...SLIDE });
  } finally {
    Plotly.purge(holder);
    holder.remove();
  }
}
