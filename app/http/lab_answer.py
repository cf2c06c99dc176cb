"""A lab figures request, checked and priced before anything is built: ``Ask``.

Both lab surfaces use it: the lab API (``GET /api/v1/labs/{id}/figures``, JSON or NDJSON)
and the lab embed. ``Ask(lab, request)`` parses the query strictly (unknown keys, bad
values: ``ControlError`` naming the key); ``Ask.price()`` prices every figure asked for
from its controls (``app.inputs.lab_cost``), the main-page state it reads (which obeys
``MAX_FIGURE_TOKENS`` / ``MAX_FIGURE_WIDTH``) and its experiment runs, refusing what is
over the budget with a ``PriceError`` (422) naming the control; ``Ask.answer()`` builds
the figures (run by ``app.http.pipeline`` off the loop when heavy); ``progress_lines``
is the NDJSON body, run inside the stream's slot.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

from starlette.requests import Request

from app.figures.labs import Lab, LabFigure
from app.figures.labs.base import BODY_KEYS
from app.http.admission import Slot
from app.http.lab_state import (
    JSON_KEYS,
    Results,
    build_one,
    experiment_params,
    extra_keys,
    lab_query,
    links,
    named_error,
    run_key,
    values_text,
)
from app.http.pipeline import in_slot
from app.http.responses import settings_of
from app.inputs.errors import FieldError, error_detail
from app.inputs.lab_controls import ControlError, check_unknown, figure_values
from app.inputs.lab_cost import BODY_FIGURES, figure_price
from app.inputs.limits import Cost, CostError, check_cost
from app.inputs.link import parse_query
from app.inputs.resolve import StateError, check_request
from app.labs.experiments import blocks_total, experiment_cells, held_cells, iterate, steps
from app.settings import Settings, get_settings
from app.wire import json_block


class PriceError(ControlError):
    """A value the figures cannot afford (422, not a malformed value's 400 in an embed)."""


class Ask:
    """A checked figures request: the lab, the figures asked for and their state."""

    def __init__(
        self, lab: Lab, request: Request | None, *, embed: LabFigure | None = None,
        query: Mapping[str, str] | None = None, settings: Settings | None = None,
    ) -> None:  # fmt: skip
        """From a request, or (``attention-lab export``: no request) a query and settings."""
        params = dict(request.query_params) if request is not None else dict(query or {})
        self.lab, self.request, self.embed = lab, request, embed is not None
        self.settings: Settings = (
            settings_of(request) if request is not None else settings or get_settings()
        )
        if embed is not None:
            params.pop("controls", None)
            self.figures = [embed]
        else:
            check_unknown(lab, params, JSON_KEYS | extra_keys(lab))
            names = [n for n in params.get("figures", "").split(",") if n]
            unknown = [n for n in names if lab.figure(n) is None]
            if unknown:
                raise ControlError("figures", f"the lab has no figure {unknown[0]!r}")
            self.figures = [f for f in lab.figures if not names or f.name in names]
        theme = params.get("theme")
        self.theme: Literal["light", "dark"] = "dark" if theme == "dark" else "light"
        self.preview = params.get("preview") == "1"
        self.state = {k: v for k, v in params.items() if k not in JSON_KEYS}
        self.query = lab_query(lab, self.state)  # checks every control's value

    def values(self, fig: LabFigure) -> dict[str, Any]:
        return figure_values(self.lab, fig, self.state, embed=self.embed)

    def runs(self) -> list[tuple[LabFigure, str, dict[str, Any]]]:
        """The experiment runs the figures need, in order."""
        out = []
        for fig in self.figures:
            if fig.runs is not None:
                runs = fig.runs(self.values(fig), self.preview)
                out += [(fig, name, body) for name, body in runs]
        return out

    def _check(self, cost: Cost, field: str, reduce: str) -> None:
        try:
            check_cost(cost, self.settings, reduce, field=field)
        except CostError as exc:
            raise PriceError(exc.field, exc.message) from None

    def _body_cost(self, fig: LabFigure) -> Cost:
        """The main-page state a figure reads, priced as the figures it is worth."""
        given = {k: self.state[k] for k in BODY_KEYS if self.state.get(k)}
        key = "s" if "s" in given else "preset"
        try:
            body = parse_query(given).body
            weight = BODY_FIGURES.get((self.lab.id, fig.name), 11)
            return check_request(body, self.settings, key, figures=weight)[2]
        except StateError as exc:
            raise PriceError(key, exc.message) from None
        except FieldError as exc:  # a malformed state
            raise ControlError(exc.field, exc.message) from None

    def price(self, draws: int = 1) -> Cost:
        """What answering costs: every figure priced from its controls (``draws`` times:
        an ``auto`` embed draws both themes), the main-page state it reads and its runs;
        refused (PriceError naming the control) when over the budget. The budget is
        checked against what is held at once (runs go one after another, a block at a
        time); the cost returned, which admission and Retry-After use, adds the runs' work
        (the numbers they draw)."""
        held, largest_run, work = Cost(0, 0), 0, 0
        for fig in self.figures:
            price = figure_price(self.lab.id, fig.name, self.values(fig))
            field = self.lab.keys().get((fig.name, price.field), price.field)
            self._check(price.cost, field, price.reduce)
            held = held + Cost(price.cost.cells * draws, price.cost.response_bytes * draws)
            if fig.uses_body:
                held = held + self._body_cost(fig)
        for fig, name, body in self.runs():
            try:
                p = experiment_params(fig, name, body)  # bounds and the work limit
            except ControlError as exc:
                raise named_error(self.lab, fig, exc) from None
            field = named_error(self.lab, fig, ControlError(_run_field(name), "")).key
            self._check(Cost(held_cells(p), 0), field, field)
            largest_run = max(largest_run, held_cells(p))
            work += experiment_cells(p)
        self._check(held + Cost(largest_run, 0), "figures", "the figures asked for")
        return held + Cost(work, 0)

    def answer(self, results: Results | None = None) -> dict[str, Any]:
        """The figures, their values as URL text, links and embed snippets."""
        out: dict[str, Any] = {"query": self.query, "figures": {}, "values": {}, "links": {}}
        for fig in self.figures:
            built = build_one(self.lab, fig, self.state, self.theme, self.settings,
                              preview=self.preview, results=results)  # fmt: skip
            out["figures"][fig.name] = built
            out["values"][fig.name] = values_text(self.lab, fig, self.values(fig))
            if self.request is not None:
                out["links"][fig.name] = links(self.request, self.lab, fig, self.query, built)
        return out


def _run_field(name: str) -> str:
    return "trials" if name == "saturation" else "draws"


def line(payload: dict[str, Any]) -> bytes:
    return json_block(payload).encode() + b"\n"


def control_detail(key: str, message: str) -> dict[str, Any]:
    return error_detail(key, message, "invalid_control", ["query", key])


async def progress_lines(ask: Ask, slot: Slot | None) -> AsyncIterator[bytes]:
    """Progress lines while the experiments run (one block at a time, under the stream's
    slot; a closed connection stops the run at the next block), then the figures built
    in that slot too, or a ``detail`` line for a value the builder refuses."""
    results: Results = {}
    plans = [(n, b, experiment_params(f, n, b)) for f, n, b in ask.runs()]
    total = sum(blocks_total(p) for *_, p in plans) or 1
    done = 0
    yield line({"progress": {"done": 0, "total": total}})
    try:
        for name, body, p in plans:
            items = iterate(steps(p))
            while isinstance(item := await in_slot(slot, next, items, None), tuple):
                done += 1
                yield line({"progress": {"done": done, "total": total}})
            if item is not None:
                results[run_key(name, body)] = item
        yield line({"result": await in_slot(slot, ask.answer, results)})
    except ControlError as exc:
        yield line(control_detail(exc.key, exc.message))
