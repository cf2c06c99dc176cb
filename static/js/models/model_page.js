/**
 * model_page.js — the model page (templates/models/model.html): asks
 * /models/{id}/heads.json for a sentence and draws what it answers: the tokens, every
 * layer × head as a small heatmap (grid.js, drawn as a canvas: one block per cell), one
 * head larger (grid.js: its weights printed when small) with its legend, and the summary
 * table. No maths: every weight, colour, word and link comes from the server.
 *
 * <main data-painted="n"> counts the sentences drawn (the frame with every head painted),
 * and data-painted-at is that frame's performance.now(): the benchmark reads them.
 */

import { ApiError, getJSON, siteUrl } from "../api.js";
import { renderGrid } from "../grid.js";
import { snippetFor } from "../share.js";
import { barStatus, copyOrShow } from "../toolbar.js";
import { applyTheme, onSchemeChange, resolveTheme } from "../theme.js";
import { createGeneration } from "./generation.js";
import { headQuery, moveHead, nextSort, pageQuery, sortSummaries } from "./heads_core.js";

const initial = JSON.parse(document.getElementById("initial-state").textContent);
const main = document.getElementById("main");
const form = document.getElementById("sentence-form");
const input = document.getElementById("text");
const textError = document.getElementById("text-error");
const headGrid = document.getElementById("head-grid");
const hide = document.getElementById("hide-special");

const page = {
  data: null,
  selected: [0, 0],
  sort: { key: "order", descending: false },
  controller: null,
  headController: null,
  painted: 0,
  buttons: [],
};

function theme() {
  return resolveTheme(initial.theme);
}

function writeUrl() {
  const text = page.data?.text ?? initial.text;
  const query = pageQuery(text, initial.theme, generation?.urlParams() ?? {});
  window.history.replaceState(null, "", `?${query}`);
}

// The generation mode (models that generate: #generation), following the picked head.
const generation = createGeneration({
  model: initial.model,
  theme,
  selected: () => page.selected,
  onSelect: (layer, head) => select(layer, head),
  onChange: writeUrl,
});

function showError(field, msg) {
  const onText = field === "text";
  textError.textContent = onText ? msg : "";
  textError.hidden = !onText;
  if (onText) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
  const box = document.getElementById("page-error");
  box.textContent = onText || !msg ? "" : field ? `${field}: ${msg}` : msg;
  box.hidden = onText || !msg;
}

/* ---- the heads grid: layers × heads buttons, each with a small heatmap ---- */

function buildHeadGrid() {
  const { layers, heads } = initial;
  const corner = document.createElement("span");
  corner.className = "head-axis";
  headGrid.append(corner);
  for (let h = 0; h < heads; h++) {
    headGrid.append(
      Object.assign(document.createElement("span"), {
        className: "head-axis",
        textContent: `H${h + 1}`,
        ariaHidden: "true",
      }),
    );
  }
  for (let l = 0; l < layers; l++) {
    headGrid.append(
      Object.assign(document.createElement("span"), {
        className: "head-axis",
        textContent: `L${l + 1}`,
        ariaHidden: "true",
      }),
    );
    const row = [];
    for (let h = 0; h < heads; h++) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "head-mini";
      button.dataset.layer = String(l);
      button.dataset.head = String(h);
      button.tabIndex = l === 0 && h === 0 ? 0 : -1;
      button.setAttribute("aria-pressed", "false");
      const label = Object.assign(document.createElement("span"), { className: "mini-label" });
      const map = Object.assign(document.createElement("span"), { className: "mini-map" });
      map.inert = true; // a picture inside the button: no tab stop, no second name
      const pattern = Object.assign(document.createElement("span"), {
        className: "mini-pattern",
      });
      button.append(label, map, pattern);
      headGrid.append(button);
      row.push(button);
    }
    page.buttons.push(row);
  }
  headGrid.addEventListener("click", (event) => {
    const button = event.target.closest(".head-mini");
    if (button) select(Number(button.dataset.layer), Number(button.dataset.head));
  });
  headGrid.addEventListener("keydown", (event) => {
    const button = event.target.closest(".head-mini");
    if (!button) return;
    const next = moveHead(
      event.key,
      Number(button.dataset.layer),
      Number(button.dataset.head),
      initial.layers,
      initial.heads,
    );
    if (!next) return;
    event.preventDefault();
    button.tabIndex = -1;
    const target = page.buttons[next[0]][next[1]];
    target.tabIndex = 0;
    target.focus();
  });
}

