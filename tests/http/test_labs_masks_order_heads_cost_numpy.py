"""Copy as NumPy for the masks, order, heads and cost figures: GET /labs/{id}/numpy/{figure}
answers a standalone script for the state in the query; each script is RUN here in a
subprocess (numpy only) and its numbers are compared with the figure's own (grids at full
precision, within 1e-12; counts exactly)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import numpy as np
import pytest
from api_helpers import lab_script
from fastapi.testclient import TestClient

TOL = 1e-12


def figure(client: TestClient, lab: str, name: str, **q: str) -> dict[str, Any]:
    r = client.get(f"/labs/{lab}/figures.json?" + urlencode({**q, "figures": name}))
    assert r.status_code == 200, r.text
    return dict(r.json()["figures"][name])


def grid(fig: dict[str, Any], name: str) -> Any:
    """A grid's values, blocked cells (null) as 0 (their weight)."""
    desc = next(g["desc"] for g in fig["grids"] if g["desc"]["grid"] == name)
    return np.array([[0.0 if v is None else v for v in row] for row in desc["values"]])


def close(a: Any, b: Any) -> None:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= TOL


MASK_STATES = [
    {},
    {"L": "6", "pad": "2", "window": "3"},
    {"L": "3", "causal": "0", "S": "1,2,3;0,-1,4;2.5,0,0", "mask": "d1", "order": "after"},
    {"pad": "0", "case": "d1", "mask": "d1"},
]


@pytest.mark.parametrize("state", MASK_STATES)
def test_masks_scripts_match_d1_d2_d3(client: TestClient, state: Any) -> None:
    out = lab_script(client, "masks", "mask-kinds", prefix="/labs", **state)
    d1 = figure(client, "masks", "mask-kinds", **state)
    close(out["weights"], grid(d1, "weights"))
    assert [f"row q_{i + 1}: {n} allowed key" in line for i, (n, line) in
            enumerate(zip(out["allowed_per_row"], d1["readout"], strict=False))] == [True] * len(
        out["allowed_per_row"])  # fmt: skip

    out = lab_script(client, "masks", "mask-order", prefix="/labs", **{**state, "order": "both"})
    d2 = figure(client, "masks", "mask-order", **{**state, "order": "both"})
    close(out["before"]["weights"], grid(d2, "weights-before"))
    close(out["after"]["weights"], grid(d2, "weights-after"))
    sums = d2["tables"][0]["cells"]
    assert [f"{s:.4f}" for s in out["before"]["row_sums"]] == [r[0] for r in sums]
    assert [f"{s:.4f}" for s in out["after"]["row_sums"]] == [r[1] for r in sums]

    out = lab_script(client, "masks", "empty-row", prefix="/labs", **state)
    d3 = figure(client, "masks", "empty-row", **state)
    close(out["weights"], grid(d3, "weights"))
    if out["empty_rows"]:
        close(out["weights_large_negative"], grid(d3, "weights-finite"))


def test_d2_anchor_from_the_script(client: TestClient) -> None:
    out = lab_script(client, "masks", "mask-order", prefix="/labs")
    assert f"{out['after']['row_sums'][0]:.4f}" == "0.4551"
    assert out["before"]["row_sums"] == pytest.approx([1.0] * 4, abs=TOL)


def test_d3_pad_first_script_matches_the_engine(client: TestClient) -> None:
    from app.figures.labs.masks.empty_row import pad_first_body

    out = lab_script(client, "masks", "empty-row", prefix="/labs")
    api = client.post("/api/v1/attention", json=pad_first_body()).json()
    assert out["empty_rows"] == [0]
    close(out["weights"], api["weights"])
    close(out["output"], api["output"])
    assert out["weights_large_negative"][0] == pytest.approx([0.25] * 4, abs=TOL)


@pytest.mark.parametrize("positional", ["0", "1"])
@pytest.mark.parametrize("perm", ["0,4,2,3,1", "3,0,4,1,2", "2,0,1,4,3"])
def test_e1_script_checks_equivariance_like_the_figure(
    client: TestClient, perm: str, positional: str
) -> None:
    q = {"perm": perm, "shuffle.positional": positional}
    out = lab_script(client, "order", "shuffle", prefix="/labs", **q)
    fig = figure(client, "order", "shuffle", **q)
    close(out["output"], grid(fig, "output"))
    close(out["output_shuffled"], grid(fig, "output-shuffled"))
    badges = [line.split(": ")[1] for line in fig["readout"][:5]]
    assert badges == ["same values" if s else "different values" for s in out["same_values"]]
    assert out["equivariant"] is (positional == "0")


