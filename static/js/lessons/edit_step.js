/**
 * lessons/edit_step.js — one step of the lesson editor as a form: its state described,
 * Move up / Move down / Remove, title and text, and the question: a kind (those the
 * step's page may ask: a lab section only the teacher's own), then only the menus that
 * kind reads (stage, row, column, largest or smallest, tolerance, quantity, change; a
 * teacher's choices, the right one and why), rows and columns named by the state's
 * tokens once `fillTokens(body)` has them. Every control carries data-field (a choice
 * also data-index); lessons/edit.js reads it.
 */

import { shows } from "./draft_core.js";

function el(tag, props = {}, children = []) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function labelled(text, control, forField = null) {
  const label = el("label", {}, [`${text} `, control]);
  if (forField) label.dataset.for = forField;
  return label;
}

function select(field, options, value) {
  const node = el(
    "select",
    {},
    options.map(([v, text]) => el("option", { value: v, textContent: text })),
  );
  node.dataset.field = field;
  if (value !== undefined && value !== null) node.value = String(value);
  return node;
}

function input(field, props) {
  const node = el(props.rows ? "textarea" : "input", props);
  node.dataset.field = field;
  return node;
}

function describe(state) {
  if (state.page === "lab") {
    return `Lab ${state.lab}, section ${state.section}${state.query ? ` (${state.query})` : ""}`;
  }
  const figures = state.figures.length === 1 ? "Figure" : "Figures";
  const model = new URLSearchParams(state.query);
  if (model.has("model")) {
    const [id, layer, head] = ["model", "layer", "head"].map((k) => model.get(k));
    return `Main page, ${figures} ${state.figures.join(", ")} · ${id}, layer ${layer}, head ${head}: “${model.get("text")}”`;
  }
  return `Main page, ${figures} ${state.figures.join(", ")} · ${state.query || "the running example"}`;
}

function button(act, text, label) {
  const node = el("button", { type: "button", className: "button small", textContent: text });
  node.dataset.act = act;
  node.setAttribute("aria-label", label);
  return node;
}

/** Whether the question's kind may leave its row out (click_cell: the whole grid). */
function anyRow(q, declared) {
  return declared.kinds[q.kind]?.keys.row === false;
}

/** A teacher's choices (as many boxes as the declaration allows; the first `least` needed),
 * the right one and why. */
function ownFields(q, declared) {
  const { least, most, chars } = declared.choices;
  const boxes = Array.from({ length: most }, (_, i) => {
    const box = input("choice", { type: "text", maxLength: chars, value: q.choices?.[i] ?? "" });
    box.dataset.index = String(i);
    return labelled(`Choice ${i + 1}${i < least ? "" : " (optional)"}`, box);
  });
  const choices = el("fieldset", { className: "editor-choices" }, [
    el("legend", { textContent: "Choices" }),
    ...boxes,
  ]);
  choices.dataset.for = "choices";
  const numbers = Array.from({ length: most }, (_, i) => [String(i + 1), `Choice ${i + 1}`]);
  return [
    choices,
    labelled("Right choice", select("right", numbers, q.right), "right"),
    labelled(
      "Why (optional, shown with the answer)",
      input("why", { type: "text", maxLength: declared.choices.why_chars, value: q.why ?? "" }),
      "why",
    ),
  ];
}

function questionFields(step, menus) {
  const q = step.question ?? {};
  const { declared } = menus;
  const kinds = [
    ["", "No question"],
    ...Object.entries(declared.kinds)
      .filter(([, v]) => v.states.includes(step.state.page))
      .map(([k, v]) => [k, v.label]),
  ];
  const kind = select("kind", kinds, q.kind ?? "");
  const fields = el("div", { className: "question-fields" });
  fields.hidden = !q.kind;
  const rows = select("row", anyRow(q, declared) ? [["", "the whole grid"]] : [], q.row);
  fields.append(
    labelled("Prompt", input("prompt", { type: "text", maxLength: 300, value: q.prompt ?? "" })),
    labelled(
      "Stage",
      select(
        "stage",
        declared.stages.map((s) => [s, s]),
        q.stage,
      ),
      "stage",
    ),
    labelled("Row", rows, "row"),
    labelled("Column", select("col", [], q.col), "col"),
    labelled("Cell", select("which", Object.entries(declared.which), q.which), "which"),
    labelled(
      "Tolerance (optional)",
      input("tolerance", { type: "number", step: "any", min: "0", value: q.tolerance ?? "" }),
      "tolerance",
    ),
    labelled(
      "Quantity",
      select("quantity", Object.entries(declared.quantities), q.quantity),
      "quantity",
    ),
    labelled("When we", select("change", Object.entries(menus.changes), step._change), "change"),
    ...ownFields(q, declared),
  );
  for (const label of fields.querySelectorAll("[data-for]")) {
    label.hidden = !shows(q, label.dataset.for, declared);
  }
  return [labelled("Question", kind), fields];
}

/** The form of step `i` (of `count`); `menus`: `declared` (the question kinds, their keys,
 * stages and words: app/lessons/kinds.py) and `changes`. */
export function stepFields(step, i, count, menus) {
  const head = el("h2", { id: `editor-step-${i}`, textContent: `Step ${i + 1}` });
  const item = el("li", { className: "editor-step" }, [
    head,
    el("p", { className: "editor-state", textContent: describe(step.state) }),
    el("div", { className: "row-wrap" }, [
      button("up", "↑ Move up", `Move step ${i + 1} up`),
      button("down", "↓ Move down", `Move step ${i + 1} down`),
      button("remove", "Remove", `Remove step ${i + 1}`),
    ]),
    labelled("Title", input("title", { type: "text", maxLength: 120, value: step.title ?? "" })),
    labelled("Text", input("text", { rows: 3, maxLength: 2000, value: step.text ?? "" })),
  ]);
  item.dataset.step = String(i);
  item.setAttribute("aria-labelledby", head.id);
  item.querySelector('[data-act="up"]').disabled = i === 0;
  item.querySelector('[data-act="down"]').disabled = i === count - 1;
  const note = el("p", { className: "hint" });
  item.append(...questionFields(step, menus));
  if (step.state.page !== "main")
    note.textContent =
      "A lab section may ask your own multiple-choice question; the computed questions ask about main-page steps.";
  item.append(note);
  return {
    element: item,
    note: (text) => {
      note.textContent = text;
    },
    fillTokens(body) {
      const q = step.question ?? {};
      const tokens = body.tokens ?? [];
      const keys = body.source?.tokens ?? tokens;
      const rowSelect = item.querySelector('[data-field="row"]');
      const colSelect = item.querySelector('[data-field="col"]');
      if (!rowSelect) return;
      const whole = anyRow(q, menus.declared)
        ? [el("option", { value: "", textContent: "the whole grid" })]
        : [];
      rowSelect.replaceChildren(
        ...whole,
        ...tokens.map((t, r) =>
          el("option", { value: String(r + 1), textContent: `${t} (row ${r + 1})` }),
        ),
      );
      colSelect.replaceChildren(
        ...keys.map((t, c) =>
          el("option", { value: String(c + 1), textContent: `${t} (column ${c + 1})` }),
        ),
      );
      rowSelect.value = q.row ? String(q.row) : whole.length ? "" : "1";
      colSelect.value = String(q.col ?? 1);
    },
  };
}
