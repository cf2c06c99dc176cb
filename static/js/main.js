/**
 * main.js — the page's entry: holds the state { body, view, presetId }, turns every edit
 * into a request for the figures it affects (typing is debounced, commits are not),
 * draws the answer, keeps <main aria-busy> true until every figure shows the latest
 * state, announces the change, and mirrors the state in the URL (history.replaceState).
 */

import { LatestOnly, getJSON, postJSON, siteUrl, targetOf } from "./api.js";
import {
  onPhoneChange,
  renderFigures,
  setTableSource,
  watchVisibility,
  wireTables,
} from "./charts.js";
import { copyLink, syncControls, wireControls } from "./controls.js";
import {
  clearError,
  clearErrors,
  handleKey,
  markError,
  renderEditor,
  setLimits,
  wireWindows,
} from "./editor.js";
import { readCell, writeCell } from "./editor_core.js";
import { holdAnchor, measureBar, setEditorOpen, wireEditorFold } from "./fold.js";
import { newSeed, randomise } from "./random.js";
import { watchScrollCues } from "./scroll_cue.js";
import { clone, edit, headChoices, queryRows, setCross, setPadding } from "./shapes.js";
import { wireShare } from "./sharebar.js";
import { figureLink, figuresView, setViewDefaults, toQuery, viewQuery } from "./state.js";
import { applyTheme, onSchemeChange, resolveTheme } from "./theme.js";

const TYPING_DELAY_MS = 150;
const main = document.getElementById("main");
const editorRoot = document.getElementById("editor");
const initial = JSON.parse(document.getElementById("initial-state").textContent);
setLimits(initial.limits);
setViewDefaults(initial.view_defaults);
// Which figures the server builds, and which a view key redraws: app/figures/registry.py.
const FIGURES = initial.figures;
const ALL = FIGURES.live;

const app = {
  body: initial.body,
  view: initial.view,
  presetId: initial.preset_id,
  presets: initial.presets,
  resetBody: clone(initial.body),
  resetPreset: initial.preset_id,
  needed: new Set(ALL),
  client: new LatestOnly(siteUrl("/api/v1/figures?draw=grids")),
  timer: null,
  seq: 0,
  // A model's head (/?model=…&text=…&layer=…&head=…): its short link stands for the state
  // until the first edit, which makes it an ordinary s= state (app/web/model_link.py).
  modelQuery: initial.model_link?.query ?? null,
  figure: initial.figure ?? null, // the figure the link names (fig=N), checked by the server
  // What Reset returns to when it is that head's state again (a preset replaces it).
  resetModel: initial.model_link?.query ?? null,
};

const theme = () => resolveTheme(app.view.theme);

function setBusy(on) {
  main.setAttribute("aria-busy", String(on));
}

function pageError(text) {
  const box = document.getElementById("page-error");
  box.textContent = text ?? "";
  box.hidden = !text;
}

/* ---- requests ---- */

function request(figures, immediate = true) {
  for (const n of figures) app.needed.add(n);
  window.clearTimeout(app.timer);
  app.timer = null;
  setBusy(true);
  if (immediate) update();
  else app.timer = window.setTimeout(update, TYPING_DELAY_MS);
}

async function update() {
  app.timer = null;
  const seq = ++app.seq;
  const figures = [...app.needed].sort((a, b) => a - b);
  const view = figuresView(app.view, theme(), figures);
  const result = await app.client.post({ ...app.body, view });
  if (result.aborted || seq !== app.seq) return;
  if (!result.ok) {
    showServerErrors(result.errors);
    setBusy(false);
    return;
  }
  clearServerErrors();
  const complete = await renderFigures(
    main,
    result.data.figures,
    () => seq === app.seq,
    result.data.grids,
  );
  if (!complete || seq !== app.seq) return;
  for (const n of figures) app.needed.delete(n);
  for (const input of editorRoot.querySelectorAll("input[data-pending]")) {
    input.dataset.committed = input.dataset.pending;
    delete input.dataset.pending;
  }
  document.getElementById("announce").textContent = result.data.announce ?? "";
  setBusy(false);
  mirrorURL();
}

// The URL follows the state once edits pause: replaceState costs about 10 ms on a long
// page (and browsers throttle it), so it is not paid between an edit and its paint.
// <main data-url="pending|synced"> says whether the URL shows the state yet.
const URL_DELAY_MS = 120;
let urlTimer = null;

function syncURL() {
  window.clearTimeout(urlTimer);
  urlTimer = null;
  const query = app.modelQuery
    ? [app.modelQuery, viewQuery(app.view)].filter(Boolean).join("&")
    : toQuery({ body: app.body, view: app.view }, app.presetId);
  // A link about one figure (fig=N) stays about it as the state changes.
  window.history.replaceState(null, "", figureLink(query, app.figure));
  main.dataset.url = "synced";
}

