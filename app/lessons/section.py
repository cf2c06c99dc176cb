"""``section_question``: a lab section's own stop-and-try question asked in a lesson. The
lab computes it from the section's controls (its figure description's ``reveal``: the
question with its numbers, the choices, the right one and why), so the lesson's answer is
the lab's, for any controls the teacher set.

Building a lab section is the ``http`` package's (checked, priced, its computations handed
in: ``app.http.lesson_labs.lab_figure``), which this package may not import; the caller
hands the builder in, as the offline document's caller does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

from app.figures.labs import LABS
from app.lessons.asked import Answer
from app.lessons.format import LabState, LessonError

# (lab id, section, the section's query, theme) -> the section's figure description.
LabBuilder = Callable[[str, str, Mapping[str, str], str], dict[str, Any]]


def asking_sections() -> list[str]:
    """Every lab section that asks its own question, as ``lab/section``."""
    return [f"{lab.id}/{fig.name}" for lab in LABS if lab.status == "ready"
            for fig in lab.figures if fig.asks]  # fmt: skip


def section_question(state: LabState, path: str, lab_figure: LabBuilder | None) -> Answer:
    """The section's own question answered by the lab; ``path`` is the step's."""
    if lab_figure is None:
        how = "by the lab: ask for it through POST /api/v1/lessons/answers"
        raise LessonError(f"{path}.question.kind", f"a lab section's own question is built {how}")
    figure = lab_figure(state.lab, state.section, dict(parse_qsl(state.query)), "light")
    reveal = figure["reveal"]
    return {
        "kind": "section_question",
        "answer": reveal["correct_label"],
        "accept": {"choice": reveal["correct"]},
        "why": reveal["why"],
        "choices": [{"id": value, "label": label} for value, label in reveal["choices"]],
        "asks": reveal["question"],  # the lab's words, with this state's numbers
    }
