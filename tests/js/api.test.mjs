// api.js: the one fetch wrapper, against a stand-in fetch (no server needed), and the
// mapping from an error's field to the place on the page it names.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import {
  ApiError,
  LatestOnly,
  errorList,
  getJSON,
  postJSON,
  retryAfterSeconds,
  send,
  siteUrl,
  targetOf,
} from "../../static/js/api.js";

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** fetch answering `status` with `body` (JSON when not a string), recording each call. */
function answer(status, body) {
  const calls = [];
  globalThis.fetch = async (url, init) => {
    calls.push({ url, init });
    const text = typeof body === "string" ? body : JSON.stringify(body);
    return new Response(text, { status, headers: { "Content-Type": "application/json" } });
  };
  return calls;
}

test("getJSON asks for JSON and parses the answer", async () => {
  const calls = answer(200, { id: "causal" });
  assert.deepEqual(await getJSON("/api/v1/presets/causal"), { id: "causal" });
  assert.equal(calls[0].init.method, "GET");
  assert.equal(calls[0].init.headers.Accept, "application/json");
  assert.equal(calls[0].init.body, undefined);
});

test("postJSON sends the payload as JSON", async () => {
  const calls = answer(200, { ok: 1 });
  await postJSON("/api/v1/figures", { x: [[1]] });
  assert.equal(calls[0].init.method, "POST");
  assert.equal(calls[0].init.headers["Content-Type"], "application/json");
  assert.deepEqual(JSON.parse(calls[0].init.body), { x: [[1]] });
});

test("an error answer rejects with the server's detail list", async () => {
  const detail = [{ field: "x[0][1]", msg: "must be a finite number", type: "value_error" }];
  answer(422, { detail });
  const error = await send("/api/v1/figures", { json: {} }).catch((e) => e);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 422);
  assert.deepEqual(error.errors, detail);
  assert.equal(error.message, "x[0][1]: must be a finite number");
});

test("an answer without a detail list still names the status", async () => {
  answer(502, "<html>bad gateway</html>");
  const error = await send("/x").catch((e) => e);
  assert.deepEqual(error.errors, [{ field: "body", msg: "the server answered 502" }]);
  assert.deepEqual(errorList({ detail: "Not Found" }, 404), [{ field: "body", msg: "Not Found" }]);
  assert.deepEqual(errorList({ detail: [] }, 500), [
    { field: "body", msg: "the server answered 500" },
  ]);
});

test("a network failure is an ApiError with status 0; an abort stays an AbortError", async () => {
  globalThis.fetch = async () => {
    throw new TypeError("Failed to fetch");
  };
  const error = await send("/x").catch((e) => e);
  assert.ok(error instanceof ApiError);
  assert.equal(error.status, 0);
  assert.match(error.message, /could not be reached \(Failed to fetch\)/);
  globalThis.fetch = realFetch;
  const controller = new AbortController();
  controller.abort();
  const aborted = await send("http://127.0.0.1:9/x", { signal: controller.signal }).catch((e) => e);
  assert.equal(aborted.name, "AbortError");
});

test("LatestOnly: a newer post aborts the older, whose promise says so", async () => {
  const pending = [];
  globalThis.fetch = (url, init) =>
    new Promise((resolve, reject) => {
      init.signal.addEventListener("abort", () =>
        reject(new DOMException("aborted", "AbortError")),
      );
      pending.push(() => resolve(new Response(JSON.stringify({ n: pending.length }))));
    });
  const client = new LatestOnly("/api/v1/figures");
  const first = client.post({ n: 1 });
  const second = client.post({ n: 2 });
  pending[1]();
  assert.deepEqual(await first, { aborted: true });
  assert.deepEqual(await second, { ok: true, data: { n: 2 } });
});

test("LatestOnly never rejects: errors come back as a list", async () => {
  answer(413, { detail: [{ field: "x", msg: "too many cells" }] });
  const result = await new LatestOnly("/api").post({});
  assert.deepEqual(result, {
    ok: false,
    status: 413,
    errors: [{ field: "x", msg: "too many cells" }],
  });
});

