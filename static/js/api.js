/**
 * api.js — the one fetch wrapper of the page, the embeds and the labs, and `siteUrl`, the
 * one way a script names a URL of this site (under the root path). Every request to
 * the server goes through `send`: it asks for JSON (or what `accept` names), sends a JSON
 * body when given one, and turns an answer that is not 2xx into an ApiError carrying the
 * server's one error shape, `detail: [{ field, msg, type }]`, so callers show the
 * server's words rather than a status code. A 503 (every heavy slot of the server busy,
 * its queue full) is not an error yet: `send` says "waiting for the server…" (`onWait`,
 * by default `server_wait.js` in a page) and asks again after the answer's Retry-After,
 * for up to `WAIT_BUDGET_MS`, before it rejects. `LatestOnly` keeps one request in flight per
 * endpoint (a newer edit aborts the older); `targetOf` says where an error's field points
 * on the page. DOM-free: only fetch and AbortController, as in node.
 */

import { notice } from "./server_wait.js";

/**
 * `path`, absolute inside the app ("/api/v1/figures", "/?preset=…", "/embed/6"), as the
 * browser must ask for it: behind a proxy that serves the app at /attention/ the server
 * writes <html data-root="/attention"> and this returns "/attention/api/v1/figures". Every
 * absolute path a script fetches or links goes through it. No document (node): no root.
 */
export function siteUrl(path) {
  return `${globalThis.document?.documentElement?.dataset.root ?? ""}${path}`;
}

/** An answer that is not 2xx: `status` (0 when the server was not reached) and `errors`. */
export class ApiError extends Error {
  constructor(status, errors) {
    super(errors.map((e) => (e.field ? `${e.field}: ${e.msg}` : e.msg)).join("; "));
    this.name = "ApiError";
    this.status = status;
    this.errors = errors;
  }
}

/** The `detail` list of an error answer (its parsed JSON, or null), never empty. */
export function errorList(data, status) {
  if (Array.isArray(data?.detail) && data.detail.length) return data.detail;
  const msg = typeof data?.detail === "string" ? data.detail : `the server answered ${status}`;
  return [{ field: "body", msg }];
}

// How long a request keeps asking again while the server answers 503, and the longest
// single wait: a class opening one page at once is served within seconds (the server
// queues and shares identical work), so a minute covers a busy lecture.
export const WAIT_BUDGET_MS = 60_000;
const MAX_WAIT_S = 30;

/** Seconds to wait before asking again, from a Retry-After value (seconds or an HTTP
 * date; absent or unreadable: 1), between 1 and MAX_WAIT_S. */
export function retryAfterSeconds(value, now = Date.now()) {
  const text = String(value ?? "").trim();
  let seconds = /^\d+$/.test(text) ? Number(text) : (Date.parse(text) - now) / 1000;
  if (!Number.isFinite(seconds)) seconds = 1;
  return Math.min(MAX_WAIT_S, Math.max(1, Math.ceil(seconds)));
}

/** Sleep `ms`, or reject with the AbortError when `signal` aborts first. */
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new DOMException("aborted", "AbortError"));
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason ?? new DOMException("aborted", "AbortError"));
      },
      { once: true },
    );
  });
}

/** The page's "waiting for the server…" notice for request `id` (nothing in node);
 * `seconds` null: its wait is over. */
function pageNotice(seconds, id) {
  if (globalThis.document) notice(seconds, id);
}

/**
 * fetch with the pages' conventions. Options: `json` (a body, sent as JSON with POST),
 * `signal` (an abort rejects with the AbortError, which callers ignore), `accept`,
 * `onWait(seconds | null, id)` (told of each wait for a busy server, then null, with an
 * id of this request; default the page's notice), `waitBudgetMs` (0: a 503 rejects at once).
 * Resolves to the Response when it is 2xx; otherwise rejects with an ApiError.
 */
export async function send(
  url,
  {
    json,
    signal,
    accept = "application/json",
    onWait = pageNotice,
    waitBudgetMs = WAIT_BUDGET_MS,
  } = {},
) {
  const init = { method: "GET", headers: { Accept: accept }, signal };
  if (json !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  }
  const started = Date.now();
  const id = {};
  let waited = false;
  try {
    for (;;) {
      const response = await reach(url, init);
      if (response.ok) return response;
      if (response.status === 503 && Date.now() - started < waitBudgetMs) {
        const seconds = retryAfterSeconds(response.headers.get("Retry-After"));
        await response.body?.cancel().catch(() => {});
        waited = true;
        onWait(seconds, id);
        await pause(seconds * 1000, signal);
        continue;
      }
      const data = await response.json().catch(() => null);
      throw new ApiError(response.status, errorList(data, response.status));
    }
  } finally {
    if (waited) onWait(null, id);
  }
}

/** fetch, a network failure as an ApiError of status 0 (an abort stays the AbortError). */
async function reach(url, init) {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (error.name === "AbortError") throw error;
    const msg = `the server could not be reached (${error.message})`;
    throw new ApiError(0, [{ field: "body", msg }]);
  }
}

/** GET `url` and parse its JSON answer (rejects as `send` does). */
export async function getJSON(url, options = {}) {
  return (await send(url, options)).json();
}

/** POST `payload` as JSON to `url` and parse the JSON answer (rejects as `send` does). */
export async function postJSON(url, payload, options = {}) {
  return (await send(url, { ...options, json: payload })).json();
}

/**
 * Posts to one endpoint; a new call aborts the one before it, whose promise then
 * resolves to { aborted: true }. Never rejects: { ok: true, data } or
 * { ok: false, status, errors }.
 */
export class LatestOnly {
  constructor(url) {
    this.url = url;
    this.controller = null;
  }

  async post(payload) {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    try {
      const data = await postJSON(this.url, payload, { signal: controller.signal });
      if (controller.signal.aborted) return { aborted: true };
      return { ok: true, data };
    } catch (error) {
      if (controller.signal.aborted) return { aborted: true };
      if (error instanceof ApiError)
        return { ok: false, status: error.status, errors: error.errors };
      return { ok: false, status: 0, errors: [{ field: "body", msg: error.message }] };
    }
  }
}

// Matrices a body may carry (q, k, v: a body given as Q, K, V without X).
const MATRICES = new Set(["x", "w_q", "w_k", "w_v", "source_x", "q", "k", "v"]);

/**
 * Where an error's field points on the page:
 *   "x[1][2]" / "source.x[0][1]" -> { kind: "cell", matrix, row, col }
 *   "x" / "w_q" / "source.x"     -> { kind: "matrix", matrix }
 *   "tokens[1]" / "source.tokens[0]" -> { kind: "token", source, index }
 *   "view.focus", "heads", "mask", ... -> { kind: "control", name }
 */
export function targetOf(field) {
  const text = String(field ?? "body").replace(/^source\.x/, "source_x");
  const name = text.split(/[.[]/)[0];
  const indices = [...text.matchAll(/\[(\d+)\]/g)].map((m) => Number.parseInt(m[1], 10));
  if (MATRICES.has(name)) {
    if (indices.length >= 2)
      return { kind: "cell", matrix: name, row: indices[0], col: indices[1] };
    return { kind: "matrix", matrix: name };
  }
  if (name === "tokens" || text.startsWith("source.tokens")) {
    return { kind: "token", source: name !== "tokens", index: indices[0] ?? null };
  }
  if (name === "padding") return { kind: "matrix", matrix: "x" };
  if (text.startsWith("view.")) return { kind: "control", name: text.slice(5) };
  return { kind: "control", name };
}
