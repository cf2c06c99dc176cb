/**
 * lessons/source_online.js — the player's source on the site: the answers from
 * POST /api/v1/lessons/answers, a main-page step's figures from POST /api/v1/figures (the
 * state the server resolved from the step's link, in #lesson-state), a lab step's
 * section from GET /api/v1/labs/{id}/figures. Every step is asked for once: the current
 * one first, then the others in the background, so Next draws from memory.
 */

import { getJSON, postJSON, siteUrl } from "../api.js";
import { resolveTheme } from "../theme.js";
import { resolveRefs } from "./figures.js";

async function fetchStep(step, theme) {
  if (step.kind === "lab") {
    const params = new URLSearchParams(step.query);
    params.set("figures", step.section);
    params.set("theme", theme);
    const data = await getJSON(
      siteUrl(`/api/v1/labs/${encodeURIComponent(step.lab)}/figures?${params}`),
    );
    return { kind: "lab", figure: data.figures[step.section] };
  }
  const live = step.figures.filter((n) => !step.static.includes(n));
  if (!live.length) return { kind: "main", numbers: step.figures, figures: {} };
  const view = { ...step.view, theme, figures: live };
  const [data, after] = await Promise.all([
    postJSON(siteUrl("/api/v1/figures?draw=tables"), { ...step.body, view }),
    // A direction question's changed state, computed by the server like the step's own.
    step.after ? fetchStep(step.after, theme) : null,
  ]);
  const out = {
    kind: "main",
    numbers: step.figures,
    figures: resolveRefs(data.figures, data.grids ?? {}),
  };
  return after ? { ...out, after } : out;
}

/** The source of a lesson page: `state` is #lesson-state (app/web/lessons.py). */
export function onlineSource(state, themeChoice = "auto") {
  const theme = resolveTheme(themeChoice);
  const cache = new Map();
  const step = (i) => {
    if (!cache.has(i)) {
      const promise = fetchStep(state.steps[i], theme);
      promise.catch(() => cache.delete(i)); // a failed step is asked for again next time
      cache.set(i, promise);
    }
    return cache.get(i);
  };
  let answers = null;
  return {
    lesson: state.lesson,
    lessonId: state.lesson_id,
    mode: state.mode,
    answers() {
      answers ??= postJSON(siteUrl("/api/v1/lessons/answers"), state.lesson).then((d) => d.steps);
      return answers;
    },
    async step(i) {
      const data = await step(i);
      // Then the rest, one at a time, so the next step is in memory before it is asked for.
      queueMicrotask(() => prefetch(i));
      return data;
    },
    staticFigure(n) {
      const template = document.getElementById(`lesson-static-${n}`);
      return template ? template.content.cloneNode(true) : null;
    },
    openUrl(i) {
      return siteUrl(state.steps[i].open);
    },
  };

  async function prefetch(from) {
    for (let k = 1; k < state.steps.length; k++) {
      const i = (from + k) % state.steps.length;
      if (cache.has(i)) continue;
      try {
        await step(i);
      } catch {
        /* asked for again when shown */
      }
    }
  }
}
