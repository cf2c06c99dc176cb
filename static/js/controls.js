/**
 * controls.js — the toggles and view controls: preset, reset, randomise and seed, scaling,
 * mask, heads, head shown, focus token, cross-attention, theme, Figure 12's stretch and
 * row, and "copy link". It keeps them in step with the state and reports changes.
 */

import { setRich } from "./dom.js";
import { headChoices, isDirect, queryRows } from "./shapes.js";
import { showStretch, wireStretch } from "./stretch.js";
import { copyText } from "./toolbar.js";

const $ = (id) => document.getElementById(id);

function options(select, items, selected) {
  const nodes = items.map(([value, label]) => {
    const option = document.createElement("option");
    option.value = String(value);
    option.textContent = label;
    option.selected = String(value) === String(selected);
    return option;
  });
  select.replaceChildren(...nodes);
}

/** Make every control show `app`'s state (options for focus and heads follow the shapes). */
export function syncControls(app) {
  const { body, view } = app;
  $("scale").checked = body.scale !== false;
  $("mask").value = body.mask === "causal" ? "causal" : "none";
  $("cross").checked = Boolean(body.source);
  $("cross").disabled = isDirect(body); // direct mode gives K and V themselves
  const tokens = body.tokens ?? [];
  options(
    $("focus"),
    queryRows(body).map((_, i) => [i, `${tokens[i] ?? `t${i}`} (row ${i + 1})`]),
    view.focus,
  );
  options(
    $("heads"),
    headChoices(body).map((h) => [h, h === 1 ? "1 (single head)" : String(h)]),
    body.heads ?? 1,
  );
  const heads = body.heads ?? 1;
  $("head-field").hidden = heads < 2;
  options(
    $("head"),
    Array.from({ length: heads }, (_, i) => [i, `head ${i + 1}`]),
    view.head,
  );
  $("preset").value = app.presetId ?? "";
  const preset = app.presets.find((p) => p.id === app.presetId);
  setRich(
    $("preset-description"),
    preset ? preset.description : "Your own numbers: share them with “Copy link”.",
  );
  $("theme").value = view.theme;
  showStretch(document, view.stretch);
  for (const radio of document.querySelectorAll("input[name=row]"))
    radio.checked = radio.value === view.row;
}

/**
 * Wire every control to `on`: { body(change), view(patch, figures), preset(id), reset(),
 * randomise(seed), cross(on), copy() }.
 */
export function wireControls(on) {
  $("scale").addEventListener("change", (e) =>
    on.body((b) => {
      b.scale = e.target.checked;
    }),
  );
  $("mask").addEventListener("change", (e) =>
    on.body((b) => {
      b.mask = e.target.value;
    }),
  );
  $("heads").addEventListener("change", (e) =>
    on.body((b) => {
      b.heads = Number.parseInt(e.target.value, 10);
    }),
  );
  $("head").addEventListener("change", (e) =>
    on.view({ head: Number.parseInt(e.target.value, 10) }),
  );
  $("focus").addEventListener("change", (e) =>
    on.view({ focus: Number.parseInt(e.target.value, 10) }),
  );
  $("cross").addEventListener("change", (e) => on.cross(e.target.checked));
  $("preset").addEventListener("change", (e) => {
    if (e.target.value) on.preset(e.target.value);
  });
  $("reset").addEventListener("click", () => on.reset());
  $("randomise").addEventListener("click", () => on.randomise(null));
  $("seed").addEventListener("keydown", (e) => {
    if (e.key === "Enter") on.randomise(e.target.value);
  });
  $("theme").addEventListener("change", (e) => on.view({ theme: e.target.value }));
  wireStretch(document, (stretch) => on.view({ stretch }));
  for (const radio of document.querySelectorAll("input[name=row]")) {
    radio.addEventListener("change", (e) => on.view({ row: e.target.value }));
  }
  $("copy-link").addEventListener("click", () => on.copy());
}

/** Copy the page's URL; where the clipboard is unavailable, select it in a text box. */
export async function copyLink() {
  const status = $("copy-status");
  try {
    await copyText(window.location.href);
    status.textContent = "Link copied.";
  } catch {
    const box = document.createElement("input");
    box.type = "text";
    box.readOnly = true;
    box.value = window.location.href;
    box.setAttribute("aria-label", "Link to this state");
    status.replaceChildren("Copy this link: ", box);
    box.focus();
    box.select();
  }
}
