/**
 * stepper.js — Figure 3's player: play / pause / step back / step forward / replay over
 * the frames the server sends. Idle, it shows the final frame. It plays once by itself the
 * first time the figure scrolls into view, unless the reader prefers reduced motion (then
 * nothing moves until they press play). The narration of each frame is text in an
 * aria-live line.
 */

const TICK_MS = 1400;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

export class Stepper {
  constructor(panel, draw) {
    this.panel = panel;
    this.draw = draw;
    this.fig = null;
    this.index = 0;
    this.timer = null;
    panel.addEventListener("click", (event) => {
      const button = event.target.closest("[data-step]");
      if (button) this.command(button.dataset.step);
    });
    this.autoplayOnce();
  }

  /** Play once when the panel first comes into view, if motion is welcome. */
  autoplayOnce() {
    if (reducedMotion.matches) return;
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting) || !this.fig) return;
      observer.disconnect();
      if (!reducedMotion.matches && !this.timer) this.play(0);
    }, { threshold: 0.2 });
    observer.observe(this.panel);
  }

  get last() {
    return this.fig.frames.length - 1;
  }

  /** New figure data: stop, show the final frame (resolves when drawn). */
  load(fig) {
    this.stop();
    this.fig = fig;
    return this.show(this.last);
  }

  show(index) {
    this.index = Math.max(0, Math.min(index, this.last));
    const frame = this.fig.frames[this.index];
    this.panel.querySelector("[data-role=narration]").textContent = frame.narration ?? "";
    this.panel.querySelector("[data-role=step-count]").textContent =
      `Frame ${this.index + 1} of ${this.last + 1}`;
    return this.draw(this.panel, this.fig, frame);
  }

  command(name) {
    if (!this.fig) return;
    if (name === "play") {
      if (this.timer) this.stop();
      else this.play(this.index >= this.last ? 0 : this.index);
    } else if (name === "replay") {
      this.stop();
      this.play(0);
    } else {
      this.stop();
      this.show(this.index + (name === "back" ? -1 : 1));
    }
  }

  play(from) {
    this.show(from);
    this.setPlaying(true);
    this.timer = window.setInterval(() => {
      if (this.index >= this.last) this.stop();
      else this.show(this.index + 1);
    }, TICK_MS);
  }

  stop() {
    if (this.timer) window.clearInterval(this.timer);
    this.timer = null;
    this.setPlaying(false);
  }

  setPlaying(on) {
    const button = this.panel.querySelector("[data-step=play]");
    button.setAttribute("aria-pressed", String(on));
    button.textContent = on ? "❚❚ Pause" : "▶ Play";
  }
}