test("targetOf: cells, matrices, tokens and controls", () => {
  assert.deepEqual(targetOf("x[1][2]"), { kind: "cell", matrix: "x", row: 1, col: 2 });
  assert.deepEqual(targetOf("source.x[0][3]"), {
    kind: "cell",
    matrix: "source_x",
    row: 0,
    col: 3,
  });
  assert.deepEqual(targetOf("q[2][0]"), { kind: "cell", matrix: "q", row: 2, col: 0 });
  assert.deepEqual(targetOf("w_q"), { kind: "matrix", matrix: "w_q" });
  assert.deepEqual(targetOf("source.x"), { kind: "matrix", matrix: "source_x" });
  assert.deepEqual(targetOf("padding"), { kind: "matrix", matrix: "x" });
  assert.deepEqual(targetOf("tokens[1]"), { kind: "token", source: false, index: 1 });
  assert.deepEqual(targetOf("source.tokens[0]"), { kind: "token", source: true, index: 0 });
  assert.deepEqual(targetOf("tokens"), { kind: "token", source: false, index: null });
  assert.deepEqual(targetOf("view.focus"), { kind: "control", name: "focus" });
  assert.deepEqual(targetOf("heads"), { kind: "control", name: "heads" });
  assert.deepEqual(targetOf(undefined), { kind: "control", name: "body" });
});

test("siteUrl puts the root path the server wrote in <html data-root> before a path", () => {
  assert.equal(siteUrl("/api/v1/figures"), "/api/v1/figures"); // node: no document, no root
  const realDocument = globalThis.document;
  try {
    globalThis.document = { documentElement: { dataset: { root: "/attention" } } };
    assert.equal(siteUrl("/api/v1/figures?draw=grids"), "/attention/api/v1/figures?draw=grids");
    assert.equal(siteUrl("/?preset=x#fig-6"), "/attention/?preset=x#fig-6");
    globalThis.document = { documentElement: { dataset: { root: "" } } };
    assert.equal(siteUrl("/embed/6"), "/embed/6");
    globalThis.document = { documentElement: { dataset: {} } }; // a page without data-root
    assert.equal(siteUrl("/labs"), "/labs");
  } finally {
    globalThis.document = realDocument;
  }
});

test("retryAfterSeconds reads seconds or a date, between 1 and 30", () => {
  assert.equal(retryAfterSeconds("4"), 4);
  assert.equal(retryAfterSeconds("0"), 1);
  assert.equal(retryAfterSeconds(null), 1);
  assert.equal(retryAfterSeconds("soon"), 1);
  assert.equal(retryAfterSeconds("600"), 30);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(retryAfterSeconds("Thu, 01 Jan 2026 00:00:03 GMT", now), 3);
});

/** fetch answering each of `statuses` in turn (503s with Retry-After: 1). */
function answers(statuses) {
  const calls = [];
  globalThis.fetch = async (url, init) => {
    calls.push({ url, init });
    const status = statuses[Math.min(calls.length - 1, statuses.length - 1)];
    const body = status === 200 ? { ok: true } : { detail: [{ field: "server", msg: "busy" }] };
    return new Response(JSON.stringify(body), {
      status,
      headers: { "Content-Type": "application/json", "Retry-After": "1" },
    });
  };
  return calls;
}

test("a 503 is waited out: the same request again after Retry-After, the page told", async () => {
  const calls = answers([503, 200]);
  const told = [];
  const started = Date.now();
  const data = await postJSON("/api/v1/figures", { x: [[1]] }, { onWait: (s) => told.push(s) });
  assert.deepEqual(data, { ok: true });
  assert.equal(calls.length, 2);
  assert.equal(calls[1].init.body, calls[0].init.body);
  assert.deepEqual(told, [1, null]);
  assert.ok(Date.now() - started >= 950, "waited the Retry-After");
});

test("a 503 past the wait budget is an ApiError; an abort ends the wait", async () => {
  answers([503]);
  await assert.rejects(send("/x", { waitBudgetMs: 0 }), (e) => e.status === 503);
  const controller = new AbortController();
  const told = [];
  const pending = send("/x", { signal: controller.signal, onWait: (s) => told.push(s) });
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(pending, (e) => e.name === "AbortError");
  assert.deepEqual(told, [1, null]);
});
