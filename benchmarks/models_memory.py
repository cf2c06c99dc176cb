"""The worker's memory with the real encoder loaded, under the worst admissible mix.

Starts one uvicorn worker (benchmarks/load_kit.py: a watchdog reads its RSS every 10 ms)
and prints its RSS: started; after the first model request (the encoder loaded: weights
read once per worker); then the peak while, all at once, ``--count`` clients send the
largest model request (a 128-token text to POST /api/v1/models/minilm/attention, a
10 MB answer) and ``--count`` more the largest legal POST /api/v1/attention body (the
load.py maxbody scenario). With ATTENTION_LAB_MAX_HEAVY=1 one heavy request runs at a
time and the rest get 503 before any work: the peak is the model plus the largest single
request plus the bodies being refused. The pod's limit (deploy/kubernetes.yaml) is 768 MiB.

    python benchmarks/models_memory.py            # 6 + 6 clients
    python benchmarks/models_memory.py --count 12
    python benchmarks/models_memory.py --all-models   # the decoder and SmolLM2 loaded too

``--all-models`` loads the tiny decoder and SmolLM2 as well (one request each), then adds
SmolLM2's largest requests to the mix: the longest text its attention price admits (its
trace keeps q, k and v) and a 32-step generation, each admitted once.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.load_kit import ROOT, post, server

MIB = 2**20
# 126 words of one token each, with [CLS] and [SEP]: 128 tokens, the most the model takes.
TEXT_128 = " ".join(("the cat sat on the mat while a dog slept " * 13).split()[:126])


def largest_attention_body() -> bytes:
    rng = random.Random(3)

    def big() -> list[list[float]]:
        return [[rng.uniform(-1e5, 1e5) for _ in range(512)] for _ in range(512)]

    body = {"x": big(), "source": {"x": big()}, "w_q": big(), "w_k": big(), "w_v": big(),
            "w_o": big(), "allowed": [[True] * 512] * 512}  # fmt: skip
    return json.dumps(body, separators=(",", ":")).encode()


Job = tuple[str, str, bytes]


def smollm2_longest() -> str:
    """The longest text of one-token words SmolLM2's attention price admits by default."""
    from app.api.models_api import shape_of
    from app.inputs.model_text import ModelText, plan_attention
    from app.settings import Settings

    words = TEXT_128.split()
    budget, shape = Settings().max_cells, shape_of("smollm2")

    def cells(n: int) -> int:
        return plan_attention(ModelText(text=" ".join(words[:n])), shape).cost.cells

    fits = [n for n in range(1, len(words) + 1) if cells(n) <= budget]
    return " ".join(words[: max(fits)])


def mix(port: int, first: list[Job], then: list[Job]) -> dict[tuple[str, int], int]:
    """``first`` all at once, ``then`` half a second later (while the first still run);
    how many of each kind got each status."""
    results: list[tuple[str, int]] = []

    def one(kind: str, path: str, data: bytes) -> None:
        results.append((kind, post(port, path, data, 300)[0]))

    threads = []
    for batch in (first, then):
        for job in batch:
            threads.append(threading.Thread(target=one, args=job))
            threads[-1].start()
        time.sleep(0.5)
    for t in threads:
        t.join(600)
    return dict(Counter(results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=6, help="clients of each kind")
    parser.add_argument("--app-dir", default=str(ROOT))
    parser.add_argument("--kill-mb", type=int, default=1536)
    parser.add_argument("--limit-mb", type=int, default=768)
    parser.add_argument("--all-models", action="store_true", help="load the decoder and SmolLM2")
    args = parser.parse_args()
    model_body = json.dumps({"text": TEXT_128}).encode()
    big = largest_attention_body()
    print(f"largest legal POST /api/v1/attention body: {len(big) / 1e6:.0f} MB")
    with server(args) as srv:
        print(f"started: RSS {srv.rss() / MIB:.0f} MiB")
        status, _ = post(srv.port, "/api/v1/models/minilm/attention", b'{"text": "I love LLMs"}')
        print(f"after the first model request ({status}): RSS {srv.rss() / MIB:.0f} MiB")
        model = ("model 128 tokens", "/api/v1/models/minilm/attention", model_body)
        largest = ("attention 512", "/api/v1/attention", big)
        pairs = [(largest, model), (model, largest)]
        if args.all_models:
            for path, body in (("tiny-decoder/attention", b'{"text": "abab"}'),
                               ("smollm2/attention", b'{"text": "I love LLMs"}')):  # fmt: skip
                status, _ = post(srv.port, f"/api/v1/models/{path}", body, 300)
                print(f"after {path} ({status}): RSS {srv.rss() / MIB:.0f} MiB")
            smol = ("smollm2 longest", "/api/v1/models/smollm2/attention",
                    json.dumps({"text": smollm2_longest()}).encode())  # fmt: skip
            steps = ("smollm2 32 steps", "/api/v1/models/smollm2/generate",
                     json.dumps({"text": "The river runs past the old mill and",
                                 "steps": 32}).encode())  # fmt: skip
            pairs += [(smol, largest), (steps, smol), (largest, steps)]
        for first, then in pairs:  # each kind admitted once
            results = mix(srv.port, [first] * args.count, [then] * args.count)
            print(f"{first[0]} first, then {then[0]} ({args.count} + {args.count}): {results}; "
                  f"peak so far {srv.peak / MIB:.0f} MiB")  # fmt: skip
        print(srv.memory_line())


if __name__ == "__main__":
    main()