@pytest.mark.parametrize(("d", "t", "base"), [("4", "5", "10000"), ("64", "40", "10000"),
                                              ("8", "6", "100")])  # fmt: skip
def test_e2_script_pe_is_the_heatmap(client: TestClient, d: str, t: str, base: str) -> None:
    out = lab_script(client, "order", "positional-encoding", prefix="/labs", d=d, T=t, base=base)
    fig = figure(client, "order", "positional-encoding", d=d, T=t, base=base)
    close(out["pe"], grid(fig, "pe"))


@pytest.mark.parametrize("state", [{}, {"split-concat.heads": "4"}, {"wo_identity": "1"},
                                   {"split-concat.heads": "1", "w_o": "1,0,0,0;0,2,0,0;0,0,3,0;"
                                    "0,0,0,-1"}])  # fmt: skip
def test_f2_script_splits_concatenates_and_mixes(client: TestClient, state: Any) -> None:
    out = lab_script(client, "heads", "split-concat", prefix="/labs", **state)
    fig = figure(client, "heads", "split-concat", **state)
    for i, weights in enumerate(out["head_weights"]):
        close(weights, grid(fig, f"weights-h{i + 1}"))
    close(out["concat"], grid(fig, "concat"))
    close(out["output"], grid(fig, "final"))


def _cost_api(client: TestClient, config: dict[str, Any]) -> dict[str, Any]:
    return dict(client.post("/api/v1/cost", json=config).json())


@pytest.mark.parametrize(("name", "state"), [
    ("flops", {}), ("flops", {"flops.n": "65536", "flops.d_model": "1024", "flops.heads": "16"}),
    ("params", {}), ("params", {"biases": "1", "vocab": "32000", "layers": "12"}),
    ("growth", {}), ("growth", {"growth.n": "131072", "x4": "1"}),
])  # fmt: skip
def test_cost_scripts_are_the_cost_api_exactly(client: TestClient, name: str, state: Any) -> None:
    out = lab_script(client, "cost", name, prefix="/labs", **state)
    fig = figure(client, "cost", name, **state)
    shown = " ".join([fig["caption"], *fig["readout"]] + [
        c for t in fig["tables"] for row in t["cells"] for c in row])  # fmt: skip
    configs = json.loads(
        client.get(f"/labs/cost/numpy/{name}?{urlencode(state)}")
        .text.split("configs = ")[1]
        .split("  #")[0]
        .replace("True", "true")
        .replace("False", "false")
    )
    for config, result in zip(configs, out, strict=True):
        api = _cost_api(client, config)
        assert result["flops"] == api["flops"]
        assert result["params"] == {k: api["params"][k] for k in result["params"]}
        assert (result["crossover_n"], result["score_cells"]) == (
            api["crossover_n"], api["score_cells"])  # fmt: skip
        assert all(isinstance(v, int) for v in result["flops"].values())
    if name == "params":
        assert f"{out[0]['params']['total']:,}" in shown
    if name == "growth":
        assert f"{out[-1]['score_cells']:,}" in shown


def test_every_labs_ii_figure_but_the_pictures_has_copy_as_numpy(client: TestClient) -> None:
    from app.figures.labs import get_lab

    with_script = {
        f.name
        for lab_id in ("masks", "order", "heads", "cost")
        for f in (get_lab(lab_id) or pytest.fail(lab_id)).figures
        if f.numpy is not None
    }
    assert with_script == {"mask-kinds", "mask-order", "empty-row", "shuffle",
                           "positional-encoding", "split-concat", "flops", "params",
                           "growth"}  # fmt: skip
    html = client.get("/labs/masks").text
    assert html.count('data-share="numpy"') == 3
    assert "data-experiment" not in html  # not streamed: no seeded run behind them
    r = client.get("/labs/heads/numpy/four-heads")
    assert r.status_code == 404
    r = client.get("/labs/order/numpy/shuffle?perm=0,0,1,2,3")
    assert r.status_code == 422
    assert r.json()["detail"][0]["field"] == "perm"
