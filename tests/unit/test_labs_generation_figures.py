"""Lab `generation` (issue 31, item 1), its figures: decoding against the cache equal to
one-pass causal attention (float64, 1e-12) in every frame; the cache's bytes against the
presets and their sources' printed values; grouped heads by mean-pooling; windows, the
rolling buffer and what evicting the first token does to the weights."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from app.figures import fmt
from app.figures.labs import FigureContext, get_lab
from app.figures.labs.generation import cache, common, decode, shared, windows
from app.figures.style import theme
from app.labs import attend, grouped, kv_cache, sinks
from app.labs import windows as bands

LAB = get_lab("generation")
assert LAB is not None
CTX = FigureContext(theme=theme("light"))


def defaults(name: str, **values: Any) -> dict[str, Any]:
    fig = LAB.figure(name)
    assert fig is not None
    merged = {c.name: c.default for c in fig.controls} | values
    return fig.settle(merged) if fig.settle is not None else merged


def build(name: str, **values: Any) -> dict[str, Any]:
    fig = LAB.figure(name)
    assert fig is not None
    return fig.build(defaults(name, **values), CTX)


def grid(fig: dict[str, Any], name: str) -> np.ndarray[Any, Any]:
    found = [g["desc"] for g in fig["grids"] if g["desc"]["grid"] == name]
    assert len(found) == 1, name
    # a blocked cell travels as null: its weight is 0
    return np.nan_to_num(np.array(found[0]["values"], dtype=float), nan=0.0)


def test_the_lab_is_i1_to_i4_and_every_section_asks() -> None:
    assert [f.entry for f in LAB.figures] == ["I1", "I2", "I3", "I4"]
    assert [f.name for f in LAB.figures] == ["decode", "cache", "shared", "windows"]
    for f in LAB.figures:
        assert f.asks, f.name
        reveal = build(f.name)["reveal"]
        values = [c[0] for c in reveal["choices"]]
        assert len(values) == len(set(values)) >= 3, f.name
        labels = [c[1] for c in reveal["choices"]]
        assert len(labels) == len(set(labels)), f.name
        assert reveal["correct"] in values
        assert dict(reveal["choices"])[reveal["correct"]] == reveal["correct_label"]


# ---- I1 decoding


@pytest.mark.parametrize(("tokens", "width", "seed"), [(5, 2, 0), (2, 1, 7), (8, 4, 9999),
                                                       (8, 3, 42), (6, 4, 1)])  # fmt: skip
def test_every_step_equals_the_one_pass_row_to_1e_12(tokens: int, width: int, seed: int) -> None:
    s = decode.decoded(defaults("decode", tokens=tokens, width=width, seed=seed))
    q, k, v = common.inputs(tokens, width, seed)
    scores = q @ k.T / np.sqrt(width)  # written out here, not the module's
    scores[~np.tril(np.ones((tokens, tokens), dtype=bool))] = -np.inf
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    full = (e / e.sum(axis=1, keepdims=True)) @ v
    np.testing.assert_allclose(s.incremental, full, rtol=0, atol=1e-12)
    np.testing.assert_allclose(s.output, full, rtol=0, atol=1e-12)
    fig = build("decode", tokens=tokens, width=width, seed=seed)
    assert len(fig["frames"]) == tokens
    assert fig["step"] == tokens
    for t, frame in enumerate(fig["frames"]):
        both = next(g["desc"] for g in frame["grids"] if g["desc"]["grid"] == "output")
        step, one = np.array(both["values"], dtype=float)
        np.testing.assert_allclose(step, full[t], rtol=0, atol=1e-12)
        np.testing.assert_allclose(one, full[t], rtol=0, atol=1e-12)
        kc = next(g["desc"] for g in frame["grids"] if g["desc"]["grid"] == "k")
        assert kc["shape"] == [t + 1, width]  # the cache holds t + 1 rows at step t + 1
        assert kc["outline"] == {"rows": [t]}
        assert f"holds {t + 1} row" in frame["caption"]
        weights = next(g["desc"] for g in frame["grids"] if g["desc"]["grid"] == "weights-step")
        cached, one = np.array(weights["values"], dtype=float)
        np.testing.assert_allclose(cached, one, rtol=0, atol=1e-12)
        assert cached.shape == (t + 1,)
        full_drawn = [g for g in frame["grids"] if g["desc"]["grid"] == "weights-full"]
        assert len(full_drawn) == (t == tokens - 1)  # the whole matrix once, at the end


def test_the_default_decodes_five_tokens_and_asks_about_the_last_step() -> None:
    fig = build("decode")
    assert fig["reveal"]["correct"] == "5-1"
    assert (
        "rows of K and V computed: 5 with the cache, 1 + 2 + … + 5 = 15 without it"
        in (fig["readout"])
    )
    assert fig["frames"][-1]["caption"].endswith("max |cached − one pass| = 0 (float64).")
    last = fig["frames"][-1]["tables"][0]["cells"]
    s = decode.decoded(defaults("decode"))
    assert [row[0] for row in last] == [fmt.weight(float(w), 4) for w in s.weights[4]]
    assert [row[0] for row in last] == [row[1] for row in last]


# ---- I2 the cache's bytes


def test_opt_13b_is_kwons_800_kb_a_token() -> None:
    # Kwon et al. §3: "2 (key and value vectors) × 5120 (hidden state size) × 40 (number
    # of layers) × 2 (bytes per FP16) = 800 KB"
    printed = 2 * 5120 * 40 * 2
    assert printed == 800 * 1024
    fig = build("cache")
    assert fig["reveal"]["correct_label"] == f"800 KiB ({fmt.count(printed)} bytes)"
    assert "2 × 40 × 40 × 128 × 2 = 819,200 bytes = 800 KiB a token" in fig["caption"]
    opt = fig["tables"][0]["cells"][0]
    assert fig["tables"][0]["row_headers"][0] == "OPT-13B"
    assert opt[5] == "800 KiB"
    assert "PagedAttention" in opt[-1]


def test_the_table_is_the_presets_data_with_sources() -> None:
    fig = build("cache", tokens=1000)
    table = fig["tables"][0]
    assert table["row_headers"] == [c.name for c in kv_cache.PRESETS]
    assert len(kv_cache.PRESETS) == 6
    for c, row in zip(kv_cache.PRESETS, table["cells"], strict=True):
        per = 2 * c.layers * c.kv_heads * c.d_head * c.bytes_per_value
        assert row[:5] == [str(x) for x in (c.layers, c.heads, c.kv_heads, c.d_head,
                                            c.bytes_per_value)]  # fmt: skip
        assert row[5] == cache._kib(per)
        assert row[6] == f"{fmt.count(c.context)}: {common.byte_text(per * c.context)}"
        assert row[7] == common.byte_text(per * 1000)
        assert row[8] == c.source
        assert c.source
    bars = fig["plot"]["data"][0]
    assert bars["y"] == [0, 1, 2, 3, 4, 5, 6]
    assert bars["x"][:6] == [float(kv_cache.preset_cache(c).bytes_per_token)
                             for c in kv_cache.PRESETS]  # fmt: skip


@pytest.mark.parametrize("name", [c.name for c in kv_cache.PRESETS])
def test_each_model_can_be_asked_about(name: str) -> None:
    c = kv_cache.preset(name)
    reveal = build("cache", model=name)["reveal"]
    per = kv_cache.bytes_per_token(c.layers, c.kv_heads, c.d_head, c.bytes_per_value)
    assert reveal["correct_label"] == f"{cache._kib(per)} ({fmt.count(per)} bytes)"
    assert c.source in reveal["why"]


def test_a_typed_model_and_kv_heads_lowered_to_a_divisor() -> None:
    assert defaults("cache", heads=12, kv_heads=5)["kv_heads"] == 4
    assert defaults("cache", heads=7, kv_heads=6)["kv_heads"] == 1
    fig = build("cache", layers=2, heads=4, kv_heads=2, d_head=3, bytes_per_value=4, tokens=10)
    per = 2 * 2 * 2 * 3 * 4
    assert fig["readout"][0] == f"your model: {per} bytes a token, {per * 10} bytes for 10 tokens"
    assert "2 times more" in fig["readout"][1]
    assert fig["plot"]["data"][0]["x"][-1] == float(per)


# ---- I3 shared heads


def test_the_default_groups_four_heads_in_two_and_halves_the_cache() -> None:
    fig = build("shared")
    assert fig["reveal"]["correct"] == "2"
    rows = fig["tables"][0]
    assert rows["row_headers"] == ["kv_heads = 4", "kv_heads = 2", "kv_heads = 1"]
    assert [r[0] for r in rows["cells"]] == ["multi-head", "grouped", "multi-query"]
    assert [r[2] for r in rows["cells"]] == ["1", "2", "4"]
    assert rows["cells"][0][3] == "0.0000"  # g = h: nothing is pooled, nothing changes
    assert float(rows["cells"][1][3]) > 0.1  # the default shows weights that move
    llama = kv_cache.preset("Llama-2-70B")
    assert (
        f"{llama.heads} query heads, {llama.kv_heads} key/value heads: 8 times"
        in (fig["readout"][2])
    )


@pytest.mark.parametrize(("heads", "kv_heads", "head"), [(4, 2, 0), (4, 1, 3), (6, 3, 5),
                                                         (8, 4, 2), (8, 8, 7)])  # fmt: skip
def test_grouped_weights_are_the_mean_pooled_keys(heads: int, kv_heads: int, head: int) -> None:
    values = defaults("shared", heads=heads, kv_heads=kv_heads, head=head, tokens=5, seed=3)
    fig = shared.build_shared(values, CTX)
    q, k, _ = common.stack(heads, 5, 2, 3)
    size = heads // kv_heads
    members = range(head // size * size, head // size * size + size)
    k_mean = k[list(members)].mean(axis=0)  # written out: the group's mean key head
    s = q[head] @ k_mean.T / np.sqrt(2)
    s[~np.tril(np.ones((5, 5), dtype=bool))] = -np.inf
    e = np.exp(s - s.max(axis=1, keepdims=True))
    np.testing.assert_allclose(grid(fig, "weights-grouped"), e / e.sum(axis=1, keepdims=True),
                               rtol=0, atol=1e-12)  # fmt: skip
    np.testing.assert_allclose(grid(fig, "k-pooled"), k_mean, rtol=0, atol=1e-12)
    change = grid(fig, "change")
    multi = grid(fig, "weights-multi")
    np.testing.assert_allclose(multi + change, grid(fig, "weights-grouped"),
                               rtol=0, atol=1e-12)  # fmt: skip
    assert fig["reveal"]["correct"] == str(heads // kv_heads)
    if kv_heads == heads:
        assert np.max(np.abs(change)) == 0


def test_a_head_past_h_is_shown_as_the_last_with_a_warning() -> None:
    fig = build("shared", heads=2, kv_heads=1, head=5)
    assert fig["warnings"] == ["Query head 6 does not exist here (1 … 2); showing head 2."]


# ---- I4 windows and sinks


def test_evicting_token_1_divides_the_rest_by_one_minus_its_weight() -> None:
    s = windows.windowed(defaults("windows"))
    full, cut = s.weights[0][-1], s.weights[1][-1]
    w1 = full[0]
    assert w1 > 0.5  # the default's sink holds most of the weight before any control
    np.testing.assert_allclose(cut[1:], full[1:] / (1 - w1), rtol=0, atol=1e-12)
    assert cut[0] == 0
    again, mass = sinks.renormalised(full[None, :], np.arange(s.n)[None, :] == 0)
    np.testing.assert_allclose(again[0], cut, rtol=0, atol=1e-12)
    assert mass[0] == pytest.approx(w1, abs=1e-15)
    fig = build("windows")
    assert fig["reveal"]["correct"] == "grow"
    assert (
        f"× 1 / (1 − {fmt.weight(float(w1), 4)}) = {fmt.significant(1 / (1 - w1), 4)}"
        in (fig["reveal"]["why"])
    )
    last = grid(fig, "weights-last")
    np.testing.assert_allclose(last[0], full, rtol=0, atol=1e-12)


@pytest.mark.parametrize("boost", [-4.0, 0.0, 2.0, 8.0])
def test_the_sink_scores_b_above_the_best_other_key(boost: float) -> None:
    q, k, _ = common.inputs(12, common.D, 5)
    scores = attend.scaled_scores(q, k)
    allowed = attend.causal(12, 12)
    raised = scores + windows.sink_bias(scores, allowed, boost)
    for i in range(1, 12):
        assert raised[i, 0] == pytest.approx(scores[i, 1 : i + 1].max() + boost, abs=1e-12)
        np.testing.assert_array_equal(raised[i, 1:], scores[i, 1:])
    assert raised[0, 0] == boost


@pytest.mark.parametrize(("n", "w", "layers"), [(12, 4, 2), (16, 3, 5), (8, 1, 3), (6, 16, 1)])
def test_the_bands_reach_and_the_rolling_buffer(n: int, w: int, layers: int) -> None:
    fig = build("windows", tokens=n, window=w, layers=layers, sinks=0)
    reach = grid(fig, "reach")
    for i in range(n):
        for j in range(n):
            back = i - j  # the fewest layers for a band of w: ⌈back / (w − 1)⌉, 1 for itself
            if back < 0 or (w == 1 and back > 0):
                need = 0
            else:
                need = max(1, -(-back // (w - 1))) if w > 1 else 1
            assert reach[i, j] == (need if need <= layers else 0), (i, j)
    assert f"up to {bands.reach_back(w, layers)} positions back" in fig["caption"]
    held = fig["tables"][0]["cells"]
    for slot, (text,) in enumerate(held):
        owners = [p for p in range(n) if p % w == slot]
        assert text == (f"token {owners[-1] + 1}" if owners else "empty")
    assert f"token {n} in slot {(n - 1) % w + 1}" in fig["caption"]


def test_sinks_plus_window_keeps_the_first_k_and_the_last_w() -> None:
    fig = build("windows", tokens=10, window=3, sinks=2)
    last = next(g["desc"] for g in fig["grids"] if g["desc"]["grid"] == "weights-last")
    kept = [not m for m in last["masked"][3]]
    assert kept == [True, True] + [False] * 5 + [True] * 3
    assert defaults("windows", tokens=4, sinks=4)["sinks"] == 3


def test_mistral_from_the_presets_is_the_papers_131k_and_8x() -> None:
    # Jiang et al., "Mistral 7B" §2: W = 4096 and 32 layers, "approximately 131K tokens";
    # at a sequence of 32k tokens the rolling buffer "reduces the cache memory usage by 8x".
    readout = build("windows")["readout"][2]
    assert "span 131,072 tokens" in readout
    assert "at 32,768 tokens the buffer is 8 times smaller" in readout
    m = kv_cache.preset("Mistral-7B")
    assert m.window == 4096
    assert m.layers == 32
    assert bands.span(m.window, m.layers) == 131_072


def test_grouped_options_run_from_heads_to_one() -> None:
    fig = build("shared", heads=6, kv_heads=6)
    assert fig["tables"][0]["row_headers"] == [f"kv_heads = {g}" for g in (6, 3, 2, 1)]
    assert grouped.kv_head_options(6) == (6, 3, 2, 1)
