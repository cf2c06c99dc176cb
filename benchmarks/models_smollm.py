"""SmolLM2-135M's budgets, in process: forward time on one core, and memory.

Prints, with one BLAS thread (as the image runs): the first load (sha256 of the 98 MB file,
parsing, the blocks copied out); the CPU-time median of ``trace`` (all 270 heads, q, k, v
kept) on a 16-token and a 128-token text, and of the next-token logits of the 16-token
text, and of one generation step (a token fed with the KV cache), alone and through
``POST /api/v1/models/smollm2/generate``; then the RSS: at
start, with the encoder and the tiny decoder loaded, with SmolLM2 loaded too, after a
128-token trace kept by the registry, and its peak (VmHWM). Budgets (issue 30): a
16-token forward ≤ 0.5 s on one core, one generation step ≤ 0.3 s; a worker with the three
models loaded within the pod's 768 MiB with room for the worst admissible request.

    python benchmarks/models_smollm.py            # 9 runs each
    python benchmarks/models_smollm.py --runs 21
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy: as the image runs
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from typing import Any

import numpy as np

from app.models import registry
from app.models.smollm import KVCache

MIB = 2**20
TEXT_16 = "The quick brown fox jumps over the lazy dog while the cat sleeps on a"
TEXT_128 = " ".join(("the cat sat on the mat while a dog slept " * 13).split()[:128])


def status(key: str) -> float:
    """A /proc/self/status figure (VmRSS, VmHWM) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024 / MIB
    raise KeyError(key)


def cpu_median(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()  # type: ignore[operator]
        times.append(time.process_time() - start)
    return statistics.median(times)


def generation_step(model: Any, ids: list[int], runs: int) -> tuple[float, float]:
    """The CPU median of one cached step, and the largest difference between the cached
    steps' weights and one forward over the whole sequence."""
    cache = KVCache.empty()
    x, _ = model.run(ids, cache)
    times, tokens, rows = [], list(ids), []
    for _ in range(runs):
        start = time.process_time()
        token = int(np.argmax(model.head_logits(x[-1:])[0]))
        x, kept = model.run([token], cache)
        times.append(time.process_time() - start)
        tokens.append(token)
        rows.append(np.stack([w[:, 0, :] for w in kept["weights"]]))
    _, full = model.run(tokens)
    error = max(
        float(
            np.abs(
                row - np.stack([w[:, len(ids) + i, : len(ids) + i + 1] for w in full["weights"]])
            ).max()
        )
        for i, row in enumerate(rows)
    )
    return statistics.median(times), error


def api_step(runs: int, steps: int = 9) -> float:
    """The CPU median of one step through POST /api/v1/models/smollm2/generate (in
    process, answer cache off): a request of ``steps`` steps less one of 1 step, over
    ``steps − 1`` (the prompt's forward cancels; parsing, pricing, the JSON and the
    thread hop of each step are in)."""
    from fastapi.testclient import TestClient

    from app.main import create_app
    from app.settings import Settings

    client = TestClient(create_app(Settings(answer_cache_bytes=0)))

    def post(n: int) -> None:
        r = client.post("/api/v1/models/smollm2/generate", json={"text": TEXT_16, "steps": n})
        assert r.status_code == 200, r.text[:200]

    post(1)  # warm
    per_step = []
    for _ in range(runs):
        one, many = cpu_median(lambda: post(1), 1), cpu_median(lambda: post(steps), 1)
        per_step.append((many - one) / (steps - 1))
    return statistics.median(per_step)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    if not registry.installed("smollm2"):
        sys.exit("SmolLM2 is not installed: attention-lab models install smollm2")
    print(f"RSS at start: {status('VmRSS'):.0f} MiB")
    for other in ("minilm", "tiny-decoder"):
        if registry.installed(other):
            registry.get(other)
    print(f"RSS with the encoder and the decoder loaded: {status('VmRSS'):.0f} MiB")
    start = time.perf_counter()
    model = registry.get("smollm2")
    print(f"SmolLM2 first load: {time.perf_counter() - start:.2f} s wall; weights kept "
          f"{model.nbytes / MIB:.0f} MiB; RSS {status('VmRSS'):.0f} MiB")  # type: ignore[attr-defined]  # fmt: skip
    ids16 = model.ids(TEXT_16)  # type: ignore[attr-defined]
    ids128 = model.ids(TEXT_128)  # type: ignore[attr-defined]
    assert (len(ids16), len(ids128)) == (16, 128), (len(ids16), len(ids128))
    t16 = cpu_median(lambda: model.trace(TEXT_16), args.runs)
    logits = cpu_median(lambda: model.logits(ids16), args.runs)  # type: ignore[attr-defined]
    t128 = cpu_median(lambda: model.trace(TEXT_128), max(3, args.runs // 3))
    print(f"trace, 16 tokens (270 heads, q/k/v kept): median {t16 * 1000:.0f} ms CPU")
    print(f"next-token logits, 16 tokens: median {logits * 1000:.0f} ms CPU")
    print(f"trace, 128 tokens: median {t128 * 1000:.0f} ms CPU")
    step_time, cache_error = generation_step(model, ids16, args.runs)
    print(f"one generation step after 16 tokens (1-token forward with the KV cache, then the "
          f"logits): median {step_time * 1000:.0f} ms CPU; cached weights vs recomputed: "
          f"max |difference| {cache_error:.1e}")  # fmt: skip
    api = api_step(max(3, args.runs // 3))
    print(f"one step through POST /api/v1/models/smollm2/generate after 16 tokens (9 steps "
          f"less 1, over 8): median {api * 1000:.0f} ms CPU (budget 300 ms)")  # fmt: skip
    registry.trace("smollm2", TEXT_128)
    print(f"RSS after a kept 128-token trace: {status('VmRSS'):.0f} MiB; "
          f"peak {status('VmHWM'):.0f} MiB")  # fmt: skip
    print(f"load average: {os.getloadavg()[0]:.1f} (a shared machine: CPU time, not wall)")


if __name__ == "__main__":
    main()
