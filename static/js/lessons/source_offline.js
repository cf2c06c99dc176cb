/**
 * lessons/source_offline.js — the player's source in the offline document
 * (app/export/lesson_document.py): the lesson, its answers and every step's figures in
 * both themes were computed when the file was made and sit in <script id="lesson-data">,
 * so nothing is fetched and the file works from file://.
 */

import { resolveTheme } from "../theme.js";
import { resolveRefs } from "./figures.js";

export function offlineSource(data) {
  const theme = resolveTheme("auto");
  const steps = data.steps.map((byTheme) => byTheme?.[theme] ?? byTheme?.light ?? null);
  return {
    lesson: data.lesson,
    lessonId: data.lesson.id ?? null,
    mode: data.mode ?? "student",
    answers: () => Promise.resolve(data.answers),
    step(i) {
      const step = steps[i];
      if (!step) return Promise.reject(new Error("this step has no figures in the file"));
      if (step.kind === "main" && step.grids && !step.resolved) {
        resolveRefs(step.figures, step.grids);
        if (step.after) resolveRefs(step.after.figures, step.after.grids ?? {});
        step.resolved = true;
      }
      return Promise.resolve(step);
    },
    staticFigure(n) {
      const template = document.getElementById(`lesson-static-${n}`);
      return template ? template.content.cloneNode(true) : null;
    },
    openUrl: () => null,
  };
}
