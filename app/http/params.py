"""The query parameters of a link's state, declared once so OpenAPI lists them.

Pages, embeds and exports read a state from the URL (``app.inputs.link.parse_query``). These
dependencies declare each parameter as a plain string (parsing stays strict, in
``app.inputs.query`` and ``app.inputs.link``, so a bad value gets the route's own 4xx, not
FastAPI's), which puts every parameter in the OpenAPI document where a fuzzer finds it.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query

Text = str | None


def view_params(
    focus: Annotated[Text, Query(description="0-based query row explained (digits).")] = None,
    head: Annotated[Text, Query(description="0-based head shown (digits).")] = None,
    stretch: Annotated[Text, Query(description="Figure 12's factor, 0.1 to 64.")] = None,
    row: Annotated[Text, Query(description="Figure 12's row: textbook or focus.")] = None,
    theme: Annotated[Text, Query(description="light, dark or auto.")] = None,
) -> dict[str, str]:
    """The view's parameters that are present."""
    given = {"focus": focus, "head": head, "stretch": stretch, "row": row, "theme": theme}
    return {k: v for k, v in given.items() if v is not None}


def link_params(
    view: Annotated[dict[str, str], Depends(view_params)],
    preset: Annotated[Text, Query(description="A preset's id, e.g. i-love-llms.")] = None,
    s: Annotated[Text, Query(description="A state: base64url of compact JSON.")] = None,
) -> dict[str, str]:
    """The state's parameters (preset or s, and the view) that are present."""
    given = {"preset": preset, "s": s}
    return {**{k: v for k, v in given.items() if v is not None}, **view}


def embed_params(
    editable: Annotated[Text, Query(description="1: show a compact editor.")] = None,
    controls: Annotated[Text, Query(description="Comma-separated toggles to show.")] = None,
) -> dict[str, str]:
    """An embed's own options that are present."""
    given = {"editable": editable, "controls": controls}
    return {k: v for k, v in given.items() if v is not None}
