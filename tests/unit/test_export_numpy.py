"""The "Copy as NumPy" script, run with this Python, prints the engine's numbers (1e-9)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np
import pytest
from numpy_scripts import run_numpy_script

from app.attention import run, softmax_stage
from app.export import stage_matrices
from app.export.numpy_scripts.attention import TEXTBOOK_ROW, numpy_snippet
from app.inputs.body import AttentionRequest
from app.inputs.view import ViewState
from app.presets import get_preset

_NAME = re.compile(r"^(\w+) =$", re.MULTILINE)


def parse_printed(text: str) -> dict[str, np.ndarray[Any, Any]]:
    """``name =`` followed by a printed numpy array -> {name: array}."""
    names = _NAME.findall(text)
    blocks = _NAME.split(text)[2::2]
    out = {}
    for name, block in zip(names, blocks, strict=True):
        rows = re.findall(r"\[([^\[\]]*)\]", block)
        out[name] = np.array([[float(v) for v in row.split()] for row in rows])
    return out


def body_with(preset: str, **changes: Any) -> dict[str, Any]:
    found = get_preset(preset)
    assert found is not None
    return {**found["body"], **changes}


CASES = {
    "running example": body_with("i-love-llms"),
    "unscaled": body_with("i-love-llms", scale=False),
    "causal": body_with("causal"),
    "two heads + W^O": body_with("two-heads"),
    "two heads, no W^O, padding": {
        **body_with("i-love-llms", heads=2, padding=[False, True, False])
    },
    "one head + W^O": body_with("i-love-llms", w_o=[[1, 0], [0, 1], [1, 1], [0.5, -2]]),
    "cross-attention": body_with("cross-attention"),
    "custom mask, a fully blocked row": body_with(
        "i-love-llms", allowed=[[False, False, False], [True, True, False], [True, True, True]]
    ),
    "direct mode": {
        "q": [[0.1, 2e-3], [3.25, -1]],
        "k": [[1, 2], [3, 4], [5, 6]],
        "v": [[1], [2], [3]],
        "tokens": ["a", "b"],
    },
    "large numbers": body_with("i-love-llms", x=[[300, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]]),
}


@pytest.mark.parametrize("row", ["textbook", "focus"])
@pytest.mark.parametrize("case", list(CASES))
def test_snippet_output_equals_engine(case: str, row: str) -> None:
    request = AttentionRequest.model_validate(CASES[case])
    inp = request.to_input()
    stages = run(inp)
    head = len(stages.heads) - 1
    view = ViewState(focus=1, head=head, stretch=8.0, row="focus" if row == "focus" else "textbook")
    script = numpy_snippet(inp, stages, view, case)
    done = run_numpy_script(script)
    assert done.returncode == 0, done.stderr
    printed = parse_printed(done.stdout)

    expected = {m.name: m.values for m in stage_matrices(stages)}
    inputs = {"x", "source_x", "w_q", "w_k", "w_v", "w_o"}
    assert set(printed) - {"softmax_stretched"} == set(expected) - inputs
    for name, values in printed.items():
        if name == "softmax_stretched":
            continue
        np.testing.assert_allclose(values, expected[name], rtol=1e-12, atol=1e-9, err_msg=name)
    row_scores = stages.heads[head].scaled[1] if row == "focus" else np.array(TEXTBOOK_ROW)
    want = softmax_stage(row_scores, 8.0).weights
    np.testing.assert_allclose(printed["softmax_stretched"], want, rtol=1e-12, atol=1e-9)


def test_snippet_needs_only_numpy() -> None:
    inp = AttentionRequest.model_validate(CASES["two heads + W^O"]).to_input()
    script = numpy_snippet(inp, run(inp), ViewState(focus=0), "t")
    imports = re.findall(r"^\s*(?:import|from)\s+(\w+)", script, re.MULTILINE)
    assert imports == ["numpy"]


def test_token_labels_cannot_break_the_script() -> None:
    # Requests refuse a line break in a label (app.inputs.fields); the generator must not
    # rely on that, so the hostile labels are put straight into the engine's input.
    body = body_with("i-love-llms", tokens=["a", "b", "c"])
    hostile = ('a"""\nimport os', "b\\", "c'")
    inp = dataclasses.replace(AttentionRequest.model_validate(body).to_input(), tokens=hostile)
    script = numpy_snippet(inp, run(inp), ViewState(focus=0), 'title """ with quotes')
    compile(script, "<snippet>", "exec")
    assert "import os" not in re.findall(r"^import \w+", script, re.MULTILINE)
