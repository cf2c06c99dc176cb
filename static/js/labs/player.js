/**
 * labs/player.js — Figure 3's player for a lab figure that has `frames` (B1's stepper):
 * ◀ step back, ▶ play / ❚❚ pause, step forward ▶, ↺ replay, over the frames the server
 * sent in one answer (each frame is a whole figure state: caption, grids, quotations,
 * arithmetic line). Idle, it shows the frame the state names (by default the final one).
 * It plays once by itself the first time the figure scrolls into view, only when the
 * state is the default resting frame and the reader does not prefer reduced motion.
 * When the reader settles on a frame, `onSettle(index)` lets the page record it (URL).
 * No numbers are made here.
 */

import { Stepper } from "../stepper.js";
import { renderFigure } from "./render.js";

export class Player extends Stepper {
  /** `panel` holds the [data-step] buttons and [data-role=step-count]. */
  constructor(panel, { onSettle = () => {}, options = {} } = {}) {
    super(panel, (p, fig, frame) => renderFigure(p, { ...fig, ...frame }, options), {
      onSettle,
      unit: "Step",
    });
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
