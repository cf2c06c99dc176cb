/**
 * labs/player.js — Figure 3's player for a lab figure that has `frames` (B1's stepper):
 * ◀ step back, ▶ play / ❚❚ pause, step forward ▶, ↺ replay, over the frames the server
 * sent in one answer (each frame is a whole figure state: caption, grids, quotations,
 * arithmetic line). Idle, it shows the frame the state names (by default the final one).
 * It plays once by itself the first time the figure scrolls into view, only when the
 * state is the default resting frame and the reader does not prefer reduced motion.
 *
 * The panel's `step` control (a steps slider, on the lab page and in an embed with
 * controls) follows every frame shown, while playing too. When the reader settles on a
 * frame the state does not name yet, `onSettle(index)` lets the page record it (URL).
 * No numbers are made here.
 */

import { Stepper } from "../stepper.js";
import { setStep } from "./controls.js";
import { renderFigure } from "./render.js";

export class Player extends Stepper {
  /**
   * `panel` holds the [data-step] buttons, [data-role=step-count] and perhaps the
   * [data-control=step] slider; `described` maps control keys to their descriptions
   * (the slider's labels); `options` are renderFigure's.
   */
  constructor(panel, { onSettle = () => {}, options = {}, described = {} } = {}) {
    super(panel, (p, fig, frame) => renderFigure(p, { ...fig, ...frame }, options), {
      onSettle: (index) => this.record(index, onSettle),
      unit: "Step",
    });
    this.described = described;
    this.recorded = null; // the frame the state names: the answer's, or the last recorded
  }

  /** The step slider of this panel, if it has one. */
  get stepControl() {
    return this.panel.querySelector('[data-control="step"]');
  }

  load(fig) {
    this.recorded = this.restingIndex(fig);
    return super.load(fig);
  }

  /** Show frame `index` and move the step slider to it (playing or not). */
  show(index) {
    const drawn = super.show(index);
    const el = this.stepControl;
    if (el) setStep(el, this.described[el.dataset.key], this.index);
    return drawn;
  }

  /** A settled frame is recorded once, and only where a step control can carry it. */
  record(index, onSettle) {
    if (!this.stepControl || index === this.recorded) return;
    this.recorded = index;
    onSettle(index);
  }

  /** Only the default resting frame plays by itself; a link to a step stays on it. */
  mayAutoplay() {
    return this.index === this.last;
  }

  /** The frame the state names (`step`, 1-based), by default the final one. */
  restingIndex(fig) {
    return (fig.step ?? fig.frames.length) - 1;
  }
}
