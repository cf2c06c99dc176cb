/**
 * numbers.js — the one parser of a number typed by the reader, shared by the page's
 * editor and the embeds' compact editor. DOM-free (unit-tested under node --test).
 * It reads what was typed; it computes nothing.
 *
 * Accepted: decimal numbers as JavaScript writes them ("3", "-0.5", ".5", "+2", "1e-3",
 * "1E3"), with the minus sign U+2212 ("−1", "1e−3") that the page itself prints, and
 * spaces around. Refused, with a message saying why: "", "abc", "1,5", "0x10", "Infinity",
 * "1e999" (too large).
 */

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The number `text` spells, or an Error whose message says why it is not one. */
export function parseNumber(text) {
  const t = String(text ?? "")
    .trim()
    .replace(/\u2212/g, "-");
  if (t === "") return new Error("empty: type a number, e.g. 0 or -1.5");
  if (!DECIMAL.test(t)) return new Error(`“${String(text).trim()}” is not a number`);
  const value = Number(t);
  if (!Number.isFinite(value)) return new Error(`“${String(text).trim()}” is too large`);
  return value;
}
