// theme.js: the one theme rule (the page, the embeds and the labs resolve "auto" with it).
import assert from "node:assert/strict";
import { test } from "node:test";

import { resolveTheme } from "../../static/js/theme.js";

test("a chosen theme is kept whatever the reader's colour scheme", () => {
  for (const prefersDark of [true, false]) {
    assert.equal(resolveTheme("light", prefersDark), "light");
    assert.equal(resolveTheme("dark", prefersDark), "dark");
  }
});

test("auto follows the reader's colour scheme", () => {
  assert.equal(resolveTheme("auto", true), "dark");
  assert.equal(resolveTheme("auto", false), "light");
});

test("without matchMedia (node, an old browser) auto draws light", () => {
  assert.equal(globalThis.matchMedia, undefined);
  assert.equal(resolveTheme("auto"), "light");
});
