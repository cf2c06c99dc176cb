"""How wide a line of text is in an exported SVG: the one place that knows the fonts.

The SVG writer (``app.export.grid_svg``) lays every picture out from its content, so it
must know a string's width before any browser draws it. The pictures ask for DejaVu Sans
(and DejaVu Sans Mono for the numbers in cells): free, on most Linux machines, and among
the widest common sans-serif faces, so the fonts a reader's machine may fall back to
(Verdana, Arial, Helvetica, Menlo, Consolas) are as wide or narrower and an estimate
made for DejaVu never lets text collide. The advance widths below were measured in
Chromium (canvas ``measureText`` at 1000 px) and are in thousandths of an em; a
character not listed counts as a full em when East Asian wide, zero when combining, and
0.75 em otherwise. Every estimate is then widened by ``SLACK``.
"""

from __future__ import annotations

import unicodedata
from functools import cache

SANS = "'DejaVu Sans', Verdana, 'Noto Sans', Arial, sans-serif"
MONO = "'DejaVu Sans Mono', Menlo, Consolas, 'Noto Sans Mono', monospace"
# Vertical metrics of DejaVu Sans, in em: what a line of text occupies.
ASCENT = 0.93
DESCENT = 0.24
LINE = 1.25  # the distance between two lines' tops
SLACK = 1.04  # widen every estimate a little (hinting, kerning, another face)

_CHARS = (
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`"
    "abcdefghijklmnopqrstuvwxyz{|}~×·−→÷…ᵀ√Σ≈‹›“”–—∞°²ɑ←₁₂"
)
_NORMAL = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636,
    636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698,
    770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732,
    684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635,
    634, 278, 278, 579, 278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592,
    525, 636, 337, 636, 838, 838, 318, 838, 838, 838, 1000, 385, 637, 632, 838, 400, 400, 518,
    518, 500, 1000, 833, 500, 401, 635, 838, 401, 401,
)  # fmt: skip
_BOLD = (
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696,
    696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580, 1000, 774, 762, 734,
    830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812,
    774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716,
    712, 343, 343, 665, 343, 1042, 712, 687, 716, 716, 493, 595, 478, 712, 652, 924, 645, 652,
    582, 712, 365, 712, 838, 838, 380, 838, 838, 838, 1000, 430, 667, 683, 838, 412, 412, 657,
    657, 500, 1000, 833, 500, 438, 716, 838, 438, 438,
)  # fmt: skip
MONO_ADVANCE = 602
WIDTHS = {"normal": dict(zip(_CHARS, _NORMAL, strict=True)),
          "bold": dict(zip(_CHARS, _BOLD, strict=True))}  # fmt: skip


@cache
def _unlisted(ch: str) -> int:
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 1000 if unicodedata.east_asian_width(ch) in ("W", "F") else 750


def text_width(text: str, size: float, *, weight: str = "normal", mono: bool = False) -> float:
    """The width in px of ``text`` set at ``size`` px (an upper estimate, see above)."""
    table = WIDTHS["bold" if weight == "bold" else "normal"]
    total = 0
    for ch in text:
        if mono:
            wide = unicodedata.east_asian_width(ch) in ("W", "F")
            total += 0 if unicodedata.combining(ch) else 2 * MONO_ADVANCE if wide else MONO_ADVANCE
        else:
            total += table.get(ch) or _unlisted(ch)
    return total * size / 1000 * SLACK


def wrap(text: str, width: float, size: float, *, weight: str = "normal") -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` px; a single word
    wider than that is cut into pieces that fit."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}" if line else word
        if text_width(trial, size, weight=weight) <= width:
            line = trial
            continue
        if line:
            lines.append(line)
        line = ""
        while text_width(word, size, weight=weight) > width:
            cut = max(1, _fitting(word, width, size, weight))
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    if line:
        lines.append(line)
    return lines


def _fitting(word: str, width: float, size: float, weight: str) -> int:
    """How many leading characters of ``word`` fit in ``width``."""
    n = 0
    while n < len(word) and text_width(word[: n + 1], size, weight=weight) <= width:
        n += 1
    return n


def shorten(text: str, width: float, size: float, *, weight: str = "normal") -> str:
    """``text``, or as much of it as fits in ``width`` followed by "…"."""
    if text_width(text, size, weight=weight) <= width:
        return text
    n = _fitting(text, width - text_width("…", size, weight=weight), size, weight)
    return text[:n] + "…"
