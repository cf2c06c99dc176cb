/**
 * fold.js — the page's layout on narrow screens: the editor folds into one row under the
 * toolbar (the figures come first) and its button opens it in place; the sticky toolbar's
 * real height is written to --bar-height so an anchored figure (a link to #fig-6) lands
 * below the bar, never under it. Wide screens (editor beside the figures) show it open.
 */

/** Open or close the editor (the button's aria-expanded and the body's class agree). */
export function setEditorOpen(root, open) {
  const toggle = root.querySelector("#editor-toggle");
  if (!toggle) return;
  toggle.setAttribute("aria-expanded", String(open));
  toggle.textContent = open ? "Hide the inputs" : "Edit the inputs";
  root.classList.toggle("open", open);
}

/** Wire the fold button; a link into the editor (#editor, #x-block, …) opens it. */
export function wireEditorFold(root) {
  const toggle = root.querySelector("#editor-toggle");
  if (!toggle) return;
  toggle.addEventListener("click", () => {
    const open = toggle.getAttribute("aria-expanded") !== "true";
    setEditorOpen(root, open);
    if (open) root.querySelector("#editor-body input, #editor-body button")?.focus();
  });
  const openForHash = () => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (target && root.contains(target) && target !== root) {
      setEditorOpen(root, true);
      target.scrollIntoView();
    } else if (target === root) setEditorOpen(root, true);
  };
  window.addEventListener("hashchange", openForHash);
  openForHash();
}

/** Keep --bar-height (on <html>) equal to the sticky bar's height, as it wraps. */
export function measureBar(bar) {
  if (!bar) return;
  const write = () =>
    document.documentElement.style.setProperty(
      "--bar-height",
      `${Math.ceil(bar.getBoundingClientRect().height)}px`,
    );
  write();
  new ResizeObserver(write).observe(bar);
}

const HOLD_MS = 3000;
const READER_MOVES = ["wheel", "touchstart", "keydown", "pointerdown"];

/**
 * A link to a figure (#fig-6) opens the page there, but the figures above it take their
 * real heights only as they are drawn, which would push the target down the screen. For
 * the first seconds, until the reader scrolls, keys or touches, the target is put back
 * under the bar whenever the figures' layout changes. `named` is the id of the figure the
 * link's query names (fig=6: a link whose fragment was lost); the fragment wins.
 */
export function holdAnchor(root, named = null) {
  const inside = (id) => {
    const el = id && document.getElementById(id);
    return el && root.contains(el) ? el : null;
  };
  const hashed = inside(decodeURIComponent(window.location.hash.slice(1)));
  const target = hashed ?? inside(named);
  if (!target) return;
  if (!hashed) target.scrollIntoView({ block: "start" }); // the browser scrolled only to a hash
  const resize = new ResizeObserver(() => target.scrollIntoView({ block: "start" }));
  const release = () => {
    resize.disconnect();
    for (const type of READER_MOVES) window.removeEventListener(type, release, true);
  };
  for (const type of READER_MOVES)
    window.addEventListener(type, release, { capture: true, passive: true });
  resize.observe(root);
  window.setTimeout(release, HOLD_MS);
}
