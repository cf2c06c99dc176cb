/**
 * stepper.js — Figure 3's player: play / pause / step back / step forward / replay over
 * the frames the server sends. Idle, it shows the final frame. It plays once by itself the
 * first time the figure scrolls into view, unless the reader prefers reduced motion (then
 * nothing moves until they press play). The narration of each frame is text in an
 * aria-live line. A lab's player (labs/player.js) extends it: its own drawing, the frame
 * it rests on, and `onSettle(index)` when the reader settles on a frame.
 */

import { setRich } from "./dom.js";

const TICK_MS = 1400;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

export class Stepper {
  /** `draw(panel, fig, frame)` paints one frame; `unit` names a frame in the count line. */
  constructor(panel, draw, { onSettle = () => {}, unit = "Frame" } = {}) {
    this.panel = panel;
    this.draw = draw;
    this.onSettle = onSettle;
    this.unit = unit;
    this.fig = null;
    this.index = 0;
    this.timer = null;
    panel.addEventListener("click", (event) => {
      const button = event.target.closest("[data-step]");
      if (button && panel.contains(button)) this.command(button.dataset.step);
    });
    this.autoplayOnce();
  }

  /** Play once when the panel first comes into view, if motion is welcome. */
  autoplayOnce() {
    if (reducedMotion.matches) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting) || !this.fig) return;
        observer.disconnect();
        if (!reducedMotion.matches && !this.timer && this.mayAutoplay()) this.play(0);
      },
      { threshold: 0.2 },
    );
    observer.observe(this.panel);
  }

  /** Whether the first sight of the panel may start playing. */
  mayAutoplay() {
    return true;
  }

  get last() {
    return this.fig.frames.length - 1;
  }

  /** The frame a figure rests on: the final one. */
  restingIndex(fig) {
    return fig.frames.length - 1;
  }

  /** New figure data: stop, show its resting frame (resolves when drawn). */
  load(fig) {
    this.stop();
    this.fig = fig;
    return this.show(this.restingIndex(fig));
  }

  show(index) {
    this.index = Math.max(0, Math.min(index, this.last));
    const frame = this.fig.frames[this.index];
    const narration = this.panel.querySelector("[data-role=narration]");
    if (narration) setRich(narration, frame.narration ?? "");
    const count = this.panel.querySelector("[data-role=step-count]");
    if (count) count.textContent = `${this.unit} ${this.index + 1} of ${this.last + 1}`;
    return this.draw(this.panel, this.fig, frame);
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

  /** Stop playing and report the frame shown. */
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
