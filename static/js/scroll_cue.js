/**
 * scroll_cue.js — wide tables and grids that scroll sideways say so. Each container that
 * `watchScrollCues` is given (now and as panels redraw) gets data-more="left right" for
 * the sides with hidden content (app.css fades that edge), and, while it overflows, a tab
 * stop and a region label naming what it holds, so a keyboard or screen-reader user can
 * reach and scroll it. Nothing changes for a container whose content fits.
 */

import { scrollSides } from "./grid_core.js";

const watched = new WeakSet();

/** The region's name: the panel's title, what the box holds, and that it scrolls. */
function labelOf(box, what) {
  const title = box.closest("[data-figure]")?.querySelector("h2, h3")?.textContent?.trim();
  const heading = box.querySelector(".grid-heading")?.textContent?.trim();
  const name = [title, heading ?? what].filter(Boolean).join(": ");
  return `${name} (scrolls sideways: more to the ${box.dataset.more.replace(" ", " and ")})`;
}

/** Refresh one container's cue, tab stop and label. */
export function updateCue(box) {
  const sides = scrollSides(box.scrollLeft, box.scrollWidth, box.clientWidth);
  const more = sides.join(" ");
  if ((box.dataset.more ?? "") !== more) {
    if (more) box.dataset.more = more;
    else delete box.dataset.more;
  }
  if (more) {
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", labelOf(box, box.dataset.cue || "table"));
  } else if (box.hasAttribute("aria-label")) {
    box.removeAttribute("tabindex");
    box.removeAttribute("role");
    box.removeAttribute("aria-label");
  }
}

/**
 * Watch every element matching `selector` under `root`, those drawn later too; `what`
 * names their content in the label ("table", "grid"). Sizes are read in ResizeObserver
 * callbacks (after layout, so no forced layout), and only new elements are scanned.
 */
export function watchScrollCues(root, selector, what) {
  const boxOf = (el) => (el.matches(selector) ? el : el.parentElement?.closest(selector));
  const resize = new ResizeObserver((entries) => {
    for (const entry of entries) {
      const box = boxOf(entry.target);
      if (box) updateCue(box);
    }
  });
  const watch = (box) => {
    if (!watched.has(box)) {
      watched.add(box);
      box.dataset.cue = what;
      box.addEventListener("scroll", () => updateCue(box), { passive: true });
      resize.observe(box);
    }
    for (const child of box.children) resize.observe(child);
  };
  const added = (records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== Node.ELEMENT_NODE) continue;
        const box = boxOf(node);
        if (box) watch(box);
        for (const inner of node.querySelectorAll(selector)) watch(inner);
      }
    }
  };
  new MutationObserver(added).observe(root, { childList: true, subtree: true });
  for (const box of root.querySelectorAll(selector)) watch(box);
}
