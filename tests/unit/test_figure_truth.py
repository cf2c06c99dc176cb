"""Every sentence true for its state, and defaults that teach (issue 17): the statements of
Figures 3–13 that used to be wrong, pinned for the states that made them wrong (the
default, the causal mask, one token, two heads, scaling off), and the words' conventions
(rows counted from 1 with their names, ASCII notation, one minus sign, no authoring notes).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from engine_spec import arr
from figures_support import cross, figs, grids, stages

from app.presets import RUNNING_EXAMPLE as R
from app.presets import preset_summaries

W_O = [[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, -1, 1], [1, 0, 0, 0]]
STATES: dict[str, tuple[Any, dict[str, Any]]] = {
    "default": (lambda: stages(), {}),
    "causal": (lambda: stages(mask="causal"), {}),
    "one token": (lambda: stages(x=arr(R["x"][:1]), tokens=("I",)), {"focus": 0}),
    "two heads": (lambda: stages(heads=2, w_o=arr(W_O)), {}),
    "scaling off": (lambda: stages(scale=False), {}),
    "cross": (lambda: cross(), {}),
}


def _out(state: str, **view: Any) -> dict[str, Any]:
    make, base = STATES[state]
    return figs(make(), **{**base, **view})["figures"]


def _texts(fig: dict[str, Any]) -> Iterator[str]:
    """Every sentence a reader sees: title, caption, alt, readout, narration."""
    yield fig["title"]
    yield fig["caption"]
    yield fig["alt"]
    yield from fig["readout"]
    yield from (s["narration"] for s in fig.get("steps") or [])


@pytest.mark.parametrize("state", list(STATES))
def test_words_follow_the_conventions_in_every_state(state: str) -> None:
    for n, fig in _out(state).items():
        for text in _texts(fig):
            where = f"Figure {n} ({state}): {text}"
            for latex in ("^{", "\\frac", "ℝ"):
                assert latex not in text, where
            # a row number comes after its token ("love (row 2)"), never "row 2 (love)"
            assert not re.search(r"\b[Rr]ow \d+ (\(|of [QZA])", text), where
            assert not re.search(r"(^|[\s(\[,])-\d", text), where  # one minus sign: U+2212
            for note in ("(ours)", "reconstructed", "table is missing", "(extra)"):
                assert note not in text, where
            assert not re.search(r"\bStep \d of \d\b", text), where  # one counter (Figure 3)


def test_presets_carry_no_authoring_notes() -> None:
    for p in preset_summaries():
        for note in ("(ours)", "reconstructed", "table is missing", "the chapter's W^O"):
            assert note not in p["description"], p


def test_figure_6_asymmetry_is_two_dot_products_not_an_unequal_one() -> None:
    line = next(t for t in _out("default")["6"]["readout"] if "not symmetric" in t)
    assert "q·k is not k·q" not in line
    assert "A dot product is symmetric (q·k = k·q)" in line
    assert "a_23 comes from q_2·k_3 and a_32 from q_3·k_2" in line
    assert "(q_2·k_3 = 3 against q_3·k_2 = 2)" in line  # FIGURES.md's pair
    assert "each row is normalised by its own softmax" in line
    # two heads: the two dot products are equal, and the sentence says so
    heads = next(t for t in _out("two heads")["6"]["readout"] if "not symmetric" in t)
    assert "(here both are 2)" in heads


def test_figure_6_with_the_mask_blames_the_mask_and_marks_the_cells() -> None:
    fig = _out("causal")["6"]
    line = next(t for t in fig["readout"] if "not symmetric" in t)
    assert "Here the asymmetry comes from the mask" in line
    assert "a_13 is exactly 0 (hatched)" in line
    assert "dot product" not in line
    assert "projection" not in line
    assert "hatched" in fig["caption"]
    weights = grids(fig)["weights"]
    upper = np.triu(np.ones((3, 3), dtype=bool), k=1).tolist()
    assert weights["masked"] == upper
    assert weights["text"][0] == ["1", "0", "0"]  # the value stays exactly 0
    # the full value sits beside the printed text (hover reads it)
    np.testing.assert_array_equal(np.asarray(weights["values"]), stages(mask="causal").head.weights)


def test_masked_cells_are_marked_where_the_mask_acts_only() -> None:
    g = grids(_out("causal")["3"])
    upper = np.triu(np.ones((3, 3), dtype=bool), k=1).tolist()
    assert g["masked"]["masked"] == upper
    assert g["weights"]["masked"] == upper
    assert not np.any(g["scores"]["masked"])  # a mask never changes the raw scores
    for name, desc in grids(_out("default")["3"]).items():
        assert not np.any(desc["masked"]), name


def test_figure_13_does_not_equate_scores_with_weights_and_labels_every_edge() -> None:
    fig = _out("default")["13"]
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    assert "Q · Kᵀ = A" not in " ".join(texts)
    assert sum("softmax" in t for t in texts) == 2  # the arrow from Q Kᵀ to A, per row
    # at rest it shows an example where L_Q ≠ L_K and d_k ≠ d_v, then the page's sizes
    assert "<b>An example where every size differs</b>" in texts
    assert "<b>The page now</b>" in texts
    boxes = [s for s in fig["layout"]["shapes"] if s["type"] == "rect"]
    edges = [t for t in texts if re.fullmatch(r"(L|d)<sub>[QKkv]</sub> = \d+", t)]
    assert len(boxes) == 10
    assert len(edges) == 2 * len(boxes)  # rows and columns of every box
    assert "L<sub>Q</sub> = 2" in edges
    assert "L<sub>K</sub> = 5" in edges
    assert "d<sub>k</sub> = 3" in edges
    assert "d<sub>v</sub> = 4" in edges
    assert any("by choice, not by rule" in t for t in fig["readout"])
    # sizes that already differ need no example
    cross_fig = _out("cross")["13"]
    assert "<b>An example where every size differs</b>" in [
        a["text"] for a in cross_fig["layout"]["annotations"]
    ]  # d_k = d_v = 4 there
    assert cross_fig["narrow"]["layout"]["annotations"]


def test_figure_10_is_about_path_length_through_the_whole_layer() -> None:
    fig = _out("default")["10"]
    path = fig["readout"][0]
    assert path.startswith("In attention, LLMs (row 3) reads I (row 1) in one step")
    assert "(a_31 = 0.23)" in path
    assert "A recurrent model carries I to LLMs in 2 steps" in path
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    assert "<b>concat</b>" not in texts
    assert "concat" in texts
    heads = _out("two heads")["10"]
    texts = [a["text"] for a in heads["layout"]["annotations"]]
    assert "<b>÷ √2</b>" in texts  # fits its box (it was "÷ √2 ≈ 1.414")
    assert not any("≈" in t for t in texts)
    assert "<b>concat</b>" in texts
    assert "<b>· W<sup>O</sup></b>" in texts
    assert "concatenated 3 × 4; output 3 × 4" in heads["readout"][1]
    assert _out("one token")["10"]["readout"][0].startswith("With one token there is no pair")
    masked = _out("causal")["10"]["readout"][0]
    assert "every allowed pair is one step apart" in masked


def test_figure_3_withholds_its_answer_in_every_state() -> None:
    for state in ("default", "causal", "two heads", "one token"):
        fig = _out(state)["3"]
        assert fig["readout"] == []
        z = fig["steps"][-1]["narration"].split(" = ")[-1]
        assert z not in fig["alt"], state
        assert z not in fig["caption"], state
        # Z is built for every row: one frame (or group) per row, as the scores are
        rows = sum(n["narration"].startswith("Output") for n in fig["steps"])
        scores = sum(n["narration"].startswith("Scores") for n in fig["steps"])
        assert rows == scores == len(fig["panels"][0][0]["grid"]["rows"]), state


def test_figure_11_draws_two_different_sequences() -> None:
    fig = _out("default")["11"]
    g = grids(fig)
    assert g["x"]["rows"] == ["I", "love", "LLMs"]
    assert g["cross.source_x"]["rows"] == ["J'", "aime", "les", "LLM"]
    assert g["cross.weights"]["rows"] == ["I", "love", "LLMs"]
    assert all(line not in fig["caption"] for line in fig["readout"])
    one = _out("one token")["11"]["readout"][0]
    assert "(1 token)" in one
    assert "1 × 4 (not square)" in one


def test_figure_12_prints_one_precision_and_says_unchanged() -> None:
    fig = _out("default", stretch=1.0)["12"]
    assert "→" not in " ".join(fig["readout"])
    assert "unchanged" in fig["readout"][0]
    for trace in fig["data"]:
        assert all(re.fullmatch(r"0\.\d{4}|[01]|.* × 10.*", t) for t in trace["text"])
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert not any("scores as they are" in t for t in titles)
    assert titles == ["<b>weights of</b><br>the scores", "<b>weights of</b><br>scores × 1"]


def test_figure_7_and_9_say_what_is_true_for_one_key() -> None:
    out = _out("one token")
    assert any("nothing to order" in t for t in out["7"]["readout"])
    assert not any("own value" in t for t in out["9"]["readout"])  # no other token to borrow
    assert "the 1 value row into" in out["8"]["caption"]
    assert not any("diagonal" in t for t in out["6"]["readout"])


def test_figure_13_draws_the_page_alone_when_its_sizes_already_differ() -> None:
    s = stages(
        x=arr(R["x"][:2]),
        tokens=("I", "love"),
        source_x=arr([*R["x"], [1, 1, 0, 1]]),
        source_tokens=("J'", "aime", "les", "LLM"),
        w_v=arr([row[:2] for row in R["w_v"]]),
    )
    fig = figs(s)["figures"]["13"]
    texts = [a["text"] for a in fig["layout"]["annotations"]]
    assert "<b>An example where every size differs</b>" not in texts
    assert len([t for t in fig["layout"]["shapes"] if t["type"] == "rect"]) == 5
    assert not any("by choice" in t for t in fig["readout"])
    assert "Free: L_Q = 2 (any number of queries) and d_v = 2 (any value width)." in fig["readout"]


def test_figure_10_says_when_the_mask_blocks_the_pair_it_counts() -> None:
    fig = figs(stages(padding=(True, False, False)))["figures"]["10"]
    assert "(a_31, here blocked by padding or a custom mask, so 0)" in fig["readout"][0]
    assert "every allowed pair is one step apart" in fig["readout"][0]


def test_figure_7_names_a_higher_score_the_mask_hides() -> None:
    fig = figs(stages(padding=(False, True, False)), focus=1)["figures"]["7"]
    line = next(t for t in fig["readout"] if "keeps the order" in t)
    assert "for love (row 2), LLMs has the largest raw score among the keys it may see" in line
    assert "(love scored higher but is blocked by padding or a custom mask.)" in line


def test_figure_11_source_follows_a_width_other_than_4() -> None:
    narrow = stages(
        x=arr([row[:3] for row in R["x"]]),
        w_q=arr(R["w_q"][:3]),
        w_k=arr(R["w_k"][:3]),
        w_v=arr(R["w_v"][:3]),
    )
    source = grids(figs(narrow)["figures"]["11"])["cross.source_x"]
    assert source["shape"] == [4, 3]
    assert source["values"][3] == [1, 1, 0]  # (1, 1, 0, 1) cut to the page's width


def test_a_grid_refuses_a_mask_of_another_shape() -> None:
    from app.figures import grid

    with pytest.raises(ValueError, match="masked has shape"):
        grid.grid("weights", "A", np.eye(2), rows=["a", "b"], cols=["a", "b"],
                  masked=np.zeros((3, 2), dtype=bool))  # fmt: skip
