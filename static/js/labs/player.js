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

import { renderFigure } from "./render.js";

const TICK_MS = 1400;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

export class Player {
  /** `panel` holds the [data-step] buttons and [data-role=step-count]. */
  constructor(panel, { onSettle = () => {}, options = {} } = {}) {
    this.panel = panel;
    this.onSettle = onSettle;
    this.options = options;
    this.fig = null;
    this.index = 0;
    this.timer = null;
    panel.addEventListener("click", (event) => {
      const button = event.target.closest("[data-step]");
      if (button && panel.contains(button)) this.command(button.dataset.step);
    });
    this.autoplayOnce();
  }

  autoplayOnce() {
    if (reducedMotion.matches) return;
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting) || !this.fig) return;
      observer.disconnect();
      if (!reducedMotion.matches && !this.timer && this.index === this.last) this.play(0);
    }, { threshold: 0.2 });
    observer.observe(this.panel);
  }

  get last() {
    return this.fig.frames.length - 1;
  }

  /** A new answer: stop and show the frame its state names. */
  load(fig) {
    this.stop();
    this.fig = fig;
    return this.show((fig.step ?? fig.frames.length) - 1);
  }

  show(index) {
    this.index = Math.max(0, Math.min(index, this.last));
    const frame = this.fig.frames[this.index];
    const count = this.panel.querySelector("[data-role=step-count]");
    if (count) count.textContent = `Step ${this.index + 1} of ${this.last + 1}`;
    return renderFigure(this.panel, { ...this.fig, ...frame }, this.options);
  }

  command(name) {
    if (!this.fig) return;
    if (name === "play") {
      if (this.timer) this.settle();
      else this.play(this.index >= this.last ? 0 : this.index);
    } else if (name === "replay") {
      this.stop();
      this.play(0);
    } else {
      this.stop();
      this.show(this.index + (name === "back" ? -1 : 1));
      this.onSettle(this.index);
    }
  }

  play(from) {
    this.show(from);
    this.setPlaying(true);
    this.timer = window.setInterval(() => {
      if (this.index >= this.last) this.settle();
      else this.show(this.index + 1);
    }, TICK_MS);
  }

  /** Stop playing and record the frame shown. */
  settle() {
    this.stop();
    this.onSettle(this.index);
  }

  stop() {
    if (this.timer) window.clearInterval(this.timer);
    this.timer = null;
    this.setPlaying(false);
  }

  setPlaying(on) {
    const button = this.panel.querySelector("[data-step=play]");
    if (!button) return;
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "❚❚ Pause" : "▶ Play";
  }
}
