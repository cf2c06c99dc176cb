"""The notebook widget: ``Figure(6)`` shows Figure 6 of the running example in Jupyter.

An anywidget whose inputs are traitlets (``x``, ``w_q``, ``w_k``, ``w_v``, ``tokens``,
``scale``, ``mask``, ``number``, ``focus``, ``theme``): setting one from Python
(``fig.scale = False``) recomputes the figure in ``attention_lab.state`` (the project's
numpy pipeline) and syncs its description (``spec``) to the front end, where the page's
own grid renderer, bundled as one ES module in ``attention_lab/static``, redraws it in
place. The front end does no maths; it only reports the notebook's light or dark theme.
Without a live kernel (nbconvert, GitHub) the ``text/html`` fallback shows the same
figure as inline SVG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anywidget
import traitlets

from app.presets import DEFAULT_PRESET
from attention_lab.state import figure_description, figure_html, preset_body

_STATIC = Path(__file__).resolve().parent / "static"
_INPUTS = ("x", "w_q", "w_k", "w_v", "tokens", "scale", "mask", "number", "focus", "theme")


class Figure(anywidget.AnyWidget):
    """Figure ``number`` (a grid figure: 3, 4, 6, 7, 8, 9 or 11) of a state: the preset
    ``preset`` (the running example by default) with any of its fields replaced by the
    keyword arguments (``x``, ``w_q``, ``w_k``, ``w_v``, ``tokens``, ``scale``, ``mask``).
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    number = traitlets.Int(6).tag(sync=True)
    x = traitlets.List[Any]().tag(sync=True)
    w_q = traitlets.List[Any]().tag(sync=True)
    w_k = traitlets.List[Any]().tag(sync=True)
    w_v = traitlets.List[Any]().tag(sync=True)
    tokens = traitlets.List[Any]().tag(sync=True)
    scale = traitlets.Bool(True).tag(sync=True)
    mask = traitlets.Unicode("none").tag(sync=True)
    focus = traitlets.Int(0).tag(sync=True)
    theme = traitlets.Unicode("light").tag(sync=True)
    # What the front end draws: the figure's description, as the server describes it.
    spec = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, number: int = 6, *, preset: str = DEFAULT_PRESET, **state: Any) -> None:
        body = preset_body(preset)
        fields: dict[str, Any] = {
            k: body[k] for k in ("x", "w_q", "w_k", "w_v", "tokens") if k in body
        }
        fields.update(scale=body.get("scale", True), mask=body.get("mask", "none"))
        fields.update(state)
        self._base = {k: v for k, v in body.items() if k not in fields}
        super().__init__(number=number, **fields)
        self._redraw()
        self.observe(self._on_input, names=list(_INPUTS))

    def body(self) -> dict[str, Any]:
        """The state as a request body of ``POST /api/v1/attention``."""
        own = {k: getattr(self, k) for k in ("x", "w_q", "w_k", "w_v", "tokens", "scale")}
        return {**self._base, **own, "mask": self.mask}

    def update(self, **fields: Any) -> None:
        """Set several fields at once (say a new ``x`` and ``w_q`` of another width): the
        figure is recomputed once, after all of them are set."""
        with self.hold_trait_notifications():
            for name, value in fields.items():
                if name not in _INPUTS:
                    raise ValueError(f"{name}: not a field of the state; choose {_INPUTS}")
                setattr(self, name, value)

    def _on_input(self, _change: dict[str, Any]) -> None:
        self._redraw()

    def _redraw(self) -> None:
        """Recompute the figure; a bad state keeps the last figure and names the problem
        (raised too, so the cell that set it shows the error)."""
        try:
            spec = figure_description(self.body(), self.number, focus=self.focus, theme=self.theme)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            self.error = str(exc)
            raise
        self.error = ""
        self.spec = spec

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The widget view and, beside it, the figure as self-contained HTML."""
        shown = super()._repr_mimebundle_(**kwargs)
        data, meta = shown if isinstance(shown, tuple) else (shown or {}, {})
        return {**data, "text/html": self._repr_html_()}, meta

    def _repr_html_(self) -> str:
        """The figure as inline SVG with its heading and caption: no script needed."""
        return figure_html(self.spec, self.theme)
