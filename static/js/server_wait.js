/**
 * server_wait.js — the page's "waiting for the server…" notice, shown while `api.js`
 * waits for a busy server (a 503 with Retry-After) before asking again, so a learner
 * sees why nothing changed yet instead of an error. One polite live region at the foot
 * of the page, shared by every request that waits; it goes when the last one is done.
 * Touches the document only when a request waits (node imports it through api.js).
 */

const waiting = new Set(); // the requests waiting now
let region = null;

function regionOf() {
  if (!region) {
    region = document.createElement("p");
    region.className = "server-wait";
    region.setAttribute("role", "status");
    region.hidden = true;
    document.body.append(region);
  }
  return region;
}

/** Request `id` waits `seconds` before asking again; null: it is done waiting. */
export function notice(seconds, id) {
  const el = regionOf();
  if (seconds === null) {
    waiting.delete(id);
    if (!waiting.size) el.hidden = true;
    return;
  }
  waiting.add(id);
  el.textContent = `Waiting for the server… (many people are asking at once; trying again in ${seconds} s)`;
  el.hidden = false;
}
