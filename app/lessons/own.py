"""The teacher's own question (``multiple_choice``): their prompt, their 2 to 6 choices and
the one they marked right, answered as written. It is the one kind whose answer is not
computed, so it reads no state and may ask about a lab section too; its choices are ids
``c1`` … ``c6`` (from 1, as the teacher counts them) for the player and SCORM."""

from __future__ import annotations

from app.lessons.asked import Answer
from app.lessons.format import Question


def multiple_choice(question: Question) -> Answer:
    assert question.choices is not None
    assert question.right is not None
    choices = [{"id": f"c{n}", "label": text} for n, text in enumerate(question.choices, 1)]
    return {
        "kind": "multiple_choice",
        "answer": question.choices[question.right - 1],
        "accept": {"choice": f"c{question.right}"},
        "why": question.why or "",  # the teacher's reason, when they gave one
        "choices": choices,
    }
