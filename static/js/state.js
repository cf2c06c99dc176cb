/**
 * state.js — the page state and its URL form. DOM-free (no document, no window.location
 * reads), so it is the same module for the main page and the embeds.
 *
 * A state is { body, view }:
 *   body: a POST /api/v1/attention request body (tokens, x, w_q, w_k, w_v, source,
 *         scale, mask, padding, heads, w_o);
 *   view: { focus, head, stretch, row, theme } — what the figures explain and how.
 *
 * URL form (query string), read by app/inputs/link.py on the server (the page never reads a
 * link: the server resolves it and hands the page its state in #initial-state):
 *   preset=<id>        a named example, used when `s` is absent;
 *   s=<base64url JSON> the body, compact JSON of UTF-8, base64url without padding;
 *   focus, head, stretch, row (textbook|focus), theme (light|dark|auto): the view;
 *   fig=<N>            the figure a link is about, with #fig-<N> (figureLink).
 * Numbers travel as JSON numbers, so a reopened link computes exactly the same values.
 */

// What a link leaves out: the server's defaults of the view (#initial-state, or the
// embed's data block, ``view_defaults``), set once by the page's entry module.
let viewDefaults = {};

/** The server's default view values (``app.inputs.view.url_defaults``). */
export function setViewDefaults(defaults) {
  viewDefaults = Object.freeze({ ...defaults });
}

/**
 * The query and fragment of a link to figure N of the page: `?<query>&fig=N#fig-N`. The
 * server reads `fig` (the page's oEmbed discovery link then embeds Figure N); the
 * fragment scrolls, but browsers never send it. No figure: `?<query>` alone.
 */
export function figureLink(query, figure = null) {
  if (!figure) return `?${query}`;
  // the other pieces as they were written (no re-encoding), any earlier fig= dropped
  const pieces = query.split("&").filter((p) => p && p.split("=")[0] !== "fig");
  return `?${[...pieces, `fig=${figure}`].join("&")}#fig-${figure}`;
}

/** UTF-8 JSON -> base64url without padding. */
export function encodeBody(body) {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Query string for a state. `presetId` is used instead of the body when the body is the
 * preset unchanged (the caller decides that), which keeps pinned links short and readable.
 */
export function toQuery({ body, view }, presetId = null) {
  const params = new URLSearchParams();
  if (presetId) params.set("preset", presetId);
  else params.set("s", encodeBody(body));
  const rest = viewQuery(view);
  return rest ? `${params}&${rest}` : params.toString();
}

/** The view's part of a query: the keys that differ from the server's defaults. */
export function viewQuery(view) {
  const params = new URLSearchParams();
  for (const key of Object.keys(viewDefaults)) {
    if (view[key] !== undefined && view[key] !== viewDefaults[key]) {
      params.set(key, String(view[key]));
    }
  }
  return params.toString();
}

/**
 * The `view` of a POST /api/v1/figures request: the page's view under the API's names
 * (the URL's `row` is `softmax_row` in JSON), the colour scheme to draw in and the
 * figures wanted. The one place the page's view becomes the API's.
 */
export function figuresView({ focus, head, stretch, row }, theme, figures) {
  return { focus, head, stretch, softmax_row: row, theme, figures };
}