function mirrorURL() {
  window.clearTimeout(urlTimer);
  main.dataset.url = "pending";
  urlTimer = window.setTimeout(syncURL, URL_DELAY_MS);
}

/* ---- server errors land on the cell, label or control they name ---- */

function clearServerErrors() {
  for (const block of editorRoot.querySelectorAll("[data-block]")) clearErrors(block);
  for (const control of document.querySelectorAll("select[aria-invalid=true]"))
    control.removeAttribute("aria-invalid");
  pageError(initial.error && app.seq <= 1 ? initial.error : null);
}

function showServerErrors(errors) {
  clearServerErrors();
  const loose = [];
  for (const error of errors) {
    const target = targetOf(error.field);
    const block = editorRoot.querySelector(
      `[data-block="${target.kind === "token" ? (target.source ? "source_x" : "x") : target.matrix}"]`,
    );
    if (target.kind === "cell" && block) {
      const input = block.querySelector(`[data-row="${target.row}"][data-col="${target.col}"]`);
      markError(block, input, error.msg, "server");
    } else if (target.kind === "token" && block && target.index !== null) {
      const attr = target.source ? "data-source-token" : "data-token";
      markError(block, block.querySelector(`[${attr}="${target.index}"]`), error.msg, "server");
    } else if (target.kind === "matrix" && block) {
      markError(block, null, error.msg, "server");
    } else {
      document.getElementById(target.name)?.setAttribute("aria-invalid", "true");
      loose.push(`${error.field}: ${error.msg}`);
    }
  }
  pageError(loose.length ? `The figures show the last valid state. ${loose.join("; ")}` : null);
  // A folded editor opens to show the cell or label the server named.
  if (loose.length < errors.length) setEditorOpen(editorRoot, true);
}

/* ---- edits ---- */

function setBody(body, { immediate = true, structure = false } = {}) {
  // A new d_k or d_v may not be divisible by the chosen head count: fall back to one head.
  if (!headChoices(body).includes(body.heads ?? 1)) body.heads = 1;
  app.body = body;
  app.presetId = null;
  leaveModel();
  app.view.focus = Math.min(app.view.focus, queryRows(body).length - 1);
  app.view.head = Math.min(app.view.head, (body.heads ?? 1) - 1);
  if (structure) renderEditor(editorRoot, body);
  syncControls(app);
  request(ALL, immediate);
}

/** The first edit of a model's head: the banner stops claiming it is the model's. */
function leaveModel() {
  if (!app.modelQuery) return;
  app.modelQuery = null;
  showModelBanner(false);
}

/** Reset to a model's head: its numbers again, its short link, the banner says so. */
function enterModel(query) {
  app.modelQuery = query;
  showModelBanner(true);
}

function showModelBanner(own) {
  const banner = document.getElementById("model-banner");
  if (!banner) return;
  banner.querySelector("[data-state=model]").hidden = !own;
  banner.querySelector("[data-state=edited]").hidden = own;
}

/** Write what `input` holds into the body; `commit` marks errors and updates at once. */
function take(input, commit) {
  // A block the state does not have (X after a direct-mode link, Q after a preset) is
  // hidden; a change its input reports on blur is not an edit.
  if (input.closest("[hidden]") || input.dataset.discarded) return;
  const block = input.closest("[data-block]");
  const value = readCell(input.value, input.classList.contains("token"));
  if (value instanceof Error) {
    if (commit) markError(block, input, value.message, "local");
    return;
  }
  if (input.getAttribute("aria-invalid")) clearError(block, input);
  // Escape returns to the last value the server accepted: promoted from `pending` in update().
  if (commit) input.dataset.pending = input.value;
  const body = clone(app.body);
  // An unchanged value needs no request, unless one for a typed value is still waiting.
  if (!writeCell(body, input.dataset, value) && !app.timer) return;
  setBody(body, { immediate: commit });
}

function wireEditor() {
  const keys = { commit: (input) => take(input, true), revert };
  editorRoot.addEventListener("keydown", (e) => {
    if (e.target.matches(".grid-editor input[type=text]")) handleKey(e, keys);
  });
  editorRoot.addEventListener("input", (e) => {
    if (e.target.matches(".grid-editor input[type=text]")) take(e.target, false);
  });
  editorRoot.addEventListener("change", (e) => {
    if (e.target.matches(".grid-editor input[type=text]")) take(e.target, true);
    if (e.target.matches("[data-padding]")) {
      setBody(setPadding(app.body, Number(e.target.dataset.padding), e.target.checked));
    }
  });
  editorRoot.addEventListener("click", (e) => {
    const action = e.target.closest("[data-action]")?.dataset.action;
    if (action) setBody(edit(app.body, action), { structure: true });
  });
}

