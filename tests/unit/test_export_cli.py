"""`attention-lab export` without a browser: formats, state files, errors naming the option."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from app.cli import main
from app.export.cli import state_params
from app.export.targets import url_target
from app.inputs.link import encode_body, parse_query


def test_json_has_stages_and_the_figure(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    assert main(["export", "--preset", "causal", "--figure", "7", "--format", "json",
                 "--output", str(out)]) == 0  # fmt: skip
    data = json.loads(out.read_text())
    assert data["figure"]["number"] == 7
    assert data["matrices"]["masked"]["values"][0][1] is None
    assert data["mask"] == "causal"


def test_csv_from_a_body_file_with_a_view(tmp_path: Path) -> None:
    body = {"tokens": ["a", "b"], "x": [[1, 0], [0, 1]], "w_q": [[1, 0], [0, 1]],
            "w_k": [[1, 0], [0, 1]], "w_v": [[1, 0], [0, 1]]}  # fmt: skip
    state = tmp_path / "body.json"
    state.write_text(json.dumps({**body, "view": {"focus": 0, "softmax_row": "focus"}}))
    out = tmp_path / "s.zip"
    assert main(["export", "--state", str(state), "--format", "csv", "-o", str(out)]) == 0
    zf = zipfile.ZipFile(io.BytesIO(out.read_bytes()))
    assert json.loads(zf.read("state.json")) == body
    assert zf.read("11_weights.csv").decode().splitlines()[0] == "weights (token \\ column),a,b"


def test_state_params_reads_a_body_and_its_view() -> None:
    params = state_params('{"x": [[1]], "view": {"softmax_row": "focus", "stretch": 4}}')
    assert parse_query(params).body == {"x": [[1]]}
    assert params["row"] == "focus"
    assert params["s"] == encode_body({"x": [[1]]})
    assert url_target("https://lab.example.edu/embed/6?preset=causal&focus=2", None).params == {
        "preset": "causal", "focus": "2"}  # fmt: skip


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--preset", "nope"], "preset"),
        (["--figure", "99"], "--figure"),
        (["--state", "/nonexistent/state.json"], "--state"),
    ],
)
def test_errors_name_the_option(
    args: list[str], named: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["export", *args, "--output", str(tmp_path / "x")]) == 2
    assert f"{named}:" in capsys.readouterr().err


def test_bad_state_file_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "body.json"
    state.write_text(json.dumps({"x": [[1, 2], [3]]}))
    assert main(["export", "--state", str(state), "--output", str(tmp_path / "x")]) == 2
    assert "s: x:" in capsys.readouterr().err


def test_html_is_self_contained_with_caption_and_table(tmp_path: Path) -> None:
    out = tmp_path / "fig6.html"
    assert main(["export", "--preset", "i-love-llms", "--figure", "6", "--format", "html",
                 "--output", str(out)]) == 0  # fmt: skip
    html = out.read_text()
    assert "<script" not in html  # a grid figure is inline SVG: no plotly.js, no script
    assert "<svg" in html
    assert "every row sums to 1" in html.lower()
    assert '<th scope="row">love</th><td>0.14</td><td>0.63</td><td>0.23</td>' in html
