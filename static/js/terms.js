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
for (const type of ["pointerover", "focusin"]) {
  document.addEventListener(type, (event) => {
    if (event.target.closest?.(".term-wrap"))
      document.documentElement.classList.remove("tips-hidden");
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
