"""Every question kind answered on the running example, against numbers worked by hand
from the spec (FIGURES.md: Q₁₁ = 2, q₂·k₃ = 3 vs q₃·k₂ = 2, love's exponentials e^1 =
2.718, e^2.5 = 12.182, e^1.5 = 4.482 with total 19.382, row 2 of Z = (1.63, …)); ties,
masks, heads and direction both ways.

Worked by hand: Q = [[2,1,0,0],[1,2,0,1],[1,0,1,2]], K = [[2,0,1,0],[0,2,0,1],[1,0,0,2]],
Q Kᵀ = [[4,2,2],[2,5,3],[3,2,5]], ÷ √4 = 2. Row 2's weights e^(1, 2.5, 1.5) / 19.382 =
(0.1402, 0.6285, 0.2312); its entropy −Σ p log₂ p = 1.307 bits. Unscaled, row 2 is
e^(2, 5, 3) / 175.89 = (0.0420, 0.8438, 0.1142), 0.756 bits. Causal, row 2 keeps e^1 and
e^2.5: (0.1824, 0.8176).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from lesson_helpers import asking, lesson, query, step

from app.inputs.link import encode_body
from app.lessons.answers import answer_lesson
from app.lessons.format import LessonError, parse_lesson

CAUSAL = "preset=causal"
OFF = query(scale=False)
# Two identical tokens: every score ties.
TWINS = query(tokens=["a", "b"], x=[[0, 0, 1, 1], [0, 0, 1, 1]])


def answer(question: dict[str, Any], q: str = "preset=i-love-llms") -> dict[str, Any]:
    found = answer_lesson(asking(question, q))[0]
    assert found is not None
    return found


def refusal(question: dict[str, Any], q: str = "preset=i-love-llms") -> LessonError:
    with pytest.raises(LessonError) as caught:
        answer_lesson(asking(question, q))
    return caught.value


def test_attends_most_reads_the_row_of_the_weights() -> None:
    a = answer({"kind": "attends_most", "row": 2})
    assert a["answer"] == "love (row 2)"
    assert a["accept"] == {"choice": "k2"}
    assert a["choices"] == [{"id": "k1", "label": "I (row 1)"},
                            {"id": "k2", "label": "love (row 2)"},
                            {"id": "k3", "label": "LLMs (row 3)"}]  # fmt: skip
    assert a["why"] == (
        "q_2·k_2 = 5 is the largest of row 2 (love)'s scores (2, 5 and 3), and softmax keeps "
        "the order, so love (row 2) gets the largest weight, 0.63."
    )
    assert "misconception" not in a  # no common mistake names another key here
    row3 = answer({"kind": "attends_most", "row": 3})
    assert row3["accept"] == {"choice": "k3"}


def test_attends_most_under_a_mask_and_its_mistakes() -> None:
    a = answer({"kind": "attends_most", "row": 1}, CAUSAL)
    assert a["accept"] == {"choice": "k1"}
    assert a["why"].startswith("q_1·k_1 = 4 is the only score row 1 (I) may use")
    # A padded key that would win: the mistake "mask ignored" names it.
    padded = query(padding=[False, True, False])
    b = answer({"kind": "attends_most", "row": 2}, padded)
    assert b["accept"] == {"choice": "k3"}
    assert b["misconception"]["answer"] == "love (row 2)"
    assert "mask ignored" in b["misconception"]["why"]


def test_attends_most_names_the_column_mistake_when_it_differs() -> None:
    # Direct mode, scale off, K = I: the scores are Q = [[2, 1], [5, 0]]. Row 1 weighs k_1
    # most (e^2 > e^1), but down the columns row 1 gets e^2 / (e^2 + e^5) = 0.05 of column
    # 1 and e^1 / (e^1 + e^0) = 0.73 of column 2: the column mistake names k_2.
    direct = "s=" + encode_body({"q": [[2, 1], [5, 0]], "k": [[1, 0], [0, 1]],
                                 "v": [[1, 0], [0, 1]], "scale": False,
                                 "tokens": ["a", "b"], "key_tokens": ["x", "y"]})  # fmt: skip
    a = answer({"kind": "attends_most", "row": 1}, direct)
    assert a["accept"] == {"choice": "k1"}
    assert a["misconception"]["answer"] == "y (row 2)"
    assert "Softmax down each column would give" in a["misconception"]["why"]
    assert "(0.73)" in a["misconception"]["why"]
    # Row 1 of the running example: I is weighed most even though love and LLMs tie below.
    assert answer({"kind": "attends_most", "row": 1})["accept"] == {"choice": "k1"}


def test_attends_most_names_the_token_itself_when_its_own_key_loses() -> None:
    # Row 3 of X set to (0, 1, 0, 0): row 3's scores are (0, 2, 1), so LLMs weighs love
    # most; the column softmax would name LLMs itself, the first mistake found.
    column = answer({"kind": "attends_most", "row": 3},
                    query(x=[[0, 0, 1, 1], [0, 1, 0, 1], [0, 1, 0, 0]]))  # fmt: skip
    assert column["accept"] == {"choice": "k2"}
    assert column["misconception"]["answer"] == "LLMs (row 3)"
    # Row 2 of X set to (1, 1, 1, 1): row 2's scores are (5, 4, 4):
    # love weighs I most and the column softmax agrees, so the mistake is "itself".
    b = answer({"kind": "attends_most", "row": 2},
               query(x=[[0, 0, 1, 1], [1, 1, 1, 1], [1, 0, 0, 1]]))  # fmt: skip
    assert b["accept"] == {"choice": "k1"}
    assert b["misconception"] == {
        "answer": "love (row 2)",
        "why": "A token need not attend most to itself: q_2·k_2 = 4 is smaller than q_2·k_1 = 5.",
    }


def test_a_tie_has_no_single_answer_but_click_cell_accepts_every_tied_cell() -> None:
    error = refusal({"kind": "attends_most", "row": 1}, TWINS)
    assert error.field == "steps[0].question.row"
    assert "a (row 1) and b (row 2) have the same weight (0.50)" in error.message
    a = answer({"kind": "click_cell", "stage": "weights", "which": "max"}, TWINS)
    assert a["accept"] == {"cells": [[1, 1], [1, 2], [2, 1], [2, 2]]}
    low = answer({"kind": "click_cell", "stage": "weights", "which": "min", "row": 1})
    assert low["accept"] == {"cells": [[1, 2], [1, 3]]}  # 0.2119 twice
    assert low["answer"].endswith(": 0.21")


def test_order_lists_the_keys_by_weight() -> None:
    a = answer({"kind": "order", "row": 2})
    assert a["accept"] == {"sequence": ["k2", "k3", "k1"]}
    assert a["answer"] == "love (row 2), LLMs (row 3), I (row 1)"
    assert "love (row 2) 0.63 > LLMs (row 3) 0.23 > I (row 1) 0.14" in a["why"]
    causal = answer({"kind": "order", "row": 2}, CAUSAL)
    assert causal["accept"] == {"sequence": ["k2", "k1"]}  # the blocked key is no choice
    assert [c["id"] for c in causal["choices"]] == ["k1", "k2"]
    assert "same weight" in refusal({"kind": "order", "row": 1}).message  # 0.21 twice


@pytest.mark.parametrize(
    ("stage", "row", "col", "value", "printed"),
    [
        ("Q", 1, 1, 2.0, "2"),
        ("K", 3, 4, 2.0, "2"),
        ("V", 2, 1, 2.0, "2"),
        ("scores", 2, 3, 3.0, "3"),
        ("scores", 3, 2, 2.0, "2"),
        ("scaled", 2, 2, 2.5, "2.5"),
        ("weights", 2, 2, math.exp(2.5) / (math.exp(1) + math.exp(2.5) + math.exp(1.5)), "0.63"),
        ("weights", 2, 3, math.exp(1.5) / (math.exp(1) + math.exp(2.5) + math.exp(1.5)), "0.23"),
        ("Z", 2, 1, 1.6285, "1.63"),
    ],
)
def test_cell_value_against_hand_worked_numbers(
    stage: str, row: int, col: int, value: float, printed: str
) -> None:
    a = answer({"kind": "cell_value", "stage": stage, "row": row, "col": col})
    assert a["answer"] == printed
    low, high = a["accept"]["min"], a["accept"]["max"]
    assert low < value < high
    assert high - low == pytest.approx(0.04 if stage == "Z" else 0.02)


def test_cell_value_says_how_the_number_is_made() -> None:
    assert answer({"kind": "cell_value", "stage": "Q", "row": 1, "col": 1})["why"] == (
        "Row 1 (I) of X times column 1 of W^Q: 0·0 + 0·0 + 1·1 + 1·1 = 2."
    )
    weights = answer({"kind": "cell_value", "stage": "weights", "row": 2, "col": 1})
    assert weights["why"] == (
        "Softmax along row 2 (love): e^1 = 2.718 out of the row's total 19.382 is 0.14."
    )
    z = answer({"kind": "cell_value", "stage": "Z", "row": 2, "col": 1})
    assert (
        z["why"]
        == "Row 2 (love) of the weights times column 1 of V: 0.14·1 + 0.63·2 + 0.23·1 = 1.63."
    )
    off = answer({"kind": "cell_value", "stage": "scaled", "row": 2, "col": 3}, OFF)
    assert off["why"] == "Scaling is off, so the scaled score is the raw q_2·k_3 = 3."
    assert "misconception" not in off


def test_cell_value_mistakes_are_computed() -> None:
    scores = answer({"kind": "cell_value", "stage": "scores", "row": 2, "col": 3})
    assert scores["misconception"]["answer"] == "2"  # q_3·k_2: scores are not symmetric
    scaled = answer({"kind": "cell_value", "stage": "scaled", "row": 2, "col": 3})
    assert scaled["misconception"] == {
        "answer": "3",
        "why": "That is the raw score; scaled means divided by √d_k = √4 = 2.",
    }
    forgot = answer({"kind": "cell_value", "stage": "weights", "row": 2, "col": 2})
    assert forgot["misconception"]["answer"] == "0.84"  # e^5 / 175.89 = 0.8438
    assert "√d_k = √4 = 2 forgotten" in forgot["misconception"]["why"]
    columns = answer({"kind": "cell_value", "stage": "weights", "row": 2, "col": 2}, OFF)
    assert columns["answer"] == "0.84"
    assert columns["misconception"]["answer"] == "0.91"  # e^5 / (e^2 + e^5 + e^2)
    assert "down each column" in columns["misconception"]["why"]
    masked = answer({"kind": "cell_value", "stage": "weights", "row": 2, "col": 1}, CAUSAL)
    assert masked["answer"] == "0.18"  # e^1 / (e^1 + e^2.5)
    assert masked["misconception"]["answer"] == "0.14"
    assert "mask ignored" in masked["misconception"]["why"]
    tolerant = answer({"kind": "cell_value", "stage": "weights", "row": 2, "col": 2,
                       "tolerance": 0.5})  # fmt: skip
    assert "misconception" not in tolerant  # 0.84 is within 0.5 of 0.63: no telling apart


def test_cell_value_refuses_cells_that_are_not_numbers() -> None:
    blocked = refusal({"kind": "cell_value", "stage": "scaled", "row": 1, "col": 3}, CAUSAL)
    assert blocked.field == "steps[0].question.col"
    assert "−∞" in blocked.message
    zero = answer({"kind": "cell_value", "stage": "weights", "row": 1, "col": 3}, CAUSAL)
    assert zero["answer"] == "0"
    assert zero["why"] == "The mask blocks LLMs (row 3) for row 1 (I), so its weight is exactly 0."


def test_click_cell_skips_the_masked_cells() -> None:
    a = answer({"kind": "click_cell", "stage": "weights", "which": "min", "row": 2}, CAUSAL)
    assert a["accept"] == {"cells": [[2, 1]]}  # 0.18, not the blocked 0 of column 3
    assert "among the cells the mask allows" in a["why"]
    grid = answer({"kind": "click_cell", "stage": "scores", "which": "max"})
    assert grid["accept"] == {"cells": [[2, 2], [3, 3]]}  # 5 twice
    assert grid["why"] == (
        "The largest raw score in the grid is 5, at row 2 (love), column 2 (love) and "
        "row 3 (LLMs), column 3 (LLMs)."
    )


def test_direction_both_ways_with_the_scaling_mistake() -> None:
    on = {"kind": "direction", "quantity": "entropy", "row": 2, "change": "preset=i-love-llms"}
    up = answer(on, OFF)
    assert up["accept"] == {"choice": "up"}
    assert up["answer"] == "up: 0.76 bits → 1.31 bits"
    assert [c["id"] for c in up["choices"]] == ["up", "down", "same"]
    assert "goes from 3 to 1.5" in up["why"]
    assert up["misconception"]["answer"] == "down"
    assert up["misconception"]["why"].startswith("Turning scaling on divides every score by")
    down = answer(on | {"change": OFF}, "preset=i-love-llms")
    assert down["accept"] == {"choice": "down"}
    assert down["misconception"]["answer"] == "up"
    top = answer({"kind": "direction", "quantity": "max_weight", "row": 2, "change": OFF})
    assert top["answer"] == "up: 0.63 → 0.84"


def test_direction_same_and_masks() -> None:
    same = answer({"kind": "direction", "quantity": "entropy", "row": 1, "change": "focus=0"})
    assert same["accept"] == {"choice": "same"}
    assert "misconception" not in same
    masked = answer({"kind": "direction", "quantity": "weight", "row": 2, "col": 2,
                     "change": CAUSAL})  # fmt: skip
    assert masked["answer"] == "up: 0.63 → 0.82"  # e^2.5 / (e^1 + e^2.5) = 0.8176
    assert "row 2 (love) may see 3 keys in this state and 2 after it" in masked["why"]
    assert "misconception" not in masked  # not a scaling change


def test_heads_and_rows_are_checked_against_the_state() -> None:
    two = "preset=two-heads"
    # Head 1 uses columns 1–2 of W^Q and W^K: row 2's scores (2, 4, 1); head 2 columns
    # 3–4: (0, 1, 2).
    first = answer({"kind": "attends_most", "row": 2, "head": 1}, two)
    assert first["accept"] == {"choice": "k2"}
    second = answer({"kind": "attends_most", "row": 2, "head": 2}, two)
    assert second["accept"] == {"choice": "k3"}
    assert second["why"].startswith(
        "q_2·k_3 = 2 is the largest of row 2 (love)'s scores (0, 1 and 2)"
    )
    q = answer({"kind": "cell_value", "stage": "Q", "row": 2, "col": 1, "head": 2}, two)
    assert q["why"] == "Row 2 (love) of X times column 3 of W^Q: 0·1 + 1·0 + 0·0 + 1·0 = 0."
    assert refusal({"kind": "attends_most", "row": 2, "head": 3}, two).field == (
        "steps[0].question.head"
    )
    empty = query(mask="causal", padding=[True, False, False])
    error = refusal({"kind": "attends_most", "row": 1}, empty)
    assert "no allowed key" in error.message
    with pytest.raises(LessonError, match="no allowed key"):
        answer_lesson(asking({"kind": "direction", "quantity": "entropy", "row": 1,
                              "change": ""}, empty))  # fmt: skip


def test_answers_follow_the_steps_and_take_a_lesson_or_its_json() -> None:
    raw = lesson(step(), step({"kind": "attends_most", "row": 2}), step())
    answers = answer_lesson(raw)
    assert answers[0] is None
    assert answers[2] is None
    assert answers == answer_lesson(parse_lesson(raw))


def test_direct_mode_and_wide_vectors_are_explained_without_a_projection() -> None:
    # Direct mode, d_k = 9: Q is given, and q_1·k_1 is a sum of 9 products, not written out.
    wide = "s=" + encode_body({"q": [[1] * 9, [0] * 9], "k": [[1] * 9, [2] * 9],
                               "v": [[1], [2]]})  # fmt: skip
    q = answer({"kind": "cell_value", "stage": "Q", "row": 1, "col": 1}, wide)
    assert q["why"] == "Q is given directly in this state: row 1 (t0), column 1 is 1."
    s = answer({"kind": "cell_value", "stage": "scores", "row": 1, "col": 2}, wide)
    assert s["why"] == "q_1·k_2 = a sum of 9 products, 18."


def test_order_names_the_column_mistake_when_it_reorders() -> None:
    # Scores [[2, 1], [5, 0]] (see above): row 1 is k_1 > k_2, down the columns k_2 > k_1.
    direct = "s=" + encode_body({"q": [[2, 1], [5, 0]], "k": [[1, 0], [0, 1]],
                                 "v": [[1, 0], [0, 1]], "scale": False,
                                 "tokens": ["a", "b"], "key_tokens": ["x", "y"]})  # fmt: skip
    a = answer({"kind": "order", "row": 1}, direct)
    assert a["accept"] == {"sequence": ["k1", "k2"]}
    assert a["misconception"]["answer"] == "y (row 2), x (row 1)"
    low = answer({"kind": "click_cell", "stage": "weights", "which": "max", "row": 1}, direct)
    assert low["accept"] == {"cells": [[1, 1]]}
    assert low["misconception"]["answer"] == "row 1 (a), column 2 (y)"
    assert "down each column" in low["misconception"]["why"]


def test_a_fully_masked_row_has_no_cell_to_click() -> None:
    empty = query(mask="causal", padding=[True, False, False])
    error = refusal({"kind": "click_cell", "stage": "weights", "which": "max", "row": 1}, empty)
    assert error.field == "steps[0].question.row"
    assert "blocks every cell" in error.message


def test_a_direction_weight_must_be_a_key_of_both_states() -> None:
    # The running example has 3 keys; cross-attention's state has 4 (the French source).
    question = {"kind": "direction", "quantity": "weight", "row": 1, "col": 4,
                "change": "preset=i-love-llms"}  # fmt: skip
    error = refusal(question, "preset=cross-attention")
    assert error.field == "steps[0].question.col"


def test_k_and_v_have_a_row_per_key_in_cross_attention() -> None:
    # Cross-attention: 2 queries (I, love) read 4 source rows; K's row 4, column 1 is the
    # fourth source row (1, 1, 0, 1) times column 1 of W^K, (0, −1, 1, 1): 0.
    k = answer({"kind": "cell_value", "stage": "K", "row": 4, "col": 1}, "preset=cross-attention")
    assert k["why"] == "Row 4 (LLM) of S times column 1 of W^K: 1·0 + 1·(−1) + 0·1 + 1·1 = 0."
    error = refusal(
        {"kind": "cell_value", "stage": "Q", "row": 3, "col": 1}, "preset=cross-attention"
    )
    assert error.message == "must be at most 2: the state has 2 rows"


def test_a_huge_row_is_explained_after_its_shift() -> None:
    # X scaled by 100: scores in the tens of thousands, so the engine shifts each row by
    # its largest score before exponentiating (e^25000 would overflow).
    huge = query(x=[[0, 0, 100, 100], [0, 100, 0, 100], [100, 0, 0, 100]])
    a = answer({"kind": "cell_value", "stage": "weights", "row": 2, "col": 2}, huge)
    assert a["answer"] == "1"
    assert a["why"] == (
        "Softmax along row 2 (love): after subtracting the row's largest score, 25000 "
        "(which leaves the shares unchanged), its exponential is 1.000 out of the row's "
        "total 1.000, a share of 1."
    )
