"""axe-core (vendored in tests/browser/vendor, with its licence) run in a page or a frame:
injected once per document, its violations returned, by default only the serious and
critical ones. One place for what seven test files did each in their own words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Frame, Page

AXE_JS = (Path(__file__).with_name("vendor") / "axe-core-4.11.4.min.js").read_text()
SERIOUS = ("serious", "critical")


def axe_violations(
    target: Page | Frame, *, rules: list[str] | None = None, serious_only: bool = True
) -> list[dict[str, Any]]:
    """axe-core's violations in ``target``'s document now (``rules``: only those axe rule
    ids; ``serious_only``: leave out the minor and moderate ones)."""
    if not target.evaluate("typeof axe === 'object'"):
        target.evaluate(AXE_JS)
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = rules
    result = target.evaluate("options => axe.run(document, options)", options)
    return [v for v in result["violations"] if not serious_only or v["impact"] in SERIOUS]


def summary(violations: list[dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    """Each violation's rule id and its first three elements: what an assertion prints."""
    return [(v["id"], [n["target"] for n in v["nodes"][:3]]) for v in violations]
