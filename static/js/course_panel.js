/**
 * course_panel.js — the "Use in a course" panel of a lesson (templates/macros/course.html):
 * copies a course-site snippet (the server wrote them all: app/web/lesson_snippets.py),
 * opens the link and every snippet at the step the player shows when "Open at the step
 * shown" is ticked (it follows the player's "attention-lesson:progress"; where `step=N`
 * goes in each snippet is the server's, course_core.js only inserts the number), and
 * downloads the lesson as offline HTML or a SCORM package (POST /api/v1/lessons/export
 * with the lesson JSON the panel holds, and for SCORM the pass mark typed in the panel,
 * `mastery`, 0–100, default 80). Outcomes are said beside the buttons, in an
 * aria-live line. No maths.
 */

import { send, siteUrl } from "./api.js";
import { shownLink, spliceStep } from "./course_core.js";
import { withStep } from "./lessons/player_core.js";
import { saveBlob } from "./slide.js";
import { copyText } from "./toolbar.js";

const FALLBACK_NAMES = {
  html: "lesson.html",
  scorm12: "lesson-scorm12.zip",
  scorm2004: "lesson-scorm2004.zip",
};

function filenameOf(response, fallback) {
  const named = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "");
  return named ? named[1] : fallback;
}

/** Select the snippet's text, so a refused copy can be finished with Ctrl+C. */
function selectText(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

async function copySnippet(panel, key, say) {
  const code = panel.querySelector(`[data-snippet="${key}"]`);
  const label = code.dataset.label;
  try {
    await copyText(code.textContent);
    say(`The ${label} snippet is copied.`);
  } catch {
    selectText(code);
    say(`The browser did not allow copying: the ${label} snippet is selected, press Ctrl+C (⌘C).`);
  }
}

/** The pass mark typed in the panel: a whole percentage, else null. */
function masteryOf(panel) {
  const text = panel.querySelector("[data-role='course-mastery']")?.value.trim() ?? "80";
  const value = Number(text);
  return /^\d{1,3}$/.test(text) && value <= 100 ? value : null;
}

async function download(panel, format, say) {
  const lesson = JSON.parse(panel.querySelector("[data-role='course-lesson']").textContent);
  const mastery = masteryOf(panel);
  if (format !== "html" && mastery === null) {
    say("The pass mark must be a whole number from 0 to 100.");
    panel.querySelector("[data-role='course-mastery']").focus();
    return;
  }
  say("Preparing the file…");
  try {
    const pass = format === "html" ? "" : `&mastery=${mastery}`;
    const url = siteUrl(`/api/v1/lessons/export?format=${format}${pass}`);
    const response = await send(url, { json: lesson, accept: "*/*" });
    const name = filenameOf(response, FALLBACK_NAMES[format]);
    saveBlob(await response.blob(), name);
    say(`Saved ${name}.`);
  } catch (error) {
    say(`The file could not be made: ${error.message}`);
  }
}

/** The link and the snippets at step index `i` (null: the lesson from its start). */
function showStep(panel, i) {
  const link = panel.querySelector("[data-role='course-link']");
  link.dataset.plain ??= link.getAttribute("href");
  link.href = withStep(link.dataset.plain, i);
  link.textContent = shownLink(link.getAttribute("href"), Number(link.dataset.shown));
  for (const code of panel.querySelectorAll("[data-snippet]")) {
    code.dataset.plain ??= code.textContent;
    const at = Number(code.dataset.stepAt);
    code.textContent = spliceStep(code.dataset.plain, at, code.dataset.stepJoin, i);
  }
}

/** "Open at the step shown": follows the player, and rewrites when ticked or unticked. */
function wireStep(panel) {
  const box = panel.querySelector("[data-role='course-step']");
  const name = panel.querySelector("[data-role='course-step-name']");
  let at = 0;
  const update = () => showStep(panel, box.checked ? at : null);
  box.addEventListener("change", update);
  window.addEventListener("attention-lesson:progress", (event) => {
    at = event.detail.step;
    name.textContent = `step ${at + 1} of ${event.detail.steps}`;
    if (box.checked) update();
  });
}

export function wireCoursePanel(panel) {
  const status = panel.querySelector("[data-role='course-status']");
  const say = (message) => {
    status.textContent = message;
  };
  wireStep(panel);
  panel.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.copy) copySnippet(panel, button.dataset.copy, say);
    else if (button.dataset.export) download(panel, button.dataset.export, say);
  });
}

for (const panel of document.querySelectorAll("[data-course-panel]")) wireCoursePanel(panel);
