"""The ONE declaration of the view: what the page looks at (the focus row, the head shown,
Figure 12's stretch and row, the theme), each field once, with its type, bounds, default,
description and which figures read it.

Everything else about the view is derived from ``VIEW_FIELDS``:

- the figures' ``View`` (``app.figures.context``): its defaults, and a ValueError for a
  value outside the bounds (``ViewField.problem``);
- the link's and the JSON API's view (``app.inputs.view``: ``ViewState`` and
  ``ViewRequest`` take their bounds, defaults and error messages from here);
- the OpenAPI text of the view's query parameters and JSON fields (``describe``, which
  ``app.http.params`` and ``ViewRequest`` call through ``app.inputs.view.field_doc``
  with the registry's ``readers_text``; ``app.http.params`` also takes the parameter
  list itself from here);
- the page's controls: the stretch slider and its number box, the theme menus of the
  pages and the labs (the template global ``view_fields``), and the defaults the page's
  script writes links against (``url_defaults``, in ``#initial-state``);
- the theme list of pages, embeds and labs (``THEMES``; ``DRAWN_THEMES`` are the two a
  figure is drawn in: the JSON API's and the export CLI's choices).

Which figures read a field: ``readers`` is "every" (each figure reads the head and the
theme) or "own" (the figures whose registry entry lists the field in ``reads``).

PURE: the standard library and ``app.figures.fmt`` (numbers in words), so figures may
import it and ``app.inputs`` reads it from here (figures never import inputs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, get_args

from app.figures.fmt import exact

T = TypeVar("T")
Kind = Literal["int", "float", "choice"]
Readers = Literal["every", "own"]
Row = Literal["textbook", "focus"]
DrawnTheme = Literal["light", "dark"]
Theme = Literal["auto", "light", "dark"]

ROWS: tuple[Row, ...] = get_args(Row)
# The colours a figure is drawn in (the JSON API's choices; the first is its default) …
DRAWN_THEMES: tuple[DrawnTheme, ...] = get_args(DrawnTheme)
# … and what a page, an embed or a lab link may ask for: "auto" follows the reader's
# colour scheme (both drawn themes are sent, or the page asks again when it changes).
THEMES: tuple[Theme, ...] = get_args(Theme)


@dataclass(frozen=True)
class ViewField(Generic[T]):
    """One view field. ``description`` says what it is; ``{figures}`` in it stands for the
    figures that read it (``describe``). ``low``/``high`` bound numbers (inclusive);
    ``choices`` (with a menu's ``labels``) bound words; ``stops`` are the positions of a
    slider, from ``low`` to ``high``."""

    name: str  # in URLs, the page's script and the figures' View
    kind: Kind
    default: T  # what a link leaves out
    description: str
    readers: Readers = "own"
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    stops: tuple[float, ...] = ()
    json_name: str = ""  # in JSON, where it differs (Figure 12's row: ``softmax_row``)
    default_text: str = ""  # the default in words, where a number would not say it all

    @property
    def json_key(self) -> str:
        return self.json_name or self.name

    def bounds_text(self, choices: tuple[str, ...] | None = None) -> str:
        """'0.1 to 64', 'textbook or focus': what the field accepts, in words."""
        words = choices if choices is not None else self.choices
        if self.kind == "choice":
            return ", ".join(words[:-1]) + " or " + words[-1]
        assert self.low is not None
        assert self.high is not None
        return f"{exact(self.low)} to {exact(self.high)}"

    def stop_index(self, value: float) -> int:
        """The slider's position for ``value``: the last stop not above it (the first
        when ``value`` is below every stop)."""
        below = [i for i, stop in enumerate(self.stops) if stop <= value]
        return below[-1] if below else 0

    def problem(self, value: Any, choices: tuple[str, ...] | None = None) -> str | None:
        """The message when ``value`` is outside the field's bounds (or ``choices``, for a
        narrower list such as the drawn themes), else None."""
        if self.kind == "choice":
            allowed = choices if choices is not None else self.choices
            return None if value in allowed else f"{self.name} must be one of {', '.join(allowed)}"
        assert self.low is not None
        assert self.high is not None
        if self.low <= value <= self.high:
            return None
        if self.kind == "int":
            return f"{self.name} must be a whole number from {self.bounds_text()}"
        return f"{self.name} must be between {exact(self.low)} and {exact(self.high)}"


FOCUS = ViewField[int](
    "focus", "int", 1, "0-based query row explained by {figures}", low=0, high=4095,
    default_text="default 1 (the second token), or 0 when there is only one",
)  # fmt: skip
HEAD = ViewField[int](
    "head", "int", 0, "0-based head shown by single-head figures", "every", low=0, high=511
)
STRETCH = ViewField[float](
    "stretch", "float", 8.0, "the factor {figures} multiplies the scores by", low=0.1, high=64.0,
    # Roughly ×2 per stop (× 1.5 between), so each octave of the range is equally easy
    # to reach: a linear slider over 0.1 … 64 would leave the interesting 0.1 … 4 a sliver.
    stops=(0.1, 0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64),
)  # fmt: skip
ROW = ViewField[Row](
    "row", "choice", "textbook",
    "the scores {figures} stretches ('textbook': the tutorial's [1, 2, 3]; 'focus': the "
    "focus row of the scaled scores)",
    choices=ROWS, labels=("the tutorial's scores [1, 2, 3]", "the focus token's scaled scores"),
    json_name="softmax_row",
)  # fmt: skip
THEME = ViewField[Theme](
    "theme", "choice", "auto", "the colours of the figures", "every", choices=THEMES,
    labels=("Follow the system", "Light", "Dark"),
)  # fmt: skip

VIEW_FIELDS: tuple[ViewField[Any], ...] = (FOCUS, HEAD, STRETCH, ROW, THEME)
BY_NAME: dict[str, ViewField[Any]] = {f.name: f for f in VIEW_FIELDS}


def url_defaults() -> dict[str, Any]:
    """What a link leaves out: each field's value when absent (focus 1, the default for
    two tokens or more). The page's script receives this table to write links."""
    return {f.name: f.default for f in VIEW_FIELDS}


def describe(field: ViewField[Any], figures: str, *, json: bool = False) -> str:
    """The field's documentation (OpenAPI): what it is, what it accepts, its default.
    ``figures`` names the figures that read it (``app.figures.registry.readers_text``).
    In JSON the theme is one of the drawn themes (default light) and the focus may be
    left out (null)."""
    choices = DRAWN_THEMES if json and field is THEME else None
    default = DRAWN_THEMES[0] if json and field is THEME else field.default
    text = field.description.replace("{figures}", figures)
    accepts = field.bounds_text(choices)
    default_text = field.default_text or f"default {_word(default)}"
    return f"{text[0].upper()}{text[1:]}: {accepts}; {default_text}."


def _word(value: Any) -> str:
    return value if isinstance(value, str) else exact(value)