/**
 * Reset discards the cell being typed in, whatever the order of events: a click commits it
 * first (its blur, at mousedown), a script's click or a shortcut does not. Blurred here,
 * its change is ignored, and the typing timer is cancelled, so the reset state never gets
 * the cell's value written back into it after Reset.
 */
function discardTypedCell() {
  window.clearTimeout(app.timer);
  app.timer = null;
  const input = document.activeElement;
  if (!input?.matches(".grid-editor input[type=text]") || !editorRoot.contains(input)) return;
  input.dataset.discarded = "true";
  input.blur(); // fires its change now (if the text changed), which take() ignores once
  delete input.dataset.discarded;
  input.value = input.dataset.pending ?? input.dataset.committed ?? input.value;
}

function revert(input) {
  input.value = input.dataset.committed ?? input.value;
  const block = input.closest("[data-block]");
  if (input.getAttribute("aria-invalid")) clearError(block, input);
  take(input, true);
  input.select();
}

/* ---- presets, view, theme ---- */

async function loadPreset(id) {
  // The answers still on their way are for the state this preset replaces: dropped, so
  // the page is not "idle" (aria-busy false) on them while the preset loads.
  app.seq += 1;
  window.clearTimeout(app.timer);
  app.timer = null;
  setBusy(true);
  try {
    const preset = await getJSON(siteUrl(`/api/v1/presets/${encodeURIComponent(id)}`));
    app.resetBody = clone(preset.body);
    app.resetPreset = id;
    app.resetModel = null;
    setBody(preset.body, { structure: true });
    app.presetId = id;
    syncControls(app);
  } catch (error) {
    pageError(`The preset could not be loaded: ${error.message}`);
    setBusy(false);
  }
}

function setView(patch) {
  const old = { ...app.view };
  Object.assign(app.view, patch);
  applyTheme(app.view.theme);
  let figures = ALL;
  if ("stretch" in patch || "row" in patch) {
    figures = [...FIGURES.reads.stretch, ...FIGURES.reads.row];
  }
  if ("focus" in patch) {
    // Figure 12 follows the focus row only when it shows that row.
    const row = app.view.row === "focus" ? FIGURES.row_focus : [];
    figures = [...FIGURES.reads.focus, ...row];
  }
  if (Object.keys(patch).every((k) => old[k] === app.view[k])) return;
  request(figures, !("stretch" in patch));
}

/** A large state's tables, asked for when the reader opens them (the edit path skips them). */
async function tablesOf(n) {
  const view = figuresView(app.view, theme(), [n]);
  const answer = await postJSON(siteUrl("/api/v1/figures?draw=tables"), { ...app.body, view });
  return answer.figures[String(n)].tables;
}

function start() {
  // Ask for the figures first: the server computes them while the editor is built.
  const first = update();
  renderEditor(editorRoot, app.body);
  wireEditorFold(editorRoot);
  measureBar(document.querySelector(".toolbar"));
  holdAnchor(document.getElementById("figures"), app.figure ? `fig-${app.figure}` : null);
  watchScrollCues(document.getElementById("figures"), ".tables > [data-role=tables]", "tables");
  syncControls(app);
  applyTheme(app.view.theme);
  wireEditor();
  wireWindows(editorRoot, () => app.body);
  wireTables(main);
  setTableSource(tablesOf);
  // The toolbars read the state at click time: the body and view the figures were asked for.
  // While the state is a model's head unchanged, links carry its short model link.
  wireShare(main, () => ({
    state: { body: app.body, view: app.view },
    presetId: app.presetId,
    modelQuery: app.modelQuery,
  }));
  watchVisibility(main);
  wireControls({
    body: (change) => {
      const b = clone(app.body);
      change(b);
      setBody(b);
    },
    view: setView,
    preset: loadPreset,
    reset: () => {
      discardTypedCell();
      if (app.resetPreset) return loadPreset(app.resetPreset);
      setBody(clone(app.resetBody), { structure: true });
      if (app.resetModel) enterModel(app.resetModel);
    },
    randomise: (seed) => {
      const used = seed ?? newSeed();
      document.getElementById("seed").value = used;
      setBody(randomise(app.body, used), { structure: true });
    },
    cross: (on) => setBody(setCross(app.body, on), { structure: true }),
    copy: () => {
      if (urlTimer) syncURL();
      return copyLink();
    },
  });
  onPhoneChange(() => request(FIGURES.narrow));
  onSchemeChange(() => {
    applyTheme(app.view.theme);
    if (app.view.theme === "auto") request(ALL);
  });
  return first;
}

start();
