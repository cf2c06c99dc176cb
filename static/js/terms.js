/**
 * terms.js — on every page (templates/base.html): the glossary tooltips (a term shows
 * its definition on hover and on focus, app/web/glossary.py; Escape hides it until the
 * pointer or the focus moves on, as WCAG 1.4.13 asks) and the header's "Notation" link,
 * which opens the notation key it points to.
 */

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && document.querySelector(".term-wrap:hover, .term-wrap:focus-within"))
    document.documentElement.classList.add("tips-hidden");
});
/** Keep a shown tooltip inside the window: shift it left when it would pass the right edge
 * (a term near the edge of a phone's screen). */
function place(wrap) {
  const tip = wrap.querySelector(".term-tip");
  if (!tip) return;
  tip.style.left = "";
  const box = tip.getBoundingClientRect();
  const over = box.right - (document.documentElement.clientWidth - 8);
  if (box.width && over > 0) tip.style.left = `${-Math.min(over, box.left - 8)}px`;
}

for (const type of ["pointerover", "focusin"]) {
  document.addEventListener(type, (event) => {
    const wrap = event.target.closest?.(".term-wrap");
    if (!wrap) return;
    document.documentElement.classList.remove("tips-hidden");
    requestAnimationFrame(() => place(wrap));
  });
}

function openKey(id) {
  const details = document.getElementById(id);
  if (details instanceof HTMLDetailsElement) details.open = true;
}

document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[data-opens]");
  if (link) openKey(link.dataset.opens);
});
if (window.location.hash === "#notation") openKey("notation");
