"""Each step's state checked and priced exactly as its page would check it, before any work.

A main-page state takes the one path of links (``app.inputs.resolve.plan_link``: decoded,
validated, limited and priced as the page with that many figures); a direction
question's changed state too. A main-page state on a real model's head
(``model=…&text=…&layer=…&head=…``) is read and priced first, then run at plan time
(``app.lessons.model_state``): the lesson's model steps' forward passes are priced
together before any of them runs. A lab state is checked as the lab page reads its URL
(``app.inputs.lab_controls``: the section's controls, the main-page state it reads) and
priced from the same table as the lab routes (``app.inputs.lab_cost``) plus its seeded
experiment runs. ``plan_lesson`` adds every price and refuses the lesson when the sum is
over the budget, naming the steps to reduce. Every error is a ``LessonError`` whose field
is the step's path (``steps[3].state.query``) and whose message names the parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, ValidationError

from app.figures.labs import LABS, LabFigure, get_lab
from app.figures.labs.base import BODY_KEYS
from app.inputs.errors import FieldError
from app.inputs.experiments import SaturationRequest, ScalingTableRequest, ScoreVarianceRequest
from app.inputs.lab_controls import figure_values, read_values
from app.inputs.lab_cost import BODY_FIGURES, figure_price
from app.inputs.limits import Cost, CostError, check_cost
from app.inputs.link import parse_query
from app.inputs.resolve import Plan, StateError, check_request, plan_link
from app.labs.experiments import experiment_cells
from app.lessons import model_state
from app.lessons.format import (
    CHANGE_QUERY_KEYS,
    CHANGE_SWITCHES,
    MAIN_QUERY_KEYS,
    MODEL_KEYS,
    LabState,
    Lesson,
    LessonError,
    MainState,
    Question,
    query_params,
)
from app.lessons.section import asking_sections
from app.settings import Settings

# The seeded runs a lab section may ask for (the lab routes read them the same way).
RUNS: dict[str, type[BaseModel]] = {
    "score-variance": ScoreVarianceRequest,
    "saturation": SaturationRequest,
    "scaling-table": ScalingTableRequest,
}


@dataclass(frozen=True)
class StepPlan:
    """A step's checked state: its plan (main pages) and its price; ``change``: a
    direction question's second state."""

    cost: Cost
    plan: Plan | None = None
    change: Plan | None = None


@dataclass(frozen=True)
class LessonPlan:
    lesson: Lesson
    steps: tuple[StepPlan, ...]
    cost: Cost


def plan_main(
    query: str, path: str, settings: Settings, figures: int, *, change: bool = False
) -> Plan:
    """A main-page query planned as the page plans its link (nothing runs; a model's
    head runs the model, its price checked first). ``change``: a direction question's
    changed state, whose model link may switch scaling or the mask."""
    params = query_params(query, path, CHANGE_QUERY_KEYS if change else MAIN_QUERY_KEYS)
    if not model_state.is_model(params):
        for key in CHANGE_SWITCHES:
            if key in params:
                raise LessonError(path, f"{key}: switches a real model's head, with model; "
                                  "a changed state of numbers is its s= body")  # fmt: skip
    if model_state.is_model(params):
        return model_state.plan_model(model_state.read_model(params, path), path, settings,
                                      figures)  # fmt: skip
    for key in MODEL_KEYS[1:]:
        if key in params:
            raise LessonError(path, f"{key}: opens a real model's head, with model")
    try:
        return plan_link(params, settings, figures=figures)
    except StateError as exc:  # every failure of a link, its price included
        raise LessonError(path, f"{exc.param}: {exc.message}") from None


# Stages whose rows are keys, not queries: the outline (the focus) is a query row.
KEY_ROW_STAGES = ("K", "V")


def outline_asked_row(plan: Plan, question: Question | None) -> Plan:
    """``plan`` with its figures' outline (the view's focus) on the query row ``question``
    asks about, when it asks about one the state has. The question wins over the state's
    own focus: a step asking for q_1 under the default outline of row 2 (love) had the
    learner read the wrong row."""
    if question is None or question.row is None or question.stage in KEY_ROW_STAGES:
        return plan
    i = question.row - 1
    view = plan.link.view
    if i >= plan.shape.l_q or view.focus == i:
        return plan  # a row outside the state is the question's error, named by its kind
    if view.focus is not None and view.focus >= plan.shape.l_q:
        return plan  # and a focus outside it the state's (named when the state runs)
    return replace(plan, link=replace(plan.link, view=replace(view, focus=i)))


