"""One palette: ``static/css/palette.css`` agrees with ``app.figures.palette.PAGE``, no
other stylesheet has a colour of its own, every page and embed links the palette, and the
figures and exported files use the same colours (readable, ≥ 4.5 : 1 for text)."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from app.export.html import COLORS
from app.figures import grid
from app.figures.grid import contrast
from app.figures.palette import DARK, LIGHT, PAGE, SCALES, Page, Theme

ROOT = Path(__file__).resolve().parents[2]
CSS = ROOT / "static" / "css"
TEMPLATES = ROOT / "templates"
PALETTE = CSS / "palette.css"
# --name: light-dark(#light, #dark);
LIGHT_DARK = re.compile(
    r"--([a-z-]+):\s*light-dark\(\s*(#[0-9a-f]{6})\s*,\s*(#[0-9a-f]{6})\s*\)\s*;"
)
COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch)\(")


def declared(css: str) -> dict[str, tuple[str, str]]:
    """Every ``--name: light-dark(light, dark)`` custom property of a stylesheet."""
    return {name: (light, dark) for name, light, dark in LIGHT_DARK.findall(css)}


def css_name(field: str) -> str:
    return field.replace("_", "-")


def test_palette_css_writes_every_page_colour_of_the_python_palette() -> None:
    found = declared(PALETTE.read_text(encoding="utf-8"))
    expected = {
        css_name(f.name): (getattr(PAGE["light"], f.name), getattr(PAGE["dark"], f.name))
        for f in fields(Page)
    }
    assert found == expected


def test_a_changed_colour_is_caught() -> None:
    """The comparison above fails when one side changes (the parser is not blind)."""
    css = PALETTE.read_text(encoding="utf-8").replace(PAGE["dark"].surface, "#16181c", 1)
    assert declared(css)["surface"] == (PAGE["light"].surface, "#16181c")


def test_no_other_stylesheet_declares_a_colour() -> None:
    for sheet in sorted(CSS.glob("*.css")):
        if sheet == PALETTE:
            continue
        text = re.sub(r"/\*.*?\*/", "", sheet.read_text(encoding="utf-8"), flags=re.S)
        assert COLOUR.findall(text) == [], f"{sheet.name}: take colours from palette.css"


def test_every_custom_property_a_stylesheet_uses_is_defined() -> None:
    """A leftover name (embed.css's old --fg, --line) would silently fall back."""
    palette = PALETTE.read_text(encoding="utf-8")
    shared = set(re.findall(r"(--[a-z-]+)\s*:", palette))
    for sheet in sorted(CSS.glob("*.css")):
        text = sheet.read_text(encoding="utf-8")
        used = set(re.findall(r"var\((--[a-z-]+)", text))
        own = set(re.findall(r"(--[a-z-]+)\s*:", text))
        assert used - shared - own == set(), sheet.name


def test_every_document_links_the_palette_before_its_stylesheet() -> None:
    for base in ("base.html", "embed_base.html"):
        text = (TEMPLATES / base).read_text(encoding="utf-8")
        palette = text.index("css/palette.css")
        assert palette < text.index("css/app.css" if base == "base.html" else "css/embed.css")
    # Every other page or embed extends one of the two rather than linking a sheet itself.
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text(encoding="utf-8")
        if template.name in ("base.html", "embed_base.html"):
            continue
        if template.name == "embed_lesson.html":
            # A lesson embed draws the lesson page's own player, styled by app.css; it links
            # it in embed_base.html's assets block, which comes after the palette.
            assert '{%- extends "embed_base.html" -%}' in text
            assert "{% block assets %}" in text.split("css/app.css")[0]
        else:
            assert "css/app.css" not in text, template.name
        assert "css/embed.css" not in text, template.name


@pytest.mark.parametrize("name", ["light", "dark"])
def test_figures_and_exports_use_the_page_colours(name: str) -> None:
    page, theme = PAGE[name], {"light": LIGHT, "dark": DARK}[name]
    assert (theme.fg, theme.muted, theme.bg) == (page.text, page.muted, page.surface)
    assert COLORS[name] == {
        "bg": page.surface,
        "fg": page.text,
        "muted": page.muted,
        "line": page.border,
    }


def test_one_dark_background_and_one_light_background() -> None:
    """The three dark backgrounds of old (#1b1b1b, #131418, #16181c) are one family now:
    the page behind its panels and the surface every panel, embed and figure sits on."""
    backgrounds = {PAGE["dark"].bg, PAGE["dark"].surface, DARK.bg}
    assert backgrounds == {"#131418", "#1b1b1b"}
    assert {PAGE["light"].surface, LIGHT.bg} == {"#ffffff"}


@pytest.mark.parametrize("name", ["light", "dark"])
def test_text_is_readable_on_every_background(name: str) -> None:
    p = PAGE[name]
    for ink in (p.text, p.muted):
        for ground in (p.bg, p.surface, p.cell_bg, p.code_bg):
            assert contrast(ink, ground) >= 4.5, (ink, ground)
    assert contrast(p.accent, p.surface) >= 4.5
    assert contrast(p.accent, p.bg) >= 4.5
    assert contrast(p.accent_text, p.accent) >= 4.5
    assert contrast(p.error, p.error_bg) >= 4.5
    assert contrast(p.error, p.surface) >= 4.5
    assert contrast(p.focus, p.bg) >= 3.0  # a focus ring is a non-text element


def test_the_scales_are_written_once() -> None:
    """The grids' colour scales live in ``palette.SCALES`` alone: the figures' ``Theme``
    has no copy of its own (one used to disagree with the grids), and every role a grid
    takes has a scale in both themes."""
    assert "scales" not in {f.name for f in fields(Theme)}
    assert grid.SCALES is SCALES
    for theme in ("light", "dark"):
        assert set(SCALES[theme]) == set(grid.ROLE_OF.values()), theme
