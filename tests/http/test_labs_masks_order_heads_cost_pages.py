"""The masks, order, heads and cost labs over HTTP: /labs/{masks,order,heads,cost}, their
figures.json for the default state and for edited states, embeds, and the numbers each
entry D1–G3 shows."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.figures.labs import LABS

LABS_II = ("masks", "order", "heads", "cost")


def figs(client: TestClient, lab: str, **params: str) -> dict[str, Any]:
    r = client.get(f"/labs/{lab}/figures.json?{urlencode(params)}")
    assert r.status_code == 200, r.text
    return dict(r.json()["figures"])


def grid(fig: dict[str, Any], name: str) -> dict[str, Any]:
    found = [g["desc"] for g in fig["grids"] if g["desc"]["grid"] == name]
    assert found, [g["desc"]["grid"] for g in fig["grids"]]
    return dict(found[0])


def texts(fig: dict[str, Any]) -> str:
    return " ".join([fig["caption"], *fig["readout"], *fig["warnings"]])


@pytest.mark.parametrize("lab_id", LABS_II)
def test_lab_is_ready_with_every_figure_embeddable(client: TestClient, lab_id: str) -> None:
    lab = next(lab for lab in LABS if lab.id == lab_id)
    assert lab.status == "ready"
    html = client.get(f"/labs/{lab_id}").text
    assert 'aria-busy="true"' in html
    for fig in lab.figures:
        assert f'data-figure="{fig.name}"' in html
        r = client.get(f"/embed/labs/{lab_id}/{fig.name}")
        assert r.status_code == 200, (fig.name, r.text[:300])


# ---- masks


def test_d1_causal_weights_and_allowed_counts(client: TestClient) -> None:
    f = figs(client, "masks")["mask-kinds"]
    w = grid(f, "weights")
    assert w["values"][0][1:] == [None, None, None]  # blocked: null on the wire
    assert w["text"][0] == ["1", "0", "0", "0"]
    assert w["masked"][0] == [False, True, True, True]  # hatched and named in the legend
    assert w["scale"] == "weights"  # the weights' hue, as on the main page
    assert next(g["desc"]["text"] for g in f["grids"] if g["desc"]["grid"] == "mask-0")[0] == [
        "·", "−∞", "−∞", "−∞"]  # fmt: skip
    assert f["readout"][:2] == ["row q_1: 1 allowed key", "row q_2: 2 allowed keys"]


def test_d1_masks_combine_as_and_and_an_empty_row_is_flagged(client: TestClient) -> None:
    f = figs(client, "masks", pad="0", window="2", form="allowed")["mask-kinds"]
    total = grid(f, "mask-sum")
    assert total["text"] == [["✗", "✗", "✗", "✗"], ["✗", "✓", "✗", "✗"],
                             ["✗", "✓", "✓", "✗"], ["✗", "✗", "✓", "✓"]]  # fmt: skip
    assert "row q_1: 0 allowed keys" in f["readout"][0]
    assert f["warnings"] == ["row q_1 has no allowed key: its weights are all zero"]
    assert grid(f, "weights")["text"][0] == ["0", "0", "0", "0"]


def test_d2_anchor_row_0_after_sums_to_0_4551_before_rows_sum_to_1(client: TestClient) -> None:
    f = figs(client, "masks")["mask-order"]
    assert f["tables"][0]["col_headers"] == ["mask before", "mask after"]
    before = [row[0] for row in f["tables"][0]["cells"]]
    after = [row[1] for row in f["tables"][0]["cells"]]
    assert before == ["1.0000"] * 4
    assert after[0] == "0.4551"
    assert all(float(a) < 1 for a in after[:3])
    assert "0.4551" in f["caption"]
    assert grid(f, "weights-after")["text"][0][1].startswith("(")  # discarded weight shown


def test_d2_only_after_and_edited_scores(client: TestClient) -> None:
    f = figs(client, "masks", order="after", S="0,0,0,0;0,0,0,0;0,0,0,0;0,0,0,0")
    sums = [row[0] for row in f["mask-order"]["tables"][0]["cells"]]
    assert sums == ["0.2500", "0.5000", "0.7500", "1.0000"]  # uniform rows keep (i + 1)/4


def test_one_shared_s_of_length_l_feeds_d1_d2_and_d3(client: TestClient) -> None:
    """L = 6 grows S with zero cells; every figure computes on that one 6 × 6 S."""
    r = client.get("/labs/masks/figures.json?" + urlencode({"L": "6", "order": "after"}))
    assert r.status_code == 200, r.text
    out = r.json()
    s_text = out["values"]["mask-kinds"]["S"]
    assert s_text == "1,0.5,-0.5,0,0,0;0.5,1.5,0,-1,0,0;0,1,2,0.5,0,0;-0.5,0.5,1,1.5,0,0;" + (
        "0,0,0,0,0,0;0,0,0,0,0,0"
    )
    assert out["query"]["S"] == s_text  # the canonical link holds the resized S
    f = out["figures"]
    assert grid(f["mask-kinds"], "weights")["rows"] == [f"q_{i}" for i in range(1, 7)]
    # D2 "after" on the grown S: row 0's softmax over 6 keys keeps e^1 / (e^1 + e^.5 + …)
    e = [2.718281828459045, 1.6487212707001282, 0.6065306597126334, 1.0, 1.0, 1.0]
    assert f["mask-order"]["tables"][0]["cells"][0] == [f"{e[0] / sum(e):.4f}"]
    assert f["mask-order"]["tables"][0]["row_headers"] == [f"q_{i}" for i in range(1, 7)]
    d3 = figs(client, "masks", L="3", case="pad-key0")["empty-row"]
    assert grid(d3, "weights")["rows"] == ["q_1", "q_2", "q_3"]
    assert d3["warnings"] == [
        "The engine's warning, verbatim (the engine counts rows from 0): "
        "“row 0 has no allowed key: its weights are all zero”"
    ]


def test_l_shrinks_s_drops_padding_past_l_and_caps_the_window(client: TestClient) -> None:
    out = client.get("/labs/masks/figures.json?" + urlencode(
        {"L": "2", "pad": "1,3", "window": "4"})).json()  # fmt: skip
    v = out["values"]["mask-kinds"]
    assert (v["L"], v["S"], v["pad"], v["window"]) == ("2", "1,0.5;0.5,1.5", "1", "2")


def test_a_non_square_or_oversized_s_is_a_422_naming_s(client: TestClient) -> None:
    for bad in ("1,2;3", "1;2", ";".join([",".join(["0"] * 9)] * 9)):
        r = client.get("/labs/masks/figures.json?" + urlencode({"S": bad}))
        assert r.status_code == 422
        assert r.json()["detail"][0]["field"] == "S"


def test_d2_shows_the_mask_built_in_d1(client: TestClient) -> None:
    """D2 "D1's combination": causal + padding k3 from D1, masked before and after."""
    f = figs(client, "masks", mask="d1", pad="3")["mask-order"]
    w = grid(f, "weights-before")
    assert [w["values"][i][3] for i in range(4)] == [None] * 4  # k3 blocked everywhere
    assert [row[0] for row in f["tables"][0]["cells"]] == ["1.0000"] * 4
    plain = figs(client, "masks", mask="d1")["mask-order"]  # D1 default = causal alone
    causal = figs(client, "masks")["mask-order"]
    assert plain["tables"] == causal["tables"]
    with_window = figs(client, "masks", mask="d1", window="1")["mask-order"]
    assert with_window["tables"][0]["cells"][0][1] == "0.4551"


def test_d3_on_d1s_masks_flags_their_empty_rows(client: TestClient) -> None:
    f = figs(client, "masks", case="d1", pad="0,1", L="3")["empty-row"]
    assert grid(f, "weights")["rows"] == ["q_1", "q_2", "q_3"]
    assert len(f["warnings"]) == 2  # rows 0 and 1 see only padded keys
    ok = figs(client, "masks", case="d1", causal="0")["empty-row"]
    assert ok["warnings"] == []
    assert "no row needs guarding" in ok["caption"]


def test_d3_empty_row_guarded_naive_nan_and_uniform_variant(client: TestClient) -> None:
    f = figs(client, "masks")["empty-row"]
    assert grid(f, "weights")["rows"] == ["<pad>", "I", "love", "LLMs"]
    assert grid(f, "weights")["text"][0] == ["0", "0", "0", "0"]
    assert f["warnings"] == [
        "The engine's warning, verbatim (the engine counts rows from 0): "
        "“row 0 ('<pad>') has no allowed key: its weights "
        "and output are all zero”"
    ]  # 0-based, as /softmax counts rows (LABS.md §1.1)
    naive = f["tables"][0]["cells"]
    assert {row[2] for row in naive} == {"0/0 = NaN"}
    assert [row[4] for row in naive] == ["0.25"] * 4  # a weight: 2 decimals, as in the grids
    assert grid(f, "weights-finite")["text"][0] == ["0.25"] * 4
    off = figs(client, "masks", large="0")["empty-row"]
    assert [g["desc"]["grid"] for g in off["grids"]] == ["weights"]


# ---- order


def test_e1_outputs_travel_with_their_tokens(client: TestClient) -> None:
    f = figs(client, "order", perm="0,4,2,3,1")["shuffle"]
    assert "holds" in f["caption"]
    assert f["readout"][:5] == [f"{t}: same values" for t in ("The", "man", "bit", "the", "dog")]
    rows = dict(zip(f["tables"][0]["row_headers"], f["tables"][0]["cells"],
                                          strict=True))  # fmt: skip
    assert rows["dog"][0] == "row 2 → row 5"
    assert rows["dog"][1] == rows["dog"][2]


def test_e1_a_custom_permutation_and_a_swap_of_two_positions(client: TestClient) -> None:
    out = client.get("/labs/order/figures.json?" + urlencode({"perm": "2,0,1,4,3"})).json()
    f = out["figures"]["shuffle"]
    assert f["tables"][0]["row_headers"] == ["bit", "The", "dog", "man", "the"]
    assert [r[0] for r in f["tables"][0]["cells"]] == ["row 3 → row 1", "row 1 → row 2",
        "row 2 → row 3", "row 5 → row 4", "row 4 → row 5"]  # fmt: skip
    assert f["readout"][:5] == [f"{t}: same values" for t in ("bit", "The", "dog", "man", "the")]
    # a swap exchanges two positions of the current order, then resets itself
    out = client.get("/labs/order/figures.json?" + urlencode({"perm": "2,0,1,4,3",
                                                               "swap": "0,3"})).json()  # fmt: skip
    assert out["values"]["shuffle"]["perm"] == "4,0,1,2,3"
    assert out["values"]["shuffle"]["swap"] == ""
    assert out["query"]["perm"] == "4,0,1,2,3"
    assert "swap" not in out["query"]
    assert out["figures"]["shuffle"]["tables"][0]["row_headers"][0] == "man"


@pytest.mark.parametrize("bad", ["0,0,1,2,3", "0,1,2,3", "0,1,2,3,5", "0,1.5,2,3,4", "a,b,c,d,e"])
def test_e1_a_non_permutation_is_a_422_naming_perm(client: TestClient, bad: str) -> None:
    r = client.get("/labs/order/figures.json?" + urlencode({"perm": bad}))
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "perm"


def test_e1_reorder_buttons_set_the_listed_permutations(client: TestClient) -> None:
    from app.figures.labs.order.shuffle import PERMS

    html = client.get("/labs/order").text
    for value, label in PERMS:
        assert f'data-set-control="perm" data-value="{value}">{label}</button>' in html
    assert "Swap dog ↔ man" in html
    assert "Shuffle" in html


def test_e1_positions_break_it(client: TestClient) -> None:
    f = figs(client, "order", perm="0,4,2,3,1", **{"shuffle.positional": "1"})["shuffle"]
    assert "≠" in f["caption"]
    assert "dog: different values" in f["readout"]


def test_e2_heatmap_is_the_encoding(client: TestClient) -> None:
    f = figs(client, "order", d="8", T="6")["positional-encoding"]
    pe = grid(f, "pe")
    assert pe["shape"] == [6, 8]
    assert pe["values"][0] == [0, 1, 0, 1, 0, 1, 0, 1]
    api = client.post("/api/v1/positional-encoding", json={"positions": 6, "d_model": 8}).json()
    assert pe["values"] == api["pe"]
    assert grid(f, "x-plus-pe")["rows"] == ["The", "dog", "bit", "the", "man"]
    # the default curves (dimensions 0, 6, 16, 40) that fit in d = 8
    assert [t["name"] for t in f["plot"]["data"]] == ["dim 0 (sin)", "dim 6 (sin)"]


def test_e2_any_width_and_chosen_dimensions(client: TestClient) -> None:
    """d is any integer 2–512 (an odd width ends with a sine); the curves are the
    dimensions asked for, past d − 1 left out."""
    f = figs(client, "order", d="5", T="3", dims="4,1,9")["positional-encoding"]
    pe = grid(f, "pe")
    assert pe["shape"] == [3, 5]
    assert pe["values"][1][4] == pytest.approx(np.sin(1 / 10000 ** (4 / 5)), abs=1e-15)
    names = [trace["name"] for trace in f["plot"]["data"]]
    assert names == ["dim 1 (cos)", "dim 4 (sin)"]
    ys = {trace["name"]: trace["y"] for trace in f["plot"]["data"]}
    assert ys["dim 4 (sin)"] == [row[4] for row in pe["values"]]
    for bad in ("1.5", "0,1,2,3,4,5,6,7,8"):
        r = client.get("/labs/order/figures.json?" + urlencode({"dims": bad}))
        assert r.status_code == 422
        assert r.json()["detail"][0]["field"] == "dims"


def test_e3_reversal_is_a_reordering_without_positions_only(client: TestClient) -> None:
    f = figs(client, "order", reverse="1")["reversed"]
    assert f["readout"] == ["I: same values", "love: same values", "LLMs: same values"]
    assert grid(f, "weights-reversed")["rows"] == ["LLMs", "love", "I"]
    on = figs(client, "order", reverse="1", **{"reversed.positional": "1"})["reversed"]
    assert "different computation" in on["caption"]
    off = figs(client, "order", reverse="0")["reversed"]
    assert [g["desc"]["grid"] for g in off["grids"]] == ["scores", "weights"]


# ---- heads


def test_f1_four_patterns_and_where_it_looks(client: TestClient) -> None:
    f = figs(client, "heads")["four-heads"]
    assert [g["desc"]["grid"] for g in f["grids"]] == [f"weights-h{h}" for h in range(1, 5)]
    prev = grid(f, "weights-h1")
    assert prev["rows"][7] == "it"
    assert prev["text"][7][6] == "1"  # it -> because (previous word)
    assert grid(f, "weights-h2")["text"][7][1] == "1"  # it -> animal
    assert grid(f, "weights-h4")["text"][3][0] == grid(f, "weights-h4")["text"][3][6] == "0.50"
    assert f["readout"][1] == "head 2 (coreference): “it” looks at “animal” (1.00)"
    assert "found, not assigned" in f["caption"]
    tensor = figs(client, "heads", stack="tensor", row="2")["four-heads"]
    assert grid(tensor, "weights")["shape"] == [40, 10]
    one = figs(client, "heads", head="3", row="8")["four-heads"]
    assert one["readout"] == ["head 3 (verb → subject): “was” looks at “it” (1.00)"]


def test_f2_split_concat_and_identity_w_o(client: TestClient) -> None:
    f = figs(client, "heads")["split-concat"]
    assert [g["desc"]["grid"] for g in f["grids"]] == ["weights-h1", "weights-h2", "concat",
                                                        "final"]  # fmt: skip
    assert grid(f, "concat")["cols"] == ["h1·1", "h1·2", "h2·1", "h2·2"]
    api = client.get("/api/v1/presets/two-heads").json()["body"]
    out = client.post("/api/v1/attention", json=api).json()
    assert grid(f, "final")["values"] == out["output"]
    same = figs(client, "heads", wo_identity="1", **{"split-concat.heads": "4"})["split-concat"]
    assert grid(same, "final")["values"] == grid(same, "concat")["values"]
    assert len([g for g in same["grids"] if g["desc"]["grid"].startswith("weights")]) == 4


def test_f3_anchor_and_heads_are_free(client: TestClient) -> None:
    f = figs(client, "heads")["head-width"]
    assert f["readout"] == ["d_k = 64", "divisor √64 = 8.0000"]
    counts = dict(zip(f["tables"][0]["row_headers"], f["tables"][0]["cells"], strict=True))
    assert counts["all heads h·d_model·(2·d_k + d_v)"][1] == "786,432"
    assert counts["one full-width head 3·d_model²"][1] == "786,432"
    g = figs(client, "heads", d_model="1024", **{"head-width.heads": "64"})["head-width"]
    assert g["readout"][0] == "d_k = 16"


# ---- cost


def test_g1_base_model_flops_and_crossover(client: TestClient) -> None:
    f = figs(client, "cost")["flops"]
    cells = dict(zip(f["tables"][0]["row_headers"], f["tables"][0]["cells"], strict=True))
    assert cells["total"][1] == "805,306,368"
    assert cells["quadratic"][1] == "268,435,456"
    assert "crossover N = 1,024" in f["readout"]
    assert "linear projections dominate" in f["caption"]
    long = figs(client, "cost", **{"flops.n": "4096"})["flops"]
    assert "quadratic terms dominate" in long["caption"]
    doubled = figs(client, "cost", x2="1")["flops"]
    assert dict(zip(doubled["tables"][0]["row_headers"], doubled["tables"][0]["cells"],
                    strict=True))["total"][1] == "1,610,612,736"  # fmt: skip


def test_g2_parameters_of_the_base_model(client: TestClient) -> None:
    f = figs(client, "cost")["params"]
    cells = dict(zip(f["tables"][0]["row_headers"], f["tables"][0]["cells"], strict=True))
    assert cells["attention"][1] == "1,048,576"
    assert cells["feed-forward"][1] == "2,097,152"
    assert cells["total"][1] == "44,474,368"
    with_b = figs(client, "cost", biases="1")["params"]
    cells = dict(zip(with_b["tables"][0]["row_headers"], with_b["tables"][0]["cells"],
                     strict=True))  # fmt: skip
    assert cells["LayerNorm ×2"][1] == "2,048"
    h1 = figs(client, "cost", **{"params.heads": "1"})["params"]
    assert h1["tables"] == f["tables"]


def test_g3_four_times_the_context_is_sixteen_times_the_cells(client: TestClient) -> None:
    f = figs(client, "cost", x4="1", **{"growth.n": "1024"})["growth"]
    assert f["tables"][0]["cells"][0][0] == "1,048,576"
    assert f["tables"][0]["cells"][1][0] == "16,777,216"
    assert "×16 the cells" in f["caption"]
    assert f["readout"][1] == "float32 memory (one head, one layer): 4.0 MiB (4,194,304 bytes)"