def _section(state: LabState, path: str) -> tuple[Any, LabFigure]:
    lab = get_lab(state.lab)
    if lab is None or lab.status != "ready":
        ids = ", ".join(lab.id for lab in LABS if lab.status == "ready")
        raise LessonError(f"{path}.lab", f"no lab {state.lab!r}; the labs are {ids}")
    fig = lab.figure(state.section)
    if fig is None:
        names = ", ".join(f.name for f in lab.figures)
        raise LessonError(
            f"{path}.section", f"the lab {lab.id!r} has no section {state.section!r}; "
            f"its sections are {names}"
        )  # fmt: skip
    return lab, fig


def lab_keys(lab: Any, fig: LabFigure) -> set[str]:
    """The query keys a lab section reads: its controls, those of the figures it reads,
    and the main-page state when it draws one."""
    names = {fig.name, *fig.reads}
    keys = {key for (figure, _), key in lab.keys().items() if figure in names}
    return keys | (set(BODY_KEYS) if fig.uses_body else set())


def price_lab(state: LabState, path: str, settings: Settings) -> Cost:
    """A lab section checked as its page reads the URL, and priced as its route prices it."""
    lab, fig = _section(state, path)
    qpath = f"{path}.query"
    params = query_params(state.query, qpath, lab_keys(lab, fig))
    try:
        values = figure_values(lab, fig, params)
        read_values(lab, fig, params)
        price = figure_price(lab.id, fig.name, values)
        cost = price.cost
        check_cost(cost, settings, price.reduce, field=price.field)
        if fig.uses_body:
            given = {k: params[k] for k in BODY_KEYS if params.get(k)}
            weight = BODY_FIGURES.get((lab.id, fig.name), 11)
            key = "s" if "s" in given else "preset"
            cost = cost + check_request(parse_query(given).body, settings, key, weight)[2]
        for name, body in fig.runs(values, False) if fig.runs is not None else []:
            run = RUNS[name].model_validate(dict(body)).to_params()  # type: ignore[attr-defined]
            cost = cost + Cost(experiment_cells(run), 0)
    except StateError as exc:
        raise LessonError(qpath, f"{exc.param}: {exc.message}") from None
    except (FieldError, CostError) as exc:
        raise LessonError(qpath, f"{exc.field}: {exc.message}") from None
    except ValidationError as exc:
        raise LessonError(qpath, str(exc.errors()[0]["msg"])) from None
    return cost


def plan_step(step: Any, path: str, settings: Settings) -> StepPlan:
    state = step.state
    if isinstance(state, LabState):
        cost = price_lab(state, f"{path}.state", settings)
        if step.question is not None and step.question.kind == "section_question":
            _, fig = _section(state, f"{path}.state")
            if not fig.asks:
                raise LessonError(f"{path}.question.kind", f"the section {state.lab}/"
                                  f"{state.section} asks no question of its own; the "
                                  f"sections that do: {', '.join(asking_sections())}")  # fmt: skip
        return StepPlan(cost)
    assert isinstance(state, MainState)
    question = step.question
    plan = plan_main(state.query, f"{path}.state.query", settings, len(state.figures))
    plan = outline_asked_row(plan, question)
    change = None
    if question is not None and question.change is not None:
        change = plan_main(question.change, f"{path}.question.change", settings, 1, change=True)
        change = outline_asked_row(change, question)
    cost = plan.cost + (change.cost if change is not None else Cost(0, 0))
    return StepPlan(cost, plan, change)


def _forward_cost(lesson: Lesson) -> Cost:
    """The price of every model head the lesson's states (and changed states) open."""
    total = Cost(0, 0)
    for i, step in enumerate(lesson.steps):
        if not isinstance(step.state, MainState):
            continue
        change = step.question.change if step.question is not None else None
        for query, path in ((step.state.query, f"steps[{i}].state.query"),
                            (change, f"steps[{i}].question.change")):  # fmt: skip
            params = query_params(query or "", path, CHANGE_QUERY_KEYS)
            if model_state.is_model(params):
                total = total + model_state.read_model(params, path).cost
    return total


def plan_lesson(lesson: Lesson, settings: Settings) -> LessonPlan:
    """Every step's state checked and priced; ``CostError`` naming the costliest steps
    when the lesson's total is over the budget (the model steps' forward passes first,
    before any of them runs)."""
    check_cost(_forward_cost(lesson), settings, "the model steps or their texts", field="steps")
    steps = tuple(plan_step(s, f"steps[{i}]", settings) for i, s in enumerate(lesson.steps))
    total = sum((s.cost for s in steps), Cost(0, 0))
    costliest = sorted(range(len(steps)), key=lambda i: -steps[i].cost.cells)[:3]
    named = ", ".join(f"steps[{i}]" for i in costliest)
    check_cost(total, settings, f"the steps or their states' sizes (costliest: {named})",
               field="steps")  # fmt: skip
    return LessonPlan(lesson, steps, total)
