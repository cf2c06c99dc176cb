"""Field types every request model shares, each saying in its JSON Schema exactly what its
validator checks, and the one rule for user text shown by the app.

``Whole``: a whole number as JSON Schema means ``"type": "integer"``: ``520`` and ``520.0``
(the same number to a JSON reader) are both accepted; ``520.5``, ``"520"`` and ``true``
are not. Bounds come from each field's ``Field(ge=…, le=…)``.

``Label``: a token label, plain printable text. A label is shown in titles, ``title=``
attributes, exports and README files, where a control character would do harm:
U+202E (right-to-left override) and the other bidirectional controls reorder the text
around them, CR/LF split a line or a header, NUL ends a C string. ``Label`` refuses them
(a 422 naming ``tokens[i]``), and its schema's ``pattern`` says so. ``printable`` is the
same rule as defence in depth: every sink that puts a label into a title, an attribute,
an export or a README passes it through ``printable``, which replaces each such
character with U+FFFD, so text that reached the app some other way is still inert.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field, Strict, StrictInt

# C0 and C1 controls (TAB, CR, LF, NUL, DEL, …), the line and paragraph separators, and the
# bidirectional controls: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI.
# Written with escapes so that the JSON Schema ``pattern`` reads the same in any engine.
CONTROL_CLASS = r"\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
CONTROL = re.compile(f"[{CONTROL_CLASS}]")
LABEL_PATTERN = f"^[^{CONTROL_CLASS}]*$"
REPLACEMENT = "\ufffd"
MAX_LABEL_CHARS = 64  # the page's editor reads it from #initial-state


def printable(text: str) -> str:
    """``text`` with every control character (see ``CONTROL_CLASS``) replaced by U+FFFD."""
    return CONTROL.sub(REPLACEMENT, text)


def printable_data(value: Any) -> Any:
    """``value`` (JSON-like data: dicts, lists, strings, numbers) with ``printable`` applied
    to every string in it, keys included."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_data(k): printable_data(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable_data(v) for v in value]
    return value


def _character_name(ch: str) -> str:
    return f"U+{ord(ch):04X}" + (f" {unicodedata.name(ch)}" if unicodedata.name(ch, "") else "")


def _printable_label(label: str) -> str:
    found = CONTROL.search(label)
    if found is not None:
        raise ValueError(
            f"a label is plain text: {_character_name(found.group())} at position "
            f"{found.start()} is a control character (C0/C1 controls, line breaks and "
            "bidirectional controls are refused)"
        )
    return label


Label = Annotated[
    str,
    Strict(),
    Field(
        max_length=MAX_LABEL_CHARS,
        description=f"A token label, at most {MAX_LABEL_CHARS} characters of printable text: "
        "no C0/C1 control characters (NUL, TAB, CR, LF, …), no U+2028/U+2029 and no "
        "bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).",
        json_schema_extra={"pattern": LABEL_PATTERN},
    ),
    AfterValidator(_printable_label),
]


def _integral(value: Any) -> Any:
    """520.0 -> 520: JSON Schema's integer is a number with no fractional part."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# 520.0 -> 520 before StrictInt, which refuses booleans, strings and fractions. In a type
# alias with bounds, put the bounds first, ``Annotated[StrictInt, Field(ge=…), INTEGRAL]``:
# after the validator pydantic would write them into the schema as "ge"/"le", which JSON
# Schema does not know (test_api_fuzz.py catches that).
INTEGRAL = BeforeValidator(_integral)
# A JSON integer (``520`` or ``520.0``); give the bounds with the field's ``Field(...)``.
Whole = Annotated[StrictInt, INTEGRAL]
