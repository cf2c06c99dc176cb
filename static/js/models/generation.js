/**
 * generation.js — the model page's generation mode (templates/models/model.html,
 * #generation; only for a model whose listing says it generates): asks
 * /models/{id}/generate.json for the tokens added to the sentence and draws what it
 * answers: the tokens, one head's new query rows over the cached keys (grid.js), the
 * check against recomputing the whole sequence, and the cache's bytes step by step. The
 * live region says each token added. No maths: the steps and seed are sent as typed (the
 * server reads and checks them), and every number, word and the next step count come
 * from the server.
 *
 * <section data-generated="n"> counts the answers drawn (the tests wait on it).
 */

import { ApiError, getJSON, siteUrl } from "../api.js";
import { renderGrid } from "../grid.js";
import { generateQuery } from "./heads_core.js";

/**
 * The generation mode. `model`: the model's id; `theme()`: "light" or "dark";
 * `selected()`: the page's [layer, head]; `onSelect(layer, head)`: a head picked here;
 * `onChange()`: the mode's state changed (the page rewrites its URL).
 */
export function createGeneration({ model, theme, selected, onSelect, onChange }) {
  const section = document.getElementById("generation");
  if (!section) return null;
  const form = document.getElementById("generate-form");
  const steps = document.getElementById("gen-steps");
  const seed = document.getElementById("gen-seed");
  const layer = document.getElementById("gen-layer");
  const head = document.getElementById("gen-head");
  const more = document.getElementById("gen-more");
  const error = document.getElementById("gen-error");
  const result = document.getElementById("gen-result");
  const announce = document.getElementById("gen-announce");
  const state = { shown: null, text: null, controller: null, drawn: 0 };

  const sampled = () => form.elements.pick.value === "sample";

  function showError(field, msg) {
    error.textContent = msg ? (field ? `${field}: ${msg}` : msg) : "";
    error.hidden = !msg;
    for (const [name, box] of [
      ["steps", steps],
      ["seed", seed],
    ]) {
      if (msg && field === name) box.setAttribute("aria-invalid", "true");
      else box.removeAttribute("aria-invalid");
    }
  }

  function draw(answer, say) {
    document.getElementById("gen-how").textContent = answer.how;
    const list = document.getElementById("gen-tokens");
    list.replaceChildren(
      ...answer.prompt.map((t) =>
        Object.assign(document.createElement("li"), {
          className: "token",
          textContent: t,
        }),
      ),
      ...answer.rows.map((row) => {
        const item = Object.assign(document.createElement("li"), {
          className: "token added",
          textContent: row.token,
        });
        item.setAttribute("aria-label", `step ${row.step}: ${row.token}`);
        return item;
      }),
    );
    document.getElementById("gen-title").textContent = answer.title;
    document.getElementById("gen-head-words").textContent = answer.head_words;
    renderGrid(document.getElementById("gen-grid"), answer.grid);
    document.getElementById("gen-check").textContent = answer.check;
    document.getElementById("gen-cache-words").textContent = answer.cache_words;
    document.querySelector("#gen-table tbody").replaceChildren(
      ...answer.rows.map((row) => {
        const tr = document.createElement("tr");
        const th = Object.assign(document.createElement("th"), {
          scope: "row",
          textContent: String(row.step),
        });
        const texts = [row.token, String(row.keys), row.cache_text];
        tr.append(
          th,
          ...texts.map((t) => Object.assign(document.createElement("td"), { textContent: t })),
        );
        return tr;
      }),
    );
    result.hidden = false;
    more.disabled = answer.more === null;
    steps.value = String(answer.steps);
    announce.textContent = say;
  }

  /** Ask for `count` steps of `text`, greedy or with `seedText` (both as typed: the
   * server reads them), with the head picked now. */
  async function run(text, count, seedText, oneMore = false) {
    state.controller?.abort();
    const controller = new AbortController();
    state.controller = controller;
    const [l, h] = selected();
    const query = generateQuery(text, theme(), count, seedText, l, h);
    section.setAttribute("aria-busy", "true");
    let answer;
    try {
      answer = await getJSON(siteUrl(`/models/${model}/generate.json?${query}`), {
        signal: controller.signal,
      });
    } catch (failure) {
      if (controller.signal.aborted) return;
      section.setAttribute("aria-busy", "false");
      const first = failure instanceof ApiError ? failure.errors[0] : { msg: failure.message };
      showError(first.field ?? null, first.msg);
      return;
    }
    if (controller.signal.aborted) return;
    showError(null, null);
    const added = answer.rows.at(-1);
    draw(answer, oneMore && added ? added.announce : answer.announce);
    state.shown = answer;
    state.text = text;
    state.drawn += 1;
    section.dataset.generated = String(state.drawn);
    section.setAttribute("aria-busy", "false");
    onChange();
  }

  const seedOf = (answer) => (answer.seed === null ? "" : String(answer.seed));

  function pickHead(l, h) {
    layer.value = String(l);
    head.value = String(h);
  }

  return {
    /** Start listening; `text()` is the sentence now. Runs at once when the link asked. */
    start(text, asked) {
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        run(text(), steps.value, sampled() ? seed.value : "");
      });
      more.addEventListener("click", () => {
        const shown = state.shown;
        if (shown?.more) run(state.text, String(shown.more), seedOf(shown), true);
      });
      const picked = () => onSelect(Number(layer.value), Number(head.value));
      layer.addEventListener("change", picked);
      head.addEventListener("change", picked);
      pickHead(...selected());
      if (asked) run(text(), String(asked.steps), asked.seed === null ? "" : String(asked.seed));
    },
    /** The page's head changed: follow it (and redraw a generation shown). */
    setHead(l, h) {
      pickHead(l, h);
      const shown = state.shown;
      if (shown && (shown.layer !== l || shown.head !== h))
        run(state.text, String(shown.steps), seedOf(shown));
    },
    /** The sentence changed: a generation shown is asked again for it. */
    setText(text) {
      const shown = state.shown;
      if (shown && text !== state.text) run(text, String(shown.steps), seedOf(shown));
    },
    /** What the page's URL keeps of the mode: steps and seed of what is shown. */
    urlParams() {
      const shown = state.shown;
      if (!shown) return {};
      return shown.seed === null
        ? { steps: shown.steps }
        : { steps: shown.steps, seed: shown.seed };
    },
  };
}
