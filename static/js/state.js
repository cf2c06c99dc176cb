/**
 * state.js — the page state and its URL form. DOM-free (no document, no window.location
 * reads), so it is the same module for the main page and the embeds.
 *
 * A state is { body, view }:
 *   body: a POST /api/v1/attention request body (tokens, x, w_q, w_k, w_v, source,
 *         scale, mask, padding, heads, w_o);
 *   view: { focus, head, stretch, row, theme } — what the figures explain and how.
 *
 * URL form (query string), mirrored by app/state.py on the server:
 *   preset=<id>        a named example, used when `s` is absent;
 *   s=<base64url JSON> the body, compact JSON of UTF-8, base64url without padding;
 *   focus, head, stretch, row (textbook|focus), theme (light|dark|auto): the view.
 * Numbers travel as JSON numbers, so a reopened link computes exactly the same values.
 */

export const VIEW_DEFAULTS = Object.freeze({
  focus: 1,
  head: 0,
  stretch: 8,
  row: "textbook",
  theme: "auto",
});

const VIEW_KEYS = Object.keys(VIEW_DEFAULTS);

/** UTF-8 JSON -> base64url without padding. */
export function encodeBody(body) {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** base64url -> the body object; throws Error with a readable message when malformed. */
export function decodeBody(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  const body = JSON.parse(new TextDecoder().decode(bytes));
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new Error("the link's state is not an object");
  }
  return body;
}

/**
 * Query string for a state. `presetId` is used instead of the body when the body is the
 * preset unchanged (the caller decides that), which keeps pinned links short and readable.
 */
export function toQuery({ body, view }, presetId = null) {
  const params = new URLSearchParams();
  if (presetId) params.set("preset", presetId);
  else params.set("s", encodeBody(body));
  for (const key of VIEW_KEYS) {
    if (view[key] !== undefined && view[key] !== VIEW_DEFAULTS[key]) {
      params.set(key, String(view[key]));
    }
  }
  return params.toString();
}

/**
 * Parse a query string into { presetId, body, view }. `body` is null when only a preset
 * is named (fetch it from /api/v1/presets/<id>). Unknown view values fall back to defaults;
 * the server validates the body itself and names any bad field.
 */
export function fromQuery(search) {
  const params = new URLSearchParams(search);
  const view = { ...VIEW_DEFAULTS };
  for (const key of ["focus", "head"]) {
    const n = Number.parseInt(params.get(key) ?? "", 10);
    if (Number.isInteger(n) && n >= 0) view[key] = n;
  }
  const stretch = Number.parseFloat(params.get("stretch") ?? "");
  if (Number.isFinite(stretch)) view.stretch = stretch;
  if (["textbook", "focus"].includes(params.get("row"))) view.row = params.get("row");
  if (["light", "dark", "auto"].includes(params.get("theme"))) view.theme = params.get("theme");
  const s = params.get("s");
  return { presetId: s ? null : params.get("preset"), body: s ? decodeBody(s) : null, view };
}
