/**
 * slide.js — saves a figure as a file, laid out for its size. Grid figures come from the
 * server as a finished SVG (app/export/grid_svg.py: heading, grids, legend, caption);
 * `saveSvg` saves it as is, or as a PNG at twice its size, drawn onto a canvas here.
 * Charts are Plotly figures ({ data, layout }): `saveSlide` draws them as wide as the page
 * shows them (800 to 1200 pixels; twice that in the PNG), as tall as their layout plus
 * the heading above and the caption wrapped under, on the page's background. Used by the page's and the labs' PNG/SVG
 * buttons. Layout only; every figure is the server's.
 */

import { plotlyMarkup } from "./notation_core.js";
import { plotly } from "./plotly.js";

// A chart is saved as wide as the page draws it (its layout was made for that), within
// these bounds in CSS pixels; images are saved at SCALE times that.
const WIDTH = { min: 800, max: 1200 };
const SCALE = 2;
const LINE = 16; // a caption or heading line, px

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

/** Save `blob` as `filename` through a temporary link. */
export function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement("a"), { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The pixel size an SVG document declares on its root (width, height attributes). */
export function svgSize(text) {
  const root = /<svg\b[^>]*>/.exec(text)?.[0] ?? "";
  const width = Number(/\swidth="([\d.]+)"/.exec(root)?.[1]);
  const height = Number(/\sheight="([\d.]+)"/.exec(root)?.[1]);
  if (!(width > 0 && height > 0)) throw new Error("the picture has no size");
  return { width, height };
}

/** An SVG document (text) drawn onto a canvas at SCALE times its size, as a PNG blob. */
async function rasterise(text) {
  const { width, height } = svgSize(text);
  const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    image.src = url;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = Math.ceil(width * SCALE);
    canvas.height = Math.ceil(height * SCALE);
    const context = canvas.getContext("2d");
    context.scale(SCALE, SCALE);
    context.drawImage(image, 0, 0, width, height);
    return await new Promise((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("no PNG"))), "image/png"),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * Save the server's SVG `text` as `format` ("svg" | "png") named `filename` (without
 * extension); resolves with the saved image's { width, height } in pixels.
 */
export async function saveSvg(text, { filename, format }) {
  const { width, height } = svgSize(text);
  if (format === "svg") {
    saveBlob(new Blob([text], { type: "image/svg+xml" }), `${filename}.svg`);
    return { width: Math.round(width), height: Math.round(height) };
  }
  saveBlob(await rasterise(text), `${filename}.png`);
  return { width: Math.ceil(width * SCALE), height: Math.ceil(height * SCALE) };
}

/**
 * Download the chart `source` ({ data, layout }) as `format` ("png" | "svg") named
 * `filename`: as wide as the page draws it (within WIDTH), as tall as its layout needs plus the heading (wrapped) above
 * and the caption (wrapped) below. Resolves with the image's { width, height } in pixels.
 */
export async function saveSlide(source, { heading, caption, filename, format, gap = 14 }) {
  const lines = wrap(caption ?? "", 100);
  const head = wrap(heading ?? "", 80);
  const layout = structuredClone(source.layout);
  const shown = source._fullLayout?.width ?? WIDTH.min;
  const width = Math.round(Math.min(WIDTH.max, Math.max(WIDTH.min, shown)));
  Object.assign(layout, { width, autosize: false });
  layout.height ??= 450;
  const background = getComputedStyle(document.body).backgroundColor;
  layout.paper_bgcolor = /rgba\(.*,\s*0\)$|transparent/.test(background) ? "#ffffff" : background;
  const Plotly = await plotly();
  const holder = document.createElement("div");
  holder.style.position = "fixed";
  holder.style.left = "-10000px";
  document.body.append(holder);
  try {
    await Plotly.newPlot(holder, structuredClone(source.data), layout, { staticPlot: true });
    // Where the chart's own text really reaches (legends and titles may sit outside
    // its margins), so the heading goes above all of it and the caption below.
    const { top, bottom, plotTop, plotBottom } = extents(holder);
    const headHeight = LINE * 1.4 * head.length;
    const extraTop = Math.max(0, 20 + headHeight + 10 - top);
    const below = Math.max(bottom, layout.height);
    const height = Math.round(extraTop + below + gap + LINE * lines.length + 20);
    const note = (text, y, yanchor, yshift, size) => ({
      text,
      showarrow: false,
      xref: "paper",
      yref: "paper",
      x: 0,
      y,
      xanchor: "left",
      yanchor,
      yshift,
      align: "left",
      font: { size },
    });
    // the margins as drawn (pushed out by legends and titles), so the plot keeps its size
    const drawn = holder._fullLayout._size;
    await Plotly.relayout(holder, {
      height,
      "margin.t": drawn.t + extraTop,
      "margin.b": drawn.b + (height - layout.height - extraTop),
      annotations: [
        ...(layout.annotations ?? []),
        note(
          head.map((line) => `<b>${plotlyMarkup(line)}</b>`).join("<br>"),
          1,
          "bottom",
          plotTop - top + 10,
          16,
        ),
        note(lines.map(plotlyMarkup).join("<br>"), 0, "top", -(bottom - plotBottom + gap), 12),
      ],
    });
    await Plotly.downloadImage(holder, { format, filename, width, height, scale: SCALE });
    return { width: width * SCALE, height: height * SCALE };
  } finally {
    Plotly.purge(holder);
    holder.remove();
  }
}

/** The top and bottom (px from the figure's top) of everything a drawn chart shows, and
 * of its plot area. */
function extents(holder) {
  const origin = holder.getBoundingClientRect().top;
  const size = holder._fullLayout._size;
  const plotTop = size.t;
  const plotBottom = size.t + size.h;
  let top = plotTop;
  let bottom = plotBottom;
  const parts = holder.querySelectorAll(
    ".legend, .g-xtitle, .g-ytitle, .xtick, .ytick, .annotation, .gtitle, .infolayer text",
  );
  for (const el of parts) {
    const box = el.getBoundingClientRect();
    if (box.height === 0) continue;
    top = Math.min(top, box.top - origin);
    bottom = Math.max(bottom, box.bottom - origin);
  }
  return { top, bottom, plotTop, plotBottom };
}
