"""The cost model (app.inputs.limits) and admission control (app.http.admission).

Estimates are checked against what the engine and the API really produce, so a change
to either that makes the model lie fails here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from app.attention import AttentionInput, run
from app.http.admission import (
    CELLS_PER_SECOND,
    MAX_RETRY_AFTER,
    BusyError,
    Gate,
    admitted,
    offload,
)
from app.inputs.body import AttentionRequest
from app.inputs.limits import (
    INLINE_CELLS,
    Cost,
    CostError,
    Shape,
    attention_cost,
    check_cost,
    request_shape,
    softmax_cost,
)
from app.settings import Settings
from app.wire import stages_to_chunks


def _random_request(length: int, d: int, heads: int = 1) -> AttentionRequest:
    rng = np.random.default_rng(0)
    m = lambda r, c: rng.normal(size=(r, c)).round(6).tolist()  # noqa: E731
    return AttentionRequest(x=m(length, d), w_q=m(d, d), w_k=m(d, d), w_v=m(d, d), heads=heads)


def test_request_shape_reads_the_sizes_of_a_body() -> None:
    shape = request_shape(_random_request(8, 4, heads=2))
    assert shape == Shape(l_q=8, l_k=8, d_model=4, d_k=4, d_v=4, heads=2)
    direct = AttentionRequest(q=[[1.0, 2.0]], k=[[1.0, 0.0], [0.0, 1.0]], v=[[1.0]] * 2)
    assert request_shape(direct) == Shape(l_q=1, l_k=2, d_model=0, d_k=2, d_v=1)


def test_cells_count_what_the_engine_really_holds() -> None:
    req = _random_request(32, 8, heads=2)
    stages = run(req.to_input())
    held = sum(
        a.size
        for h in stages.heads
        for a in (h.q, h.k, h.v, h.scores, h.scaled, h.masked, h.weights, h.exps, h.output)
    )
    estimate = attention_cost(request_shape(req)).cells
    assert held <= estimate <= 2 * held


def test_response_bytes_are_within_a_fifth_of_the_real_answer() -> None:
    req = _random_request(64, 16, heads=4)
    real = sum(len(c) for c in stages_to_chunks(run(req.to_input())))
    estimate = attention_cost(request_shape(req)).response_bytes
    assert 0.8 * real <= estimate <= 1.5 * real


def test_the_largest_numeric_request_fits_the_default_budget() -> None:
    largest = Shape(l_q=512, l_k=512, d_model=512, d_k=512, d_v=512, d_out=512, cross=True)
    check_cost(attention_cost(largest), Settings(), "x")


@pytest.mark.parametrize("heads", [64, 512])
def test_the_6_kb_many_heads_body_is_refused_naming_heads(heads: int) -> None:
    shape = Shape(l_q=512, l_k=512, d_model=1, d_k=512, d_v=512, heads=heads)
    with pytest.raises(CostError) as caught:
        check_cost(attention_cost(shape), Settings(), shape.reduce)
    assert shape.field == "heads"
    assert caught.value.status == 422
    assert caught.value.field == shape.reduce
    assert f"heads ({heads})" in caught.value.message
    assert "ATTENTION_LAB_MAX_CELLS" in caught.value.message


def test_response_bytes_have_their_own_budget() -> None:
    settings = Settings(max_cells=10**9, max_response_bytes=100_000)
    with pytest.raises(CostError, match="ATTENTION_LAB_MAX_RESPONSE_BYTES") as caught:
        check_cost(softmax_cost(100, 100), settings, "scores", status=413)
    assert caught.value.status == 413
    assert caught.value.field == "scores"


def test_a_4096_square_softmax_is_over_the_default_budget() -> None:
    with pytest.raises(CostError):
        check_cost(softmax_cost(4096, 4096), Settings(), "scores")


HEAVY = Cost(INLINE_CELLS + 1, 0)
SMALL = Cost(10, 0)


def test_small_work_runs_inline_even_when_every_slot_is_taken(
    run_async: Callable[..., Any],
) -> None:
    gate = Gate(1)

    async def scenario() -> tuple[int, str]:
        async with admitted(gate, HEAVY):
            pass
        slot = gate.enter()  # another request holds the only slot
        try:
            return await offload(gate, SMALL, lambda a, b: a + b, 2, b=3), "ok"
        finally:
            gate.leave(slot)

    assert run_async(scenario) == (5, "ok")


def test_heavy_work_past_the_limit_is_refused_with_retry_after(
    run_async: Callable[..., Any],
) -> None:
    gate = Gate(1)

    async def scenario() -> None:
        slot = gate.enter()
        try:
            await offload(gate, HEAVY, sum, [1, 2])
        finally:
            gate.leave(slot)

    with pytest.raises(BusyError) as caught:
        run_async(scenario)
    assert caught.value.retry_after >= 1
    assert gate.running == 0


def test_retry_after_is_estimated_from_the_work_in_hand() -> None:
    gate = Gate(1)
    slot = gate.enter(Cost(CELLS_PER_SECOND * 7, 0))  # about 7 s of work just started
    with pytest.raises(BusyError) as caught:
        gate.enter(HEAVY)
    assert 6 <= caught.value.retry_after <= 7
    gate.leave(slot)
    gate.enter(Cost(CELLS_PER_SECOND * 10_000, 0))
    with pytest.raises(BusyError) as capped:
        gate.enter(HEAVY)
    assert capped.value.retry_after == MAX_RETRY_AFTER


def test_two_apps_do_not_share_slots() -> None:
    from app.main import create_app

    one, two = create_app(Settings(max_heavy=1)), create_app(Settings(max_heavy=1))
    one.state.gate.enter()
    assert two.state.gate.running == 0
    assert two.state.gate.enter() is not None


def test_heavy_work_runs_in_a_thread_and_frees_its_slot(run_async: Callable[..., Any]) -> None:
    import threading

    gate = Gate(2)

    async def scenario() -> list[Any]:
        loop_thread = threading.get_ident()
        seen = await offload(gate, HEAVY, threading.get_ident)
        # nested: a block that already holds a slot does not take a second one
        async with admitted(gate, HEAVY):
            assert gate.running == 1
            nested = await offload(gate, HEAVY, lambda: gate.running)
        return [seen != loop_thread, nested, gate.running]

    off_loop, nested, after = run_async(scenario)
    assert off_loop
    assert nested == 1
    assert after == 0


def test_a_failing_computation_frees_its_slot(run_async: Callable[..., Any]) -> None:
    gate = Gate(1)

    def boom() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        run_async(offload, gate, HEAVY, boom)
    assert gate.running == 0


def test_engine_input_type_is_what_the_cost_model_reads() -> None:
    # request_shape must agree with the engine on direct mode's widths
    req = AttentionRequest(q=[[1.0, 2.0, 3.0, 4.0]], k=[[1.0] * 4] * 3, v=[[1.0] * 2] * 3)
    inp: AttentionInput = req.to_input()
    stages = run(inp)
    shape = request_shape(req)
    assert (shape.l_q, shape.l_k, shape.d_k, shape.d_v) == (
        len(stages.tokens),
        len(stages.key_tokens),
        stages.q.shape[1],
        stages.v.shape[1],
    )


def test_a_heavy_answer_keeps_its_slot_until_it_is_sent(run_async: Callable[..., Any]) -> None:
    from starlette.responses import Response

    gate = Gate(2)
    during: list[int] = []

    async def send(message: Any) -> None:
        during.append(gate.running)

    async def receive() -> Any:
        return {"type": "http.disconnect"}

    async def scenario() -> None:
        response = await offload(gate, HEAVY, Response, b"x" * 10)
        assert gate.running == 1  # computed, not yet sent: still counted
        scope = {"type": "http", "method": "GET", "path": "/", "headers": []}
        await response(scope, receive, send)

    run_async(scenario)
    assert during
    assert all(n == 1 for n in during)
    assert gate.running == 0


def test_a_slot_is_freed_when_sending_fails(run_async: Callable[..., Any]) -> None:
    from starlette.responses import Response

    gate = Gate(1)

    async def broken(message: Any) -> None:
        raise OSError("the client went away")

    async def scenario() -> None:
        response = await offload(gate, HEAVY, Response, b"x")
        with pytest.raises(OSError, match="went away"):
            await response({"type": "http", "headers": []}, None, broken)  # type: ignore[arg-type]

    run_async(scenario)
    assert gate.running == 0
