/**
 * lessons/views.js — each step's figures drawn once, into a box of their own. Steps not
 * yet shown are drawn ahead, while the reader reads, on a shelf off screen at the
 * figures' width (so Plotly sizes them right) that is inert and hidden from assistive
 * technology; a step shown once keeps its box in the figures slot, skipped while
 * another shows (content-visibility: hidden keeps its rendering, so showing it again
 * costs no layout). Next then rarely waits for a chart to be drawn. Nothing here
 * fetches: the source gives each step's data.
 */

import { drawStep } from "./figures.js";

const idle = (fn) =>
  globalThis.requestIdleCallback ? requestIdleCallback(fn, { timeout: 500 }) : setTimeout(fn, 50);

/** The width inside `element`'s padding: the width its figures get (clientWidth counts the
 * padding, and a chart drawn that wide sticks out of the step's box by it). */
function contentWidth(element) {
  const style = getComputedStyle(element);
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  return Math.max(0, element.clientWidth - (Number.isFinite(padding) ? padding : 0));
}

export class StepViews {
  /** `slot`: where the current step's figures show; `shelf`: the off-screen holder. */
  constructor(slot, shelf, source, steps) {
    this.slot = slot;
    this.shelf = shelf;
    this.source = source;
    this.steps = steps;
    this.boxes = new Map(); // step -> Promise of its drawn box
    this.shown = null; // the box on screen
  }

  /** The drawn box of step `i` (drawn now on the shelf if it was not yet). */
  box(i) {
    if (!this.boxes.has(i)) {
      const box = document.createElement("div");
      box.className = "lesson-step-figures";
      box.dataset.stepFigures = String(i);
      // The slot's own width where it is laid out (presenter mode's figure column),
      // else the step's, which a hidden slot gets when shown (one column).
      const width = this.slot.clientWidth || contentWidth(this.slot.parentElement);
      this.shelf.style.width = `${width}px`;
      this.shelf.append(box);
      const drawn = this.source
        .step(i)
        .then((data) => drawStep(box, data, this.source, `lesson-s${i + 1}`))
        .then(() => box);
      drawn.catch(() => {
        this.boxes.delete(i); // asked for again the next time
        box.remove();
      });
      this.boxes.set(i, drawn);
    }
    return this.boxes.get(i);
  }

  /** Show `box` in the slot. A box shown before stays there, its rendering kept but
   * skipped (content-visibility: hidden, inert): showing it again costs no new layout. */
  place(box) {
    for (const other of this.slot.children) {
      if (other === box) continue;
      other.classList.add("lesson-away");
      other.inert = true;
    }
    box.classList.remove("lesson-away");
    this.shown = box;
    box.inert = false;
    if (box.parentElement !== this.slot) this.slot.append(box);
  }

  /** Draw the steps after and before `i` while the reader reads step `i`. */
  ahead(i) {
    const next = [i + 1, i - 1].filter((k) => k >= 0 && k < this.steps && !this.boxes.has(k));
    if (!next.length) return;
    idle(() => {
      this.box(next[0])
        .catch(() => null)
        .then(() => this.ahead(i));
    });
  }
}
