/**
 * short_links.js — a short link for a page state or a lesson: POST /api/v1/short-links
 * stores it on the server by its content hash and answers /s/<id> or /l/<id>
 * (app/api/short_links.py). Resolves to null whenever there is none to give (the server
 * refuses: too large, too many this minute, no database; or it cannot be reached), so the
 * caller offers the long, self-contained link instead. No maths.
 */

import { siteUrl } from "./api.js";

const WAIT_MS = 4000; // past this the long link is offered: a copy should not hang

/** The short link of `content`, { state: "<query>" } or { lesson: {...} }, or null. */
export async function shortLink(content) {
  try {
    const response = await fetch(siteUrl("/api/v1/short-links"), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(content),
      signal: AbortSignal.timeout(WAIT_MS),
    });
    if (!response.ok) return null;
    const made = await response.json();
    // as the page writes its long links: this origin and the site's root path
    return `${window.location.origin}${siteUrl(made.path)}`;
  } catch {
    return null;
  }
}

/** The short link of the main-page link `link` (its query: the state), or null. */
export function shortPageLink(link) {
  const query = new URL(link, window.location.href).search.replace(/^\?/, "");
  return query ? shortLink({ state: query }) : Promise.resolve(null);
}

// A link or an embed URL this long is kept as it is: it fits any field, reads as what it
// opens, and needs no database.
export const SHORT_ENOUGH = 200;

/**
 * The <iframe> snippet `snippet` (the server's, for the page link `link`'s figure) with a
 * short `src` (/e/<id>: the server redirects it to the embed) when its own is long and the
 * server stores the state; else `snippet` as it is.
 */
export async function shortEmbedSnippet(snippet, link) {
  const holder = document.createElement("template");
  holder.innerHTML = snippet;
  const frame = holder.content.querySelector("iframe");
  if (!frame || frame.src.length <= SHORT_ENOUGH) return snippet;
  const short = await shortPageLink(link);
  if (!short) return snippet;
  const id = short.slice(short.lastIndexOf("/") + 1);
  frame.src = `${window.location.origin}${siteUrl(`/e/${id}`)}`;
  return holder.innerHTML;
}