function miniDesc(data, l, h) {
  const m = data.minis;
  return {
    grid: `weights-l${l + 1}h${h + 1}`,
    label: "A",
    shape: m.shape,
    rows: data.tokens,
    cols: data.tokens,
    values: null,
    text: null,
    color: null,
    codes: m.codes[l][h],
    palette: m.palette,
    hover: null,
    uses: [],
    outline: {},
    scale: "weights",
    domain: m.domains[l][h],
    scale_colors: m.scale_colors,
    masked: m.masked,
  };
}

function drawHeads(data) {
  for (let l = 0; l < initial.layers; l++) {
    for (let h = 0; h < initial.heads; h++) {
      const button = page.buttons[l][h];
      const summary = data.summaries[l][h];
      button.setAttribute("aria-label", summary.spoken);
      button.title = summary.spoken;
      button.children[0].textContent = summary.label;
      button.children[2].textContent = `${summary.short} · ${summary.entropy_text}`;
      // Colours only: a canvas, one block per cell (the numbers are the larger view's).
      renderGrid(button.children[1], miniDesc(data, l, h));
    }
  }
}

function drawLegend(data) {
  const box = document.getElementById("heads-legend");
  const [lo, mid, hi] = data.minis.scale_colors;
  box.replaceChildren();
  const ramp = Object.assign(document.createElement("span"), { className: "legend-ramp" });
  ramp.style.backgroundImage = `linear-gradient(to right, ${lo}, ${mid}, ${hi})`;
  const words = data.hide_special
    ? ["0", ramp, "each head's own top (its legend below); grey: special tokens"]
    : ["weight 0", ramp, "1"];
  if (data.causal) words.push("; grey blocks: masked by the causal mask (weight 0)");
  box.append(...words);
}

/* ---- the larger head ---- */

function select(layer, head) {
  page.selected = [layer, head];
  for (const row of page.buttons)
    for (const b of row) b.setAttribute("aria-pressed", String(b === page.buttons[layer][head]));
  if (page.data) drawSelected(page.data);
  generation?.setHead(layer, head);
}

/** The larger head: its words at once; its full grid came with the sentence or is asked
 * for (head.json, one head's numbers). */
async function drawSelected(data) {
  const [l, h] = page.selected;
  const summary = data.summaries[l][h];
  document.getElementById("head-title").textContent = summary.name;
  document.getElementById("head-summary").textContent =
    `${summary.words}; entropy ${summary.entropy_text} nats; ${summary.sink_text} of its weight ` +
    `on the first token${summary.group ? `; its keys and values are ${summary.group}` : ""}.`;
  const open = document.getElementById("open-head");
  open.href = siteUrl(`/?${summary.open}`);
  open.setAttribute("aria-label", `Open ${summary.name} in the figures`);
  const embed = document.getElementById("embed-head");
  embed.dataset.open = summary.open;
  embed.disabled = false;
  embed.setAttribute(
    "aria-label",
    `Copy embed code for ${summary.name} (Figure ${initial.embed_figure})`,
  );
  const large = document.getElementById("head-large");
  const held = data.selected;
  if (held.layer === l && held.head === h) {
    renderGrid(large, held.grid);
    return;
  }
  page.headController?.abort();
  const controller = new AbortController();
  page.headController = controller;
  const query = headQuery(data.text, theme(), data.asked_hidden, l, h);
  large.setAttribute("aria-busy", "true");
  let one;
  try {
    one = await getJSON(siteUrl(`/models/${initial.model}/head.json?${query}`), {
      signal: controller.signal,
    });
  } catch (error) {
    if (controller.signal.aborted) return;
    large.setAttribute("aria-busy", "false");
    const first = error instanceof ApiError ? error.errors[0] : { msg: error.message };
    showError(first.field ?? null, first.msg);
    return;
  }
  if (controller.signal.aborted || page.data !== data) return;
  large.setAttribute("aria-busy", "false");
  data.selected = one;
  const [nl, nh] = page.selected;
  if (nl === l && nh === h) renderGrid(large, one.grid);
}

/* ---- tokens and the summary table ---- */

function drawTokens(data) {
  const list = document.getElementById("token-list");
  list.replaceChildren(
    ...data.tokens.map((token, i) => {
      const item = Object.assign(document.createElement("li"), { textContent: token });
      item.className = data.special[i] ? "token special" : "token";
      return item;
    }),
  );
}

