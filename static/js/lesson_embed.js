/**
 * lesson_embed.js — the frame side of /embed/lesson/{id} and /embed/lesson?l=… (the player
 * itself is the lesson page's, lessons/page.js): tells the host page the embed's height
 * whenever it changes (each step has its own), as the figure embeds do, and keeps a fixed
 * height when the URL asks for one (height=N: the document is N CSS px and scrolls inside).
 *
 * Height message, posted to window.parent with targetOrigin "*":
 *   { type: "attention-lab:height", lesson: <id or null>, height: <px> }
 */

const frame = JSON.parse(document.getElementById("embed-data").textContent);

if (frame.height) {
  document.documentElement.classList.add("fixed-height");
  document.documentElement.style.height = `${frame.height}px`;
}

let lastHeight = 0;
function postHeight() {
  // The body's own box, not the document's scrollHeight: the player keeps the steps it
  // draws ahead on an off-screen shelf that must not make the frame taller.
  const height = frame.height ?? Math.ceil(document.body.getBoundingClientRect().height);
  if (height === lastHeight || window.parent === window) return;
  lastHeight = height;
  window.parent.postMessage({ type: "attention-lab:height", lesson: frame.lesson, height }, "*");
}

new ResizeObserver(postHeight).observe(document.body);
postHeight();
