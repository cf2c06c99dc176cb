/**
 * api.js — the one fetch wrapper of the page. POSTs a state to /api/v1/figures, aborts the
 * request it supersedes, and turns a `detail` error list into targets on the page
 * (an editor cell, a token label, a control) so each message lands where the fault is.
 */

/** JSON GET; throws Error with the server's message on failure. */
export async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

/**
 * Posts to one endpoint; a new call aborts the one before it, whose promise then
 * resolves to { aborted: true } (never rejects for an abort).
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
      const response = await fetch(this.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify(payload),
        signal: controller.signal,
      });
      const data = await response.json().catch(() => null);
      if (controller.signal.aborted) return { aborted: true };
      if (response.ok) return { ok: true, data };
      return { ok: false, status: response.status, errors: errorList(data, response.status) };
    } catch (error) {
      if (controller.signal.aborted) return { aborted: true };
      return {
        ok: false,
        status: 0,
        errors: [{ field: "body", msg: `the server could not be reached (${error.message})` }],
      };
    }
  }
}

function errorList(data, status) {
  if (data && Array.isArray(data.detail)) return data.detail;
  const msg =
    data && typeof data.detail === "string" ? data.detail : `the server answered ${status}`;
  return [{ field: "body", msg }];
}

const MATRICES = new Set(["x", "w_q", "w_k", "w_v", "source_x"]);

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
