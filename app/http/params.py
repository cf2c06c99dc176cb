"""The query parameters of a link's state, declared once so OpenAPI lists them.

Pages, embeds and exports read a state from the URL (``app.inputs.link.parse_query``). These
dependencies declare each parameter as a plain string (parsing stays strict, in
``app.inputs.query`` and ``app.inputs.link``, so a bad value gets the route's own 4xx, not
FastAPI's), which puts every parameter in the OpenAPI document where a fuzzer finds it.
The view's parameters and their descriptions come from the one declaration of the view
(``app.figures.view_fields.VIEW_FIELDS``, described by ``app.inputs.view.field_doc``).
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from fastapi import Depends, Query

from app.figures.view_fields import VIEW_FIELDS
from app.inputs.view import field_doc

Text = str | None


def view_params(**given: Text) -> dict[str, str]:
    """The view's parameters that are present (one keyword per declared field: the
    signature below is what FastAPI reads)."""
    return {k: v for k, v in given.items() if v is not None}


setattr(  # noqa: B010 (the signature FastAPI reads: one optional query string per field)
    view_params,
    "__signature__",
    inspect.Signature(
        [
            inspect.Parameter(
                f.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=None,
                annotation=Annotated[Text, Query(description=field_doc(f))],
            )
            for f in VIEW_FIELDS
        ],
        return_annotation=dict[str, str],
    ),
)


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
    height: Annotated[Text, Query(description="Fixed height in CSS px (200–4000).")] = None,
    autoplay: Annotated[Text, Query(description="1: Figure 3 plays on load.")] = None,
) -> dict[str, str]:
    """An embed's own options that are present (checked by app/inputs/frame.py)."""
    given = {"editable": editable, "controls": controls, "height": height, "autoplay": autoplay}
    return {k: v for k, v in given.items() if v is not None}


def whole_query_doc(
    name: str, description: str, minimum: int, maximum: int, example: int
) -> dict[str, Any]:
    """``openapi_extra`` for a required whole-number query parameter of a route declared
    to the runner: the document says its type and bounds (a client and the fuzzer read
    them), while the route's plan parses it strictly itself (``app.inputs.query``), so the
    endpoint keeps taking only the request and a bad value gets the app's 422 naming it."""
    schema = {"type": "integer", "minimum": minimum, "maximum": maximum}
    parameter = {"name": name, "in": "query", "required": True, "description": description,
                 "schema": schema, "example": example}  # fmt: skip
    return {"parameters": [parameter]}
