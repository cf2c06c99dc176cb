"""What the lesson player is handed, shared by the lesson pages (``app.web.lessons``) and the
lesson embeds (``app.web.lesson_embed``): the context of
``lessons/player.html`` with each step's state as the player asks the API for it (a main
step as the body and view ``POST /api/v1/figures`` takes, with ``after``, the changed
state a direction question's reveal draws with it; a lab step as its section and query).
Both surfaces show one player from one description; nothing runs here."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode

from app.figures.registry import BY_NUMBER
from app.lessons.format import LabState, lesson_json
from app.lessons.model_state import page_query
from app.lessons.states import LessonPlan

STATIC_FIGURES = tuple(n for n, f in BY_NUMBER.items() if f.kind == "static")


def _main_step(plan: Any, figures: tuple[int, ...]) -> dict[str, Any]:
    view = plan.link.view
    return {
        "kind": "main",
        "body": plan.link.body,
        "view": {
            "focus": view.focus_row,
            "head": view.head,
            "stretch": view.stretch,
            "softmax_row": view.row,
        },
        "figures": list(figures),
        "static": [n for n in figures if n in STATIC_FIGURES],
        "open": f"/?{page_query(plan)}",  # a model's head reopens as its own link
    }


def _lab_step(state: LabState, params: dict[str, str]) -> dict[str, Any]:
    query = urlencode(params)
    return {
        "kind": "lab",
        "lab": state.lab,
        "section": state.section,
        "query": params,
        "open": f"/labs/{state.lab}{'?' + query if query else ''}#{state.section}",
    }


def player_steps(plan: LessonPlan) -> list[dict[str, Any]]:
    """Each step's state as the player asks the API for it."""
    out: list[dict[str, Any]] = []
    for step, step_plan in zip(plan.lesson.steps, plan.steps, strict=True):
        state = step.state
        if isinstance(state, LabState):
            out.append(_lab_step(state, dict(parse_qsl(state.query))))
        else:
            shown = _main_step(step_plan.plan, state.figures)
            if step_plan.change is not None:  # a direction question: its changed state too,
                shown["after"] = _main_step(step_plan.change, state.figures)  # for the reveal
            out.append(shown)
    return out


def player_context(plan: LessonPlan, lesson_id: str | None, mode: str) -> dict[str, Any]:
    """The template context of the player (``lessons/player.html``) for a planned lesson:
    the lesson, ``#lesson-state`` and the static figures its steps show."""
    steps = player_steps(plan)
    state = {
        "lesson": lesson_json(plan.lesson),
        "lesson_id": lesson_id,
        "mode": mode,
        "theme": "auto",
        "steps": steps,
    }
    statics = sorted({n for s in steps for n in s.get("static", [])})
    return {"lesson": plan.lesson, "state": state, "mode": mode, "statics": statics,
            "titles": {n: BY_NUMBER[n].title for n in statics}}  # fmt: skip
