/**
 * toolbar.js — what the page's and the labs' share toolbars have in common: copy text
 * (or, where the browser refuses, show it selected in a box beside the buttons to copy by
 * hand), and say each outcome beside the button (for the eye) and in the page's
 * aria-live line #announce (for the ear). The snippets come from the server.
 */

const STATUS_MS = 8000; // how long an outcome stays beside the buttons

/** Copy text; falls back to a hidden textarea where the Clipboard API is unavailable. */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return text;
  }
  const area = Object.assign(document.createElement("textarea"), { value: text, readOnly: true });
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("the browser refused to copy; select the text and copy it by hand");
  return text;
}

/** Copy `text`; where the browser refuses, put it in a selected box in `bar`. Resolves
 * to the sentence that says what happened. */
export async function copyOrShow(bar, text, what) {
  bar.querySelector(".manual-copy")?.remove();
  try {
    await copyText(text);
    return `${what} copied.`;
  } catch {
    const box = Object.assign(document.createElement("textarea"), {
      value: text,
      readOnly: true,
      rows: 3,
    });
    box.className = "manual-copy";
    box.setAttribute("aria-label", what);
    bar.append(box);
    box.focus();
    box.select();
    return `The browser did not allow copying: ${what} is selected in the box, press Ctrl+C (⌘C).`;
  }
}

/** Show `message` beside the toolbar's buttons for a while and announce it. */
export function barStatus(bar, message) {
  const local = bar.querySelector('[data-role="share-status"]');
  local.textContent = message;
  document.getElementById("announce").textContent = message;
  window.clearTimeout(bar.statusTimer);
  bar.statusTimer = window.setTimeout(() => {
    local.textContent = "";
  }, STATUS_MS);
}
