"""The lesson routes' plan functions: a request (``app.inputs.plan.Ask``) to a priced
``Plan``, with no web framework (the runner, ``app.http.runner``, reads the body, runs
these in a worker thread after admission, since parsing and planning a 33-step lesson is
work, and checks the price before any figure is built).

* ``plan_answers``: ``POST /api/v1/lessons/answers``, the lesson's states' price;
* ``plan_export``: ``POST /api/v1/lessons/export``, that price scaled by what the file
  builds (every main step's figures in both themes, and the answers);
* ``plan_page``: a lesson page (built-in or from ``l=``), priced by what it prints;
* ``plan_builtin_list``, ``plan_schema``, ``plan_builtin_json``: ``GET /api/v1/lessons``,
  ``…/schema.json`` and ``…/{lesson_id}``, the package's own data (free: see there).

They live here rather than in ``app.inputs`` because a lesson is this package's format
(``app.inputs`` may not import it).
"""

from __future__ import annotations

from typing import Any

from app.inputs.errors import FieldError
from app.inputs.limits import Cost
from app.inputs.plan import Ask, Plan
from app.inputs.query import is_whole
from app.lessons.builtin import builtin_ids, get_builtin
from app.lessons.format import Lesson, LessonError, parse_lesson
from app.lessons.link import decode_lesson
from app.lessons.model_state import page_bytes
from app.lessons.states import LessonPlan, plan_lesson

STEPS = "the steps or their states' sizes"
# The export file builds each main-page step's figures in both themes and runs the
# engine once more for the answers: three times the states' numbers; it holds the
# figures twice, plus the player, the stylesheets and (with a chart) plotly.js.
BUILDS = 3
THEMES = 2
DOCUMENT_BYTES = 5_000_000
EXPORT_FORMATS = ("html", "scorm12", "scorm2004")
# A lesson page prints each step's text and state as JSON (25 kB for the largest
# built-in step) around a 60 kB skeleton, and a model head's body besides; rendering is
# about 5 µs a byte.
PAGE_BYTES = 60_000
STEP_PAGE_BYTES = 25_000
MODES = ("student", "present")


def planned(data: Any, ask: Ask) -> LessonPlan:
    """A lesson's JSON parsed (``LessonError`` naming the field) and every step's state
    planned and priced (``CostError`` naming the costliest steps)."""
    return plan_lesson(parse_lesson(data), ask.settings)


def plan_answers(ask: Ask) -> Plan:
    plan = planned(ask.data, ask)
    return Plan(plan.cost, STEPS, args=plan, field="steps")


# The built-in lessons and the schema are the package's own files and tables, read once
# and bounded by what ships: no request can make them larger, so they cost nothing to
# refuse (``Cost(0, 0)``, as the runner prices anything that is not work).
FREE = Cost(0, 0)


def plan_builtin_list(ask: Ask) -> Plan:
    """``GET /api/v1/lessons``: every built-in's summary."""
    return Plan(FREE, "nothing")


def plan_schema(ask: Ask) -> Plan:
    """``GET /api/v1/lessons/schema.json``: the lesson JSON Schema."""
    return Plan(FREE, "nothing")


def plan_builtin_json(ask: Ask) -> Plan:
    """``GET /api/v1/lessons/{lesson_id}`` (``args``: the id; the route refuses an unknown
    one from its path, before this plan)."""
    return Plan(FREE, "nothing", args=ask.path["lesson_id"])


def _choice(ask: Ask, name: str, allowed: tuple[str, ...], default: str) -> str:
    value = ask.query.get(name, default)
    if value not in allowed:
        raise FieldError(name, f"{name} must be one of {', '.join(allowed)}, got {value[:20]!r}")
    return value


def mastery_of(ask: Ask) -> int | None:
    """``?mastery=`` (SCORM's pass mark, 0 … 100; None: the package's default)."""
    raw = ask.query.get("mastery")
    if raw is None:
        return None
    if not is_whole(raw) or not 0 <= int(raw) <= 100:
        msg = f"mastery must be a whole percentage from 0 to 100, got {raw[:20]!r}"
        raise FieldError("mastery", msg)
    return int(raw)


def plan_export(ask: Ask) -> Plan:
    """``args``: (lesson, format, mastery)."""
    fmt = _choice(ask, "format", EXPORT_FORMATS, "html")
    mastery = mastery_of(ask)
    plan = planned(ask.data, ask)
    cost = Cost(plan.cost.cells * BUILDS, plan.cost.response_bytes * THEMES + DOCUMENT_BYTES)
    return Plan(cost, STEPS, args=(plan.lesson, fmt, mastery), field="steps")


def _page(ask: Ask, lesson: Lesson, lesson_id: str | None) -> Plan:
    mode = _choice(ask, "mode", MODES, "student")
    plan = plan_lesson(lesson, ask.settings)  # every state checked; a model head runs
    steps = len(lesson.steps)
    inlined = sum(page_bytes(s.plan) + page_bytes(s.change) for s in plan.steps)
    cost = Cost(steps, PAGE_BYTES + steps * STEP_PAGE_BYTES + inlined)
    return Plan(cost, STEPS, args=(plan, lesson_id, mode), field="steps")


def plan_builtin_page(ask: Ask) -> Plan:
    """``GET /lessons/{lesson_id}``; ``LessonError`` naming ``id`` (404) when unknown."""
    lesson_id = ask.path["lesson_id"]
    lesson = get_builtin(lesson_id)
    if lesson is None:
        ids = ", ".join(builtin_ids())
        raise UnknownLessonError("id", f"there is no lesson {lesson_id[:60]!r}; the built-in "
                            f"lessons are {ids}")  # fmt: skip
    return _page(ask, lesson, lesson_id)


def plan_link_page(ask: Ask) -> Plan:
    """``GET /lessons/play?l=…`` (and the lesson embed's link form)."""
    text = ask.query.get("l")
    if not text:
        raise LessonError("l", "give the lesson as l= (the link the editor makes)")
    return _page(ask, decode_lesson(text), None)


class UnknownLessonError(LessonError):
    """No built-in lesson has this id (a 404 page)."""

    status = 404
