/**
 * course_panel.js — the "Use in a course" panel of a lesson (templates/macros/course.html):
 * copies a course-site snippet (the server wrote them all: app/web/lesson_snippets.py) and
 * downloads the lesson as offline HTML or a SCORM package (POST /api/v1/lessons/export
 * with the lesson JSON the panel holds, and for SCORM the pass mark typed in the panel,
 * `mastery`, 0–100, default 80). Outcomes are said beside the buttons, in an
 * aria-live line. No maths.
 */

import { send, siteUrl } from "./api.js";
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

export function wireCoursePanel(panel) {
  const status = panel.querySelector("[data-role='course-status']");
  const say = (message) => {
    status.textContent = message;
  };
  panel.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.copy) copySnippet(panel, button.dataset.copy, say);
    else if (button.dataset.export) download(panel, button.dataset.export, say);
  });
}

for (const panel of document.querySelectorAll("[data-course-panel]")) wireCoursePanel(panel);
