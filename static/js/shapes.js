/**
 * shapes.js — structural edits of a request body that keep its shapes consistent:
 * adding or removing a token, a source token, a d_model, d_k or d_v column. DOM-free.
 * These move and copy numbers the user typed (new entries are 0); they compute nothing.
 *
 * Consistency kept: X is L_Q × d_model, W^Q and W^K are d_model × d_k, W^V is
 * d_model × d_v, S is L_K × d_model, W^O (when present) has d_v rows, tokens has L_Q
 * labels, padding has one flag per key (L_K). A direct-mode body (q, k, v given, no x)
 * is shown and edited cell by cell; the structural edits are for projection mode.
 */

const zeros = (n) => Array.from({ length: n }, () => 0);

export const width = (m) => (m && m.length ? m[0].length : 0);

export function clone(body) {
  return structuredClone(body);
}

/** True for a direct-mode body: Q, K and V given instead of X and the projections. */
export function isDirect(body) {
  return !body.x && Array.isArray(body.q);
}

/** The matrix whose rows are the queries: X, or Q in direct mode. */
export function queryRows(body) {
  return isDirect(body) ? body.q : body.x;
}

/** The matrix whose rows are the keys: S in cross-attention, X, or K in direct mode. */
export function keyRows(body) {
  if (isDirect(body)) return body.k ?? [];
  return body.source ? body.source.x : body.x;
}

function labels(given, count, prefix) {
  const out = Array.isArray(given) ? given.slice(0, count) : [];
  while (out.length < count) out.push(`${prefix}${out.length}`);
  return out;
}

function resizePadding(body) {
  if (!Array.isArray(body.padding)) return;
  const count = keyRows(body).length;
  body.padding = body.padding.slice(0, count);
  while (body.padding.length < count) body.padding.push(false);
  if (!body.padding.some(Boolean)) delete body.padding;
}

/** Apply one named edit to a copy of `body`; returns the new body (or the same if impossible). */
export function edit(body, action) {
  const b = clone(body);
  const dModel = width(b.x);
  switch (action) {
    case "add-token":
      b.tokens = labels(b.tokens, b.x.length, "t");
      b.x.push(zeros(dModel));
      b.tokens.push(`t${b.x.length - 1}`);
      break;
    case "remove-token":
      if (b.x.length < 2) return body;
      b.tokens = labels(b.tokens, b.x.length, "t").slice(0, -1);
      b.x.pop();
      break;
    case "add-source":
      b.source.tokens = labels(b.source.tokens, b.source.x.length, "s");
      b.source.x.push(zeros(dModel));
      b.source.tokens.push(`s${b.source.x.length - 1}`);
      break;
    case "remove-source":
      if (b.source.x.length < 2) return body;
      b.source.tokens = labels(b.source.tokens, b.source.x.length, "s").slice(0, -1);
      b.source.x.pop();
      break;
    case "add-d_model":
    case "remove-d_model":
      if (action === "remove-d_model" && dModel < 2) return body;
      changeDModel(b, action === "add-d_model");
      break;
    case "add-d_k":
    case "remove-d_k":
      if (action === "remove-d_k" && width(b.w_q) < 2) return body;
      for (const m of [b.w_q, b.w_k]) changeColumns(m, action === "add-d_k");
      break;
    case "add-d_v":
    case "remove-d_v":
      if (action === "remove-d_v" && width(b.w_v) < 2) return body;
      changeColumns(b.w_v, action === "add-d_v");
      if (Array.isArray(b.w_o)) changeRows(b.w_o, action === "add-d_v");
      break;
    default:
      return body;
  }
  resizePadding(b);
  return b;
}

function changeColumns(m, add) {
  for (const row of m) {
    if (add) row.push(0);
    else row.pop();
  }
}

function changeRows(m, add) {
  if (add) m.push(zeros(width(m)));
  else m.pop();
}

function changeDModel(b, add) {
  changeColumns(b.x, add);
  if (b.source) changeColumns(b.source.x, add);
  for (const m of [b.w_q, b.w_k, b.w_v]) changeRows(m, add);
}

/** Switch cross-attention on (S starts as a copy of X) or off. */
export function setCross(body, on) {
  const b = clone(body);
  if (on && !b.source) {
    b.source = { x: clone(b.x), tokens: labels(b.tokens, b.x.length, "t") };
  } else if (!on) {
    delete b.source;
  }
  resizePadding(b);
  return b;
}

/** Set padding flag `index` (a key position); an all-false list is dropped. */
export function setPadding(body, index, on) {
  const b = clone(body);
  const count = keyRows(b).length;
  b.padding = Array.isArray(b.padding) ? b.padding.slice() : [];
  while (b.padding.length < count) b.padding.push(false);
  b.padding[index] = on;
  resizePadding(b);
  return b;
}

/**
 * Head counts the engine accepts: h must divide d_k and d_v. Listing the choices is
 * form logic (which options to offer), not a stage of attention.
 */
export function headChoices(body) {
  const dK = width(isDirect(body) ? body.q : body.w_q);
  const dV = width(isDirect(body) ? body.v : body.w_v);
  const out = [];
  for (let h = 1; h <= dK; h += 1) if (dK % h === 0 && dV % h === 0) out.push(h);
  return out.length ? out : [1];
}
