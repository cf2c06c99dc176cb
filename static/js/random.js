/**
 * random.js — reproducible inputs for "Randomise": a seeded PRNG (mulberry32) that fills
 * matrices with whole numbers from −2 to 2. This generates inputs; it is not part of the
 * attention computation, which stays on the server.
 */

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fresh seed for the seed box (any 6-digit number). */
export function newSeed() {
  return String(100000 + Math.floor(Math.random() * 900000));
}

/** Same shapes as `body`, every entry of X, S, W^Q, W^K, W^V (or Q, K, V) replaced by an integer in [−2, 2]. */
export function randomise(body, seedText) {
  const next = mulberry32(Number.parseInt(seedText, 10) || 0);
  const fill = (m) => m.map((row) => row.map(() => Math.floor(next() * 5) - 2));
  const b = structuredClone(body);
  if (b.x) b.x = fill(b.x);
  if (b.source) b.source.x = fill(b.source.x);
  for (const key of ["w_q", "w_k", "w_v", "q", "k", "v"]) if (b[key]) b[key] = fill(b[key]);
  return b;
}
