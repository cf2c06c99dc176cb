/**
 * lessons/collect.js — "Add to lesson" on every main-page figure and every lab section:
 * the figure's current state (the page's URL, which follows every edit) becomes a step of
 * the lesson draft kept in this browser (draft_core.js), then /lessons/edit orders and
 * writes it. Loaded beside the page's own script; touches nothing but its buttons.
 */

import { siteUrl } from "../api.js";
import { addStep, DRAFT_KEY, labStep, mainStep, readDraft } from "./draft_core.js";

/** An element's text as the server wrote it: each <math> read back as its source
 * ("√d_k", its alttext), so a step's title keeps the notation. */
function sourceText(el) {
  if (!el) return "";
  const copy = el.cloneNode(true);
  for (const math of copy.querySelectorAll("math")) {
    math.replaceWith(math.getAttribute("alttext") ?? math.textContent);
  }
  return copy.textContent.replace(/\s+/g, " ").trim();
}

function storeDraft(update) {
  const draft = update(readDraft(localStorage.getItem(DRAFT_KEY)));
  localStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
  return draft;
}

function control(label) {
  const box = Object.assign(document.createElement("span"), { className: "lesson-add" });
  const button = Object.assign(document.createElement("button"), {
    type: "button",
    className: "button tiny",
    textContent: "Add to lesson",
  });
  button.dataset.lessonAdd = "";
  button.setAttribute("aria-label", `Add ${label} to your lesson`);
  const status = Object.assign(document.createElement("span"), { className: "lesson-add-status" });
  status.setAttribute("role", "status");
  box.append(button, status);
  return { box, button, status };
}

function added(status, draft) {
  const link = Object.assign(document.createElement("a"), {
    href: siteUrl("/lessons/edit"),
    textContent: "open the lesson editor",
  });
  status.replaceChildren(`Added as step ${draft.steps.length}: `, link);
}

/** Where the control goes: a lab section's toolbar; under a main-page figure, a line of
 * its own at the foot (its toolbar already fills a phone's width: a sixth button would
 * wrap it onto a second row above the plot). */
function place(panel, box) {
  if (panel.matches("section.figure-panel")) {
    const foot = Object.assign(document.createElement("p"), { className: "lesson-foot" });
    foot.append(box);
    panel.append(foot);
    return;
  }
  (panel.querySelector(".share-bar") ?? panel.querySelector(".figure-head")).append(box);
}

function wire(panel, label, makeStep) {
  const { box, button, status } = control(label);
  place(panel, box);
  button.addEventListener("click", () => {
    try {
      added(
        status,
        storeDraft((draft) => addStep(draft, makeStep())),
      );
    } catch (error) {
      status.textContent = `Not added: ${error.message}.`;
    }
  });
}

function mainPage(root) {
  for (const panel of root.querySelectorAll("section.figure-panel[data-figure]")) {
    const n = Number(panel.dataset.figure);
    const title = () => sourceText(panel.querySelector("[data-role=title]"));
    wire(panel, `Figure ${n}`, () => mainStep(n, title(), window.location.search));
  }
}

function labPage(root, state) {
  const lab = root.dataset.lab;
  for (const panel of root.querySelectorAll("section.lab-panel[data-figure]")) {
    const name = panel.dataset.figure;
    const entry = panel.querySelector(".fig-number")?.textContent?.trim() ?? name;
    const sources = [name, ...(state.reads?.[name] ?? [])];
    const keys = ["preset", "s"];
    for (const source of sources) for (const c of state.controls?.[source] ?? []) keys.push(c.key);
    const title = () => `${entry}: ${sourceText(panel.querySelector("[data-role=title]"))}`;
    wire(panel, entry, () => labStep(lab, name, title(), window.location.search, keys));
  }
}

const main = document.getElementById("main");
const labState = document.getElementById("lab-state");
if (labState) labPage(main, JSON.parse(labState.textContent));
else mainPage(main);
