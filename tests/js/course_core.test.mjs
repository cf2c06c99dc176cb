// course_core.js: the "Use in a course" panel's step insertion (where the server said, in
// UTF-16 code units) and the link as printed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { shownLink, spliceStep } from "../../static/js/course_core.js";

test("spliceStep inserts the server's join and the step counted from 1", () => {
  const text = '<iframe src="https://lab.example.edu/embed/lesson?l=abc" title="T">';
  const at = text.indexOf('" title');
  assert.equal(
    spliceStep(text, at, "&amp;step=", 5),
    '<iframe src="https://lab.example.edu/embed/lesson?l=abc&amp;step=6" title="T">',
  );
  assert.equal(spliceStep(text, at, "&amp;step=", null), text);
  const directive = ":::{iframe} https://lab.example.edu/embed/lesson/x\n:width: 100%\n:::";
  assert.equal(
    spliceStep(directive, directive.indexOf("\n"), "?step=", 0),
    ":::{iframe} https://lab.example.edu/embed/lesson/x?step=1\n:width: 100%\n:::",
  );
});

test("spliceStep counts in UTF-16 code units, as the server's step_at does", () => {
  // An astral character is two code units: the server's offset after it is 2, not 1.
  assert.equal(spliceStep("\u{1f600}|", 2, "?step=", 2), "\u{1f600}?step=3|");
});

test("shownLink prints a short link whole and cuts a long one", () => {
  assert.equal(shownLink("https://a.edu/lessons/x?step=2", 80), "https://a.edu/lessons/x?step=2");
  const long = `https://a.edu/lessons/play?l=${"A".repeat(100)}&step=2`;
  assert.equal(shownLink(long, 80), `${long.slice(0, 79)}…`);
  assert.equal(shownLink(long, 80).length, 80);
});