function drawTable(data) {
  const rows = sortSummaries(data.summaries.flat(), page.sort.key, page.sort.descending);
  const body = document.querySelector("#summary-table tbody");
  body.replaceChildren(
    ...rows.map((s) => {
      const tr = document.createElement("tr");
      const th = Object.assign(document.createElement("th"), { scope: "row" });
      const pick = Object.assign(document.createElement("button"), {
        type: "button",
        className: "link-button",
        textContent: s.label,
      });
      pick.setAttribute("aria-label", `Show ${s.name} larger`);
      pick.addEventListener("click", () => {
        select(s.layer, s.head);
        document.getElementById("head-view").scrollIntoView({ block: "start" });
      });
      th.append(pick);
      const link = Object.assign(document.createElement("a"), {
        href: siteUrl(`/?${s.open}`),
        textContent: "Open",
      });
      link.setAttribute("aria-label", `Open ${s.name} in the figures`);
      const texts = [s.words, s.entropy_text, s.sink_text, ...(s.group ? [s.group] : [])];
      const cells = texts.map((text) =>
        Object.assign(document.createElement("td"), { textContent: text }),
      );
      const open = document.createElement("td");
      open.append(link);
      tr.append(th, ...cells, open);
      return tr;
    }),
  );
  for (const cell of document.querySelectorAll("#summary-table th[scope=col]")) {
    const key = cell.querySelector("button")?.dataset.sort;
    if (key === page.sort.key)
      cell.setAttribute("aria-sort", page.sort.descending ? "descending" : "ascending");
    else cell.removeAttribute("aria-sort");
  }
}

/* ---- asking for a sentence ---- */

async function load(text) {
  page.controller?.abort();
  const controller = new AbortController();
  page.controller = controller;
  main.setAttribute("aria-busy", "true");
  const hidden = hide?.checked ?? false;
  const [sl, sh] = page.selected;
  const query = headQuery(text, theme(), hidden, sl, sh);
  let data;
  try {
    data = await getJSON(siteUrl(`/models/${initial.model}/heads.json?${query}`), {
      signal: controller.signal,
    });
  } catch (error) {
    if (controller.signal.aborted) return;
    const first = error instanceof ApiError ? error.errors[0] : { msg: error.message };
    showError(first.field ?? "text", first.msg);
    main.setAttribute("aria-busy", "false");
    return;
  }
  if (controller.signal.aborted) return;
  showError(null, page.painted === 0 ? initial.problem : null);
  data.asked_hidden = hidden;
  page.data = data;
  drawTokens(data);
  drawHeads(data);
  drawLegend(data);
  // The 72 heads are painted first (data-painted-at: the benchmark's mark); the larger
  // head, the table and the URL follow in the next task, then the page is idle.
  requestAnimationFrame(() =>
    setTimeout(() => {
      main.dataset.paintedAt = String(performance.now());
      if (controller.signal.aborted) return;
      drawSelected(data);
      drawTable(data);
      writeUrl();
      generation?.setText(text);
      document.getElementById("announce").textContent =
        `${data.tokens.length} tokens; every head drawn.`;
      page.painted += 1;
      main.dataset.painted = String(page.painted);
      main.setAttribute("aria-busy", "false");
    }),
  );
}

/** Embed: the head's figure as an iframe snippet, from the server's oEmbed answer for its
 * embed URL, which names the head by its short link (the embed runs the model). */
function wireEmbed() {
  const button = document.getElementById("embed-head");
  const bar = button.closest(".share-bar");
  button.addEventListener("click", async () => {
    if (button.dataset.working) return;
    button.dataset.working = "1";
    const figure = initial.embed_figure;
    const url = `${window.location.origin}${siteUrl(`/embed/${figure}?${button.dataset.open}`)}`;
    try {
      const snippet = await snippetFor(url);
      barStatus(bar, await copyOrShow(bar, snippet, `Embed code for Figure ${figure}`));
    } catch (error) {
      barStatus(bar, `Embed failed: ${error.message}`);
    } finally {
      delete button.dataset.working;
    }
  });
}

function start() {
  applyTheme(initial.theme);
  wireEmbed();
  buildHeadGrid();
  select(0, 0);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    load(input.value);
  });
  hide?.addEventListener("change", () => {
    document.getElementById("hide-note").hidden = !hide.checked;
    load(input.value);
  });
  for (const button of document.querySelectorAll("#summary-table [data-sort]")) {
    button.addEventListener("click", () => {
      page.sort = nextSort(page.sort, button.dataset.sort);
      if (page.data) drawTable(page.data);
    });
  }
  onSchemeChange(() => {
    applyTheme(initial.theme);
    if (initial.theme === "auto") load(input.value);
  });
  if (initial.problem) showError(null, initial.problem);
  load(initial.text);
  generation?.start(() => input.value, initial.generate);
}

start();
