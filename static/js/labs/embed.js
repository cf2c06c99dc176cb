/**
 * labs/embed.js — the script of /embed/labs/{id}/{figure}: draws the one figure the server
 * sent (both colour schemes when theme=auto, following the host's prefers-color-scheme),
 * sets <main aria-busy="false"> once drawn, and posts its height to the host page:
 *   { type: "attention-lab:height", figure: "<lab id>/<figure>", height: <px> }
 */

import { Player } from "./player.js";
import { renderFigure } from "./render.js";

const data = JSON.parse(document.getElementById("embed-data").textContent);
const main = document.getElementById("main");
const panel = main.querySelector("figure[data-figure]");
const darkQuery = window.matchMedia("(prefers-color-scheme: dark)");

function theme() {
  if (data.theme !== "auto") return data.theme;
  return darkQuery.matches ? "dark" : "light";
}

let player = null;

async function draw() {
  main.setAttribute("aria-busy", "true");
  document.documentElement.dataset.theme = theme();
  const fig = data.specs[theme()] ?? Object.values(data.specs)[0];
  if (fig.frames) {
    player ??= new Player(panel); // B1: the same player as on the lab page
    await player.load(fig);
  } else await renderFigure(panel, fig);
  main.setAttribute("aria-busy", "false");
}

let lastHeight = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height === lastHeight) return;
  lastHeight = height;
  window.parent.postMessage({ type: "attention-lab:height", figure: `${data.lab}/${data.figure}`, height }, "*");
}).observe(document.body);

darkQuery.addEventListener("change", () => { if (data.theme === "auto") draw(); });
draw();
