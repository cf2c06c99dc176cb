"""Query parameters, read strictly: the one place a URL's text becomes a number.

Python's ``int()`` takes Unicode digits ("²", "٣") and raises past 4300 digits, and
``float()`` takes "1e400" (infinity) and "nan": each was once a 500. Here a whole number
is ASCII digits only, at most ``MAX_DIGITS`` of them; a decimal is at most
``MAX_NUMBER_CHARS`` ASCII characters and finite. Every error is a ``FieldError``
naming the parameter, which the routes answer with a 4xx.
"""

from __future__ import annotations

import math
import re

from app.inputs.errors import FieldError

MAX_DIGITS = 6
MAX_NUMBER_CHARS = 32
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?", re.ASCII)


def is_whole(text: str, max_digits: int = MAX_DIGITS) -> bool:
    """True for 1 to ``max_digits`` ASCII digits."""
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()


def query_int(text: str, name: str, max_digits: int = MAX_DIGITS) -> int:
    """A whole number ≥ 0 written in ASCII digits, or FieldError naming ``name``."""
    if not is_whole(text, max_digits):
        raise FieldError(
            name,
            f"{name} must be a whole number of at most {max_digits} digits, got {shown(text)!r}",
        )
    return int(text)


def decimal(text: str) -> float | None:
    """THE number grammar of a URL: ``text`` as a finite float when it is an ASCII decimal
    such as ``8``, ``-0.5``, ``.5`` or ``1e2`` (no spaces, ``_``, hex, ``inf`` or ``nan``,
    at most ``MAX_NUMBER_CHARS`` characters), else None. Page parameters and lab controls
    both read their numbers here."""
    if len(text) > MAX_NUMBER_CHARS or not _DECIMAL.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def shown(text: str) -> str:
    """The start of a refused text, for a message (never the whole of a long input)."""
    return text[:20] + ("…" if len(text) > 20 else "")


def query_float(text: str, name: str) -> float:
    """A finite decimal such as ``8``, ``-0.5`` or ``1e2``, or FieldError naming ``name``."""
    value = decimal(text)
    if value is None:
        raise FieldError(name, f"{name} must be a finite decimal number, got {shown(text)!r}")
    return value


def path_int(text: str) -> int | None:
    """A path segment or fragment as a whole number, or None (then a 404 names it)."""
    return int(text) if is_whole(text) else None
