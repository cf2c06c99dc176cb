"""Server-side time to build and encode every figure (POST /api/v1/figures without HTTP).

Prints the median and p95 over many runs of: engine + build_figures + orjson encode, for
the running example and for 64 tokens × d_model 32, plus the response size; then the
same as the page asks for it (``?draw=grids``: grids only, large tables deferred), with
the ratio to the fixed pure-Python reference of ``benchmarks/reference.py`` measured in
the same run (compare ratios on a shared machine). Run from the repository root:
``python benchmarks/figures.py``. Target (issue 27): the running example's grids answer
≤ 14 ms on a quiet machine.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.attention import AttentionInput, run
from app.figures import View, build_figures
from app.presets import RUNNING_EXAMPLE as R
from app.wire import encode

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference import python_reference


def running_example() -> AttentionInput:
    def a(m: Any) -> np.ndarray[Any, Any]:
        return np.asarray(m, dtype=np.float64)

    return AttentionInput(
        x=a(R["x"]), w_q=a(R["w_q"]), w_k=a(R["w_k"]), w_v=a(R["w_v"]), tokens=tuple(R["tokens"])
    )


def large(n: int = 64, d: int = 32) -> AttentionInput:
    rng = np.random.default_rng(0)
    return AttentionInput(
        x=rng.integers(-2, 3, (n, d)).astype(float),
        w_q=rng.normal(size=(d, d)) / d**0.5,
        w_k=rng.normal(size=(d, d)) / d**0.5,
        w_v=rng.normal(size=(d, d)),
        tokens=tuple(f"t{i}" for i in range(n)),
    )


def page_answer(inp: AttentionInput, runs: int) -> tuple[float, float]:
    """Median ms of the page's answer (draw=grids) and of the Python reference, interleaved."""
    times, refs = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        encode(build_figures(run(inp), View(), plotly=False, defer_tables=True))
        times.append((time.perf_counter() - t0) * 1000)
        refs.append(python_reference())
    return statistics.median(times), statistics.median(refs)


def measure(inp: AttentionInput, runs: int) -> tuple[float, float, int, dict[int, float]]:
    times = []
    body = b""
    for _ in range(runs):
        t0 = time.perf_counter()
        body = encode(build_figures(run(inp), View()))
        times.append(time.perf_counter() - t0)
    per_figure = {}
    stages = run(inp)
    for n in range(3, 14):
        t0 = time.perf_counter()
        for _ in range(max(1, runs // 10)):
            encode(build_figures(stages, View(figures=(n,))))
        per_figure[n] = (time.perf_counter() - t0) / max(1, runs // 10) * 1000
    times.sort()
    return (
        statistics.median(times) * 1000,
        times[int(0.95 * len(times))] * 1000,
        len(body),
        per_figure,
    )


def main() -> None:
    for name, inp, runs in (
        ("running example", running_example(), 200),
        ("64 tokens × d_model 32", large(), 30),
    ):
        med, p95, size, per = measure(inp, runs)
        print(f"{name}: median {med:.1f} ms, p95 {p95:.1f} ms, {size / 1024:.0f} KiB ({runs} runs)")
        print("  per figure (ms): " + ", ".join(f"{n}: {t:.1f}" for n, t in per.items()))
        grids, ref = page_answer(inp, runs)
        print(f"  as the page asks (draw=grids): median {grids:.1f} ms; reference {ref:.1f} ms"
              f" ({grids / ref:.2f}×)")  # fmt: skip


if __name__ == "__main__":
    main()
