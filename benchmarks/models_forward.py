"""The real encoder's speed: a text of 16 and of 128 tokens through all-MiniLM-L6-v2,
the forward pass alone and the whole answer of POST /api/v1/models/minilm/attention
(forward, 72 head summaries, JSON), medians of repeated runs in this process.

    python benchmarks/models_forward.py             # 15 runs each
    python benchmarks/models_forward.py --runs 31

One BLAS thread, as `attention-lab` and the image set (set here before numpy loads).
Needs the model: attention-lab models install minilm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.api.models_api import attention_answer  # noqa: E402
from app.models import registry  # noqa: E402

SENTENCE = "the cat sat on the mat while a dog slept by the door and the rain kept falling"
WORDS = SENTENCE.split(" ")


def text_of(tokens: int) -> str:
    """A text of exactly ``tokens`` tokens ([CLS] and [SEP] included)."""
    words = (WORDS * (tokens // len(WORDS) + 1))[: tokens - 2]
    text = " ".join(words)
    assert len(registry.get("minilm").tokenize(text)) == tokens
    return text


def median_ms(fn: Callable[[str], object], text: str, runs: int) -> tuple[float, float]:
    """Medians of wall time and of this process's CPU time, in ms (on a busy machine the
    CPU time is the fairer number: it leaves out the time spent waiting for a core)."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn(text)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if not registry.installed("minilm"):
        sys.exit("all-MiniLM-L6-v2 is not installed: attention-lab models install minilm")
    start = time.perf_counter()
    model = registry.get("minilm")
    print(f"load (sha256 check + safetensors): {(time.perf_counter() - start) * 1000:.0f} ms")
    for tokens in (16, 128):
        text = text_of(tokens)
        forward = median_ms(model.trace, text, args.runs)
        answer = median_ms(partial(attention_answer, "minilm"), text, args.runs)
        size = len(attention_answer("minilm", text))
        print(f"{tokens:4d} tokens: forward {forward[0]:6.1f} ms (CPU {forward[1]:6.1f}); "
              f"forward + summaries + JSON {answer[0]:6.1f} ms (CPU {answer[1]:6.1f}), "
              f"{size / 1e6:.2f} MB; medians of {args.runs}")  # fmt: skip
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
