"""`attention-lab export --state URL`: every URL form is exported as what it names, or
refused with a one-line message naming what is wrong and exit status 2. Two old wrong
behaviours are pinned: a lab URL wrote Figure 6 of the default example, and a page URL
ending in #fig-7 wrote Figure 6."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from app.cli import main

HOST = "https://lab.example.edu"


def export(tmp_path: Path, *args: str) -> str:
    out = tmp_path / "out"
    assert main(["export", *args, "--output", str(out)]) == 0
    return out.read_text()


def sections(html: str) -> list[str]:
    return re.findall(r'<section id="([^"]+)"', html)


def test_a_page_url_ending_in_fig_7_writes_figure_7(tmp_path: Path) -> None:
    html = export(tmp_path, "--state", f"{HOST}/?preset=causal#fig-7")
    assert sections(html) == ["fig-7"]
    assert "Figure 7. One grid, three stages" in html
    data = json.loads(export(tmp_path, "--state", f"{HOST}/?preset=causal#fig-7",
                             "--format", "json"))  # fmt: skip
    assert data["figure"]["number"] == 7


def test_a_lab_url_writes_the_whole_lab_not_figure_6(tmp_path: Path) -> None:
    html = export(tmp_path, "--state", f"{HOST}/labs/masks")
    assert sections(html) == ["mask-kinds", "mask-order", "empty-row"]
    assert "Figure 6" not in html
    assert html.count("plotly.js (cartesian - minified)") == 1  # one copy for every chart


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/?preset=causal", [f"fig-{n}" for n in range(1, 14)]),
        ("/?preset=causal#figures", [f"fig-{n}" for n in range(1, 14)]),
        ("/?preset=i-love-llms#fig-1", ["fig-1"]),
        ("/?preset=i-love-llms#fig-2", ["fig-2"]),
        ("/embed/9?preset=two-heads&head=1", ["fig-9"]),
        ("/labs/masks?theme=dark#mask-kinds", ["mask-kinds"]),
        ("/embed/labs/order/shuffle", ["shuffle"]),
        ("/labs/heads#split-concat", ["split-concat"]),
    ],
)
def test_every_url_form_exports_what_it_names(
    tmp_path: Path, url: str, expected: list[str]
) -> None:
    html = export(tmp_path, "--state", HOST + url)
    assert sections(html) == expected


def test_a_query_a_file_and_a_sub_path(tmp_path: Path) -> None:
    assert sections(export(tmp_path, "--state", "?preset=causal#fig-9")) == ["fig-9"]
    link = tmp_path / "link.txt"
    link.write_text(f"{HOST}/labs/masks#empty-row\n")
    assert sections(export(tmp_path, "--state", str(link))) == ["empty-row"]
    url = f"{HOST}/attention/labs/masks#mask-order"
    html = export(tmp_path, "--state", url, "--root-path", "/attention")
    assert sections(html) == ["mask-order"]


def test_figure_option_chooses_and_must_agree(tmp_path: Path) -> None:
    assert sections(export(tmp_path, "--state", f"{HOST}/?preset=causal", "--figure", "8")) == [
        "fig-8"
    ]
    html = export(tmp_path, "--state", f"{HOST}/labs/masks", "--figure", "empty-row")
    assert sections(html) == ["empty-row"]
    html = export(tmp_path, "--state", f"{HOST}/labs/masks", "--figure", "all")
    assert len(sections(html)) == 3
    html = export(tmp_path, "--preset", "causal", "--figure", "3,7")
    assert sections(html) == ["fig-3", "fig-7"]


def test_a_grid_figure_or_lab_section_as_svg(tmp_path: Path) -> None:
    svg = export(tmp_path, "--state", f"{HOST}/?preset=causal#fig-9", "--format", "svg")
    assert svg.startswith("<svg")
    assert "Figure 9. One output row as a blend" in svg
    svg = export(tmp_path, "--state", f"{HOST}/labs/masks#mask-kinds", "--format", "svg",
                 "--theme", "dark")  # fmt: skip
    assert svg.startswith("<svg")
    assert "#1b1b1b" in svg


def test_no_chart_no_plotly(tmp_path: Path) -> None:
    html = export(tmp_path, "--state", f"{HOST}/?preset=causal", "--figure", "7")
    assert "plotly" not in html.lower()
    assert "<svg" in html
    html = export(tmp_path, "--state", f"{HOST}/?preset=causal", "--figure", "12")
    assert html.count("plotly.js (cartesian - minified)") == 1


def test_the_default_file_name_says_what_is_in_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["export", "--state", f"{HOST}/labs/masks#mask-kinds"]) == 0
    assert main(["export", "--state", f"{HOST}/?preset=causal#fig-7", "--format", "svg"]) == 0
    assert main(["export", "--state", f"{HOST}/?preset=causal", "--figure", "1,2"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["attention-lab-causal-fig7.svg", "attention-lab-causal-figures.html",
                     "attention-lab-masks-mask-kinds.html"]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--state", f"{HOST}/course/week-3"], "--state: the URL's path '/course/week-3' is not"),
        (["--state", "https://other.example.org/wiki/Attention"], "'/wiki/Attention' is not"),
        (["--state", f"{HOST}/?preset=causal#editor"], "fragment #editor is not a figure"),
        (["--state", f"{HOST}/?preset=causal#fig-99"], "there is no Figure '99'"),
        (["--state", f"{HOST}/embed/42"], "there is no Figure '42'"),
        (["--state", f"{HOST}/labs/masks#nope"], "the lab 'masks' has no figure 'nope'"),
        (["--state", f"{HOST}/labs/alchemy"], "a lab 'alchemy' that does not exist"),
        (["--state", f"{HOST}/embed/labs/masks/nope"], "has no figure 'nope'"),
        (["--state", f"{HOST}/labs"], "the list of labs, which has no figures"),
        (["--state", f"{HOST}/labs/masks", "--figure", "7"], "--figure: the lab 'masks' has no"),
        (["--state", f"{HOST}/?preset=causal#fig-7", "--figure", "6"], "disagrees with the URL"),
        (["--state", f"{HOST}/labs/masks#mask-kinds", "--figure", "empty-row"], "disagrees"),
        (["--state", f"{HOST}/labs/masks", "--format", "csv"], "--format: a lab exports as"),
        (["--state", f"{HOST}/labs/masks?bogus=1"], "bogus"),
        (["--state", f"{HOST}/labs/why-scale#flat-line", "--format", "svg"], "is a chart"),
        (["--state", f"{HOST}/?preset=causal#fig-12", "--format", "svg"], "Figure 12 is a chart"),
        (["--state", f"{HOST}/?preset=causal", "--format", "json"], "writes one figure"),
        (["--state", f"{HOST}/?preset=causal#fig-1", "--format", "json"], "without numbers"),
        (["--state", f"{HOST}/?preset=nope#fig-7"], "preset:"),
        (["--state", "   "], "--state:"),
        (["--state", "-"], "the state is empty"),
        (["--state", "/no/such/file.json"], "--state:"),
        (["--state", f"{HOST}/attention/labs/masks"], "pass --root-path"),
    ],
)
def test_what_cannot_be_exported_is_refused(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    out = tmp_path / "x"
    assert main(["export", *args, "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err, err
    assert err.startswith("attention-lab export: ")
    assert err.count("\n") == 1
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "--state: the file is not valid JSON"),
        ('{"x": [[1]], "view": [1]}', "--state: view must be an object"),
        ('{"x": [[1]], "view": {"stretch": "wide"}}', "stretch:"),
    ],
)
def test_a_bad_body_file_is_refused(
    text: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.json"
    state.write_text(text)
    assert main(["export", "--state", str(state), "--output", str(tmp_path / "x")]) == 2
    assert message in capsys.readouterr().err


def test_a_numpy_script_of_a_url_state_to_stdout(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    assert main(["export", "--state", f"{HOST}/?preset=causal#fig-7", "--format", "numpy",
                 "--output", "-"]) == 0  # fmt: skip
    script = capsysbinary.readouterr().out.decode()
    assert "import numpy as np" in script
