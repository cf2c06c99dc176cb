"""Issue 17 in the labs: every sentence true for its state, defaults that show the point
before any control is touched, one numbering and notation, one visual language (weights'
hue, masked cells flagged), sources named by title and linked, and links between labs."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from app.figures.labs import LABS
from app.figures.registry import FIGURES

READY = [lab.id for lab in LABS if lab.status == "ready"]


def figs(client: TestClient, lab: str, **params: str) -> dict[str, Any]:
    r = client.get(f"/api/v1/labs/{lab}/figures?{urlencode(params)}")
    assert r.status_code == 200, r.text
    return dict(r.json()["figures"])


def grid(fig: dict[str, Any], name: str) -> dict[str, Any]:
    found = [g["desc"] for g in fig["grids"] if g["desc"]["grid"] == name]
    assert found, [g["desc"]["grid"] for g in fig["grids"]]
    return dict(found[0])


def strings(node: Any, key: str = "") -> list[tuple[str, str]]:
    """Every (key, text) a learner may read in a figure description (numbers' values,
    Plotly internals and colours excluded)."""
    skip = {"values", "color", "palette", "domain", "x", "y", "customdata", "name", "grid"}
    if isinstance(node, str):
        return [(key, node)]
    if isinstance(node, dict):
        return [pair for k, v in node.items() if k not in skip for pair in strings(v, k)]
    if isinstance(node, list):
        return [pair for v in node for pair in strings(v, key)]
    return []


# ---- words: true, one notation, no authoring notes


@pytest.mark.parametrize("lab_id", READY)
def test_lab_text_has_one_minus_no_latex_and_no_authoring_notes(
    client: TestClient, lab_id: str
) -> None:
    for name, fig in figs(client, lab_id).items():
        for key, text in strings({k: v for k, v in fig.items() if k != "plot"}):
            where = (lab_id, name, key, text[:120])
            for latex in ("^{", "\\frac", "ℝ^"):
                assert latex not in text, where
            assert "_(" not in text, where  # Σ_(j′∈P(2)): say it in words
            for note in ("(ours)", "reconstructed", "is missing", "are missing"):
                assert note not in text, where
            if key in ("text", "hover") and re.search(r"\d", text):
                continue  # grid cells and hovers are numbers, checked below
            assert not re.search(r"(?<![\w.])-\d", text), where  # U+2212, never a hyphen


@pytest.mark.parametrize("lab_id", READY)
def test_lab_grids_print_one_minus_and_flag_masked_weights(client: TestClient, lab_id: str) -> None:
    for fig in figs(client, lab_id).values():
        for g in (item["desc"] for item in fig["grids"]):
            for row in g["text"] or []:
                assert not any(cell.startswith("-") for cell in row), g["grid"]
            if g["grid"].startswith("weights") or g["grid"] == "ghost":
                assert g["scale"] == "weights", g["grid"]  # one hue for weights everywhere
            blocked = [[v is None for v in row] for row in g["values"]] if g["text"] else []
            if any(any(row) for row in blocked):
                assert g.get("masked") is not None, g["grid"]
                assert all(
                    m for b_row, m_row in zip(blocked, g["masked"], strict=True)
                    for b, m in zip(b_row, m_row, strict=True) if b
                ), g["grid"]  # fmt: skip


def test_d1_d2_d3_weights_share_the_main_pages_hue_and_mark_masked_cells(
    client: TestClient,
) -> None:
    f = figs(client, "masks", case="pad-key0")
    for name, g in (("mask-kinds", "weights"), ("mask-order", "weights-before"),
                    ("mask-order", "weights-after"), ("empty-row", "weights")):  # fmt: skip
        desc = grid(f[name], g)
        assert desc["scale"] == "weights", (name, g)
        assert desc["masked"][0][1] is True, (name, g)  # causal: q_1 may not read k_2
    # Under −10⁹ the empty row (q_1) spreads 1/4 over its blocked keys: hatched cells are
    # "masked (weight 0)", so only the blocked cells whose weight is 0 are hatched.
    finite = grid(f["empty-row"], "weights-finite")
    assert finite["scale"] == "weights"
    assert finite["masked"][0][1] is False
    assert finite["values"][0][1] == 0.25
    assert finite["masked"][1][2] is True  # q_2 may not read k_3: weight 0
    assert grid(f["empty-row"], "weights")["label"] != finite["label"]  # one legend entry each
    assert grid(f["mask-kinds"], "mask-sum")["masked"][0] == [False, True, True, True]


def test_a2_answer_is_true_for_the_query_it_describes(client: TestClient) -> None:
    a2 = figs(client, "one-query")["alignment"]
    reveal = a2["reveal"]
    assert reveal["correct"] == "k_1"
    assert [c[0] for c in reveal["choices"]] == ["k_1", "k_2", "k_3", "tie"]
    answer = reveal["answer"]
    assert "k_1 = (1, 0) is q itself" in answer  # not "points partly the way q points"
    assert "partly" not in answer
    assert "k_2 = (0, 1) is perpendicular to q" in answer
    assert "k_3 = (−1, 0) points exactly against q" in answer
    assert "no weight is ever exactly 0" not in answer
    assert "Only a mask makes a weight exactly 0" in answer
    tilted = figs(client, "one-query", **{"alignment.q": "1,1"})["alignment"]["reveal"]
    assert tilted["correct"] == "tie"  # k_1 and k_2 score 1 each
    assert "k_1 and k_2 have the same dot product with q, 1" in tilted["why"]
    assert "points partly against q" in tilted["answer"]  # k_3 against (1, 1)
    zero = figs(client, "one-query", **{"alignment.q": "0,0"})["alignment"]["reveal"]
    assert zero["correct"] == "tie"
    assert "zero vector" in zero["why"]
    long = figs(client, "one-query", **{"alignment.q": "2,0"})["alignment"]["reveal"]
    assert "points exactly the way q points" in long["answer"]


def test_a2_page_asks_before_it_shows(client: TestClient) -> None:
    html = client.get("/labs/one-query").text
    panel = html[html.index('id="alignment"') :]
    panel = panel[: panel.index("</section>")]
    assert '<form class="reveal guess" data-role="reveal" hidden>' in panel
    assert 'data-role="check">Check</button>' in panel
    assert 'role="status"' in panel
    assert panel.index('data-role="reveal"') < panel.index('data-role="caption"')


def test_f2_names_the_course_module_for_w_o_and_says_its_shape_in_words(
    client: TestClient,
) -> None:
    html = client.get("/labs/heads").text
    assert "the tutorial's" not in html
    assert "W^O, the output projection of the course module “Attention” (our numbers)" in html
    f2 = figs(client, "heads")["split-concat"]
    (quote,) = f2["quotes"]
    assert quote["source"] == "The course module “Attention”"
    assert quote["href"] == "/sources#course-module"
    assert "W^O has h·d_v rows and d_model columns" in quote["text"]
    assert grid(f2, "concat")["cols"] == ["h1·1", "h1·2", "h2·1", "h2·2"]


def test_b1_and_b2_count_rows_from_one_with_names(client: TestClient) -> None:
    f = figs(client, "step-by-step", **{"per-position.mask": "causal"})
    b1, b2 = f["stepper"], f["per-position"]
    everything = json.dumps([b1["frames"], b1["readout"], b2["caption"], b2["readout"]])
    for old in ("token 1 (position", "score[", "k0", "d_v 0", "Position 2", "q2·k2"):
        assert old not in everything, old
    assert grid(b1["frames"][0], "k")["rows"] == ["k_1 (token 1)", "k_2 (token 2)"]
    assert grid(b1["frames"][0], "q")["cols"] == ["1", "2"]
    assert b2["caption"].startswith("LLMs (row 3) reads 3 of 3 keys")
    assert b2["readout"][0] == "i = 3, LLMs (row 3)"
    html = client.get("/labs/step-by-step").text
    assert '<option value="1" selected>token 2 (row 2)</option>' in html  # B1's focus
    assert "Row i" in html
    assert "Position i (from 0)" not in html


# ---- defaults that teach (the URL contract: explicit values keep their meaning)


def test_defaults_show_the_point_before_any_control_is_touched(client: TestClient) -> None:
    c1 = figs(client, "why-scale", figures="score-histogram")["score-histogram"]
    c1_wide = figs(
        client, "why-scale", figures="score-histogram", **{"score-histogram.dk": "1024"}
    )["score-histogram"]
    assert c1["plot"]["layout"]["xaxis"]["range"] == c1_wide["plot"]["layout"]["xaxis"]["range"]
    free = figs(client, "why-scale", figures="score-histogram", fixed="0")["score-histogram"]
    assert free["plot"]["layout"]["xaxis"]["range"] != c1_wide["plot"]["layout"]["xaxis"]["range"]

    order = figs(client, "order")
    assert "No shuffle yet" not in order["shuffle"]["caption"]
    assert [r[0] for r in order["shuffle"]["tables"][0]["cells"]][1] == "row 5 → row 2"
    assert figs(client, "order", perm="0,1,2,3,4")["shuffle"]["caption"].startswith(
        "No shuffle yet"
    )
    assert grid(order["positional-encoding"], "pe")["shape"] == [50, 64]
    assert "the left of the heatmap changes from row to row" in order["positional-encoding"][
        "caption"]  # fmt: skip
    assert [g["desc"]["grid"] for g in order["reversed"]["grids"]] == [
        "scores", "weights", "scores-reversed", "weights-reversed"]  # fmt: skip

    g3 = figs(client, "cost")["growth"]
    assert g3["tables"][0]["row_headers"] == ["N = 512", "N = 2,048"]
    assert "×16 the cells" in g3["caption"]
    one = figs(client, "cost", x4="0")["growth"]
    assert one["tables"][0]["row_headers"] == ["N = 512"]


def test_the_positional_encoding_default_is_priced_within_budget(client: TestClient) -> None:
    from app.inputs.lab_cost import PRICES

    price = PRICES[("order", "positional-encoding")]({"d": 64, "T": 50, "dims": (0,), "base": 1e4})
    large = PRICES[("order", "positional-encoding")]({"d": 512, "T": 128, "dims": (0,),
                                                        "base": 1e4})  # fmt: skip
    assert price.cost.cells * 10 < large.cost.cells  # a small share of the largest state


# ---- sources and links


def test_quotes_name_their_source_by_title_and_link_it(client: TestClient) -> None:
    seen = set()
    for lab_id in READY:
        for fig in figs(client, lab_id).values():
            for q in fig["quotes"]:
                if q.get("kind") in ("run", "warning", "note"):
                    continue
                assert q.get("href", "").startswith("/sources#"), (lab_id, q)
                assert "“" in q["source"], q  # the title, in quotation marks
                seen.add(q["href"])
    assert seen == {"/sources#course-module", "/sources#textbook", "/sources#qkv-notes"}


@pytest.mark.parametrize("lab_id", READY)
def test_each_lab_links_its_figure_its_sources_and_the_next_lab(
    client: TestClient, lab_id: str
) -> None:
    lab = next(lab for lab in LABS if lab.id == lab_id)
    html = client.get(f"/labs/{lab_id}").text
    assert lab.main_figure is not None
    number, title = lab.main_figure
    assert FIGURES[number - 1].number == number
    assert FIGURES[number - 1].title == title
    link = f'<a href="/?fig={number}#fig-{number}">Figure {number}, “{title}”</a>'
    assert link in html  # the figure in the query too (the server sees it), and the fragment
    at = READY.index(lab_id)
    if at > 0:
        assert f'rel="prev" href="/labs/{READY[at - 1]}"' in html
    if at + 1 < len(READY):
        assert f'rel="next" href="/labs/{READY[at + 1]}"' in html
    else:
        assert 'class="lab-next" href="/labs"' in html
    for phrase in ("the course module", "the textbook chapter", "the notes"):
        for m in re.finditer(phrase, html):  # a source in prose is a link with its title
            tail = html[m.start() : m.start() + 160]
            assert "“" in tail, (lab_id, tail)
