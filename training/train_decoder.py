"""Train the tiny causal decoder the model pages open head by head (dev-time tool, torch).

The task makes heads a learner can name. Each sequence is a beginning-of-sequence token
followed by L distinct random letters repeated until the context is full:

    [BOS] q f x m b q f x m b q f x …

The first L letters cannot be predicted; every later letter can, by finding the previous
occurrence of the current letter and copying the letter after it. A two-layer
attention-only transformer learns that with two heads working together: a previous-token
head in layer 1 writes "the letter before me" into each row, and an induction head in
layer 2 matches the current letter against it and copies what follows.

The model (the numpy forward pass in app/models/decoder.py computes the same thing):

    x_0 = E[token] + P[position]
    for each layer l:  h = LN_l(x);  x = x + Σ_heads softmax(mask(q·kᵀ/√d_k))·v · W_o + b_o
                       (q = h·W_q + b_q, k = h·W_k + b_k, v = h·W_v + b_v, sliced per head)
    logits = LN_f(x) · U + c

Every tensor is stored in the row-vector convention the app uses (x·W), so no transpose
is needed to read it. Deterministic from --seed on one thread (same machine, same torch
build: the same bytes). Run from the repository root:

    pip install -e '.[training]'
    python training/train_decoder.py            # writes app/models/data/tiny-decoder.*
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import save_file
from torch import Tensor, nn

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
BOS = "[BOS]"
OUT_DIR = Path(__file__).resolve().parent.parent / "app" / "models" / "data"
NAME = "tiny-decoder"


@dataclass(frozen=True)
class Recipe:
    """Everything that decides the weights (written to the JSON beside them)."""

    seed: int = 0
    layers: int = 2
    heads: int = 4
    d_model: int = 64
    max_tokens: int = 41  # [BOS] + 40 letters
    min_period: int = 4
    max_period: int = 20
    steps: int = 3000
    batch: int = 64
    lr: float = 3e-3
    warmup: int = 100
    # No weight decay: a sharp head needs large query·key products, and nothing here
    # overfits (every batch is new data).
    weight_decay: float = 0.0
    # Letters may repeat within a period (drawn with replacement): a previous-token head
    # that also looks two or three letters back then mixes up which "a" is meant, so
    # training pays for a sharp one. Distinct letters let a blurred head do the job.
    distinct: bool = False
    ln_eps: float = 1e-5


class TinyDecoder(nn.Module):  # type: ignore[misc]
    """Attention-only pre-LN decoder; parameters named and shaped as they are stored."""

    def __init__(self, r: Recipe) -> None:
        super().__init__()
        d, vocab = r.d_model, len(ALPHABET) + 1
        self.r = r
        self.params = nn.ParameterDict()

        def p(name: str, *shape: int, scale: float = 0.0, fill: float = 0.0) -> None:
            t = torch.randn(*shape) * scale if scale else torch.full(shape, fill)
            self.params[name.replace(".", "__")] = nn.Parameter(t)

        p("tok_embed", vocab, d, scale=0.5)
        p("pos_embed", r.max_tokens, d, scale=0.5)
        for i in range(r.layers):
            p(f"layers.{i}.ln.weight", d, fill=1.0)
            p(f"layers.{i}.ln.bias", d)
            for w in ("q", "k", "v", "o"):
                p(f"layers.{i}.W_{w}", d, d, scale=1 / math.sqrt(d))
                p(f"layers.{i}.b_{w}", d)
        p("ln_f.weight", d, fill=1.0)
        p("ln_f.bias", d)
        p("unembed.W", d, vocab, scale=1 / math.sqrt(d))
        p("unembed.b", vocab)

    def w(self, name: str) -> Tensor:
        return self.params[name.replace(".", "__")]

    def ln(self, x: Tensor, name: str) -> Tensor:
        return nn.functional.layer_norm(
            x, (x.shape[-1],), self.w(f"{name}.weight"), self.w(f"{name}.bias"), self.r.ln_eps
        )

    def attend(self, h: Tensor, i: int) -> tuple[Tensor, Tensor]:
        """One layer's heads: (batch, n, d) -> output (batch, n, d), weights (b, heads, n, n)."""
        b, n, d = h.shape
        H, d_k = self.r.heads, d // self.r.heads

        def split(t: Tensor) -> Tensor:  # (b, n, d) -> (b, H, n, d_k): head = column block
            return t.view(b, n, H, d_k).transpose(1, 2)

        q, k, v = (
            split(h @ self.w(f"layers.{i}.W_{c}") + self.w(f"layers.{i}.b_{c}")) for c in "qkv"
        )
        scores = q @ k.transpose(-1, -2) / math.sqrt(d_k)
        blocked = torch.ones(n, n, dtype=torch.bool).triu(1)
        a = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=-1)
        z = (a @ v).transpose(1, 2).reshape(b, n, d)
        return z @ self.w(f"layers.{i}.W_o") + self.w(f"layers.{i}.b_o"), a

    def forward(self, tokens: Tensor) -> tuple[Tensor, list[Tensor]]:
        """tokens (batch, n) -> logits (batch, n, vocab), attentions per layer."""
        n = tokens.shape[1]
        x = self.w("tok_embed")[tokens] + self.w("pos_embed")[:n]
        attentions = []
        for i in range(self.r.layers):
            out, a = self.attend(self.ln(x, f"layers.{i}.ln"), i)
            x = x + out
            attentions.append(a)
        return self.ln(x, "ln_f") @ self.w("unembed.W") + self.w("unembed.b"), attentions

    def tensors(self) -> dict[str, Tensor]:
        return {k.replace("__", "."): v.detach().contiguous() for k, v in self.params.items()}


def batch(r: Recipe, g: torch.Generator, size: int) -> Tensor:
    """(size, max_tokens + 1) ids: [BOS], then L distinct letters repeated (L per row).

    One more than the context: the model reads the first max_tokens, predicts the last.
    """
    n = r.max_tokens
    L = torch.randint(r.min_period, r.max_period + 1, (size, 1), generator=g)
    if r.distinct:  # a random permutation of the alphabet per row
        letters = torch.rand(size, len(ALPHABET), generator=g).argsort(dim=1) + 1
    else:
        letters = torch.randint(1, len(ALPHABET) + 1, (size, len(ALPHABET)), generator=g)
    position = torch.arange(n).unsqueeze(0) % L  # letter j of a row is s[j mod L]
    bos = torch.zeros(size, 1, dtype=torch.long)
    return torch.cat([bos, letters.gather(1, position)], dim=1)


def held_out(model: TinyDecoder, r: Recipe, g: torch.Generator, count: int) -> dict[str, float]:
    """Loss and accuracy on [BOS] + s + s (two copies), the sequences the head tests use.

    "second half" = predicting letters 2..L of the second copy (its first letter cannot be
    known: after s, a new letter is as likely as the repeat); "first half" = letters 2..L of
    the first copy, which no model can predict (chance is 1 in the letters not yet seen).
    """
    first_loss = second_loss = second_hits = first_count = second_count = 0.0
    with torch.no_grad():
        for _ in range(count):
            L = int(torch.randint(r.min_period, r.max_period + 1, (1,), generator=g))
            s = torch.randperm(len(ALPHABET), generator=g)[:L] + 1
            seq = torch.cat([torch.zeros(1, dtype=torch.long), s, s]).unsqueeze(0)
            logits, _ = model(seq)
            logp = torch.log_softmax(logits[0, :-1], dim=-1)
            target = seq[0, 1:]
            nll = -logp[torch.arange(len(target)), target]
            first = slice(1, L)  # predicts s[1..L-1] of the first copy
            second = slice(L + 1, 2 * L)  # predicts s[1..L-1] of the second copy
            first_loss += float(nll[first].sum())
            first_count += L - 1
            second_loss += float(nll[second].sum())
            second_hits += float((logp[second].argmax(-1) == target[second]).sum())
            second_count += L - 1
    return {
        "first_half_loss": round(first_loss / first_count, 4),
        "second_half_loss": round(second_loss / second_count, 4),
        "second_half_accuracy": round(second_hits / second_count, 4),
        "sequences": count,
    }


def train(r: Recipe, log_every: int = 250) -> tuple[TinyDecoder, list[dict[str, Any]]]:
    torch.manual_seed(r.seed)
    g = torch.Generator().manual_seed(r.seed)
    model = TinyDecoder(r)
    opt = torch.optim.AdamW(model.parameters(), lr=r.lr, weight_decay=r.weight_decay)

    def lr_at(step: int) -> float:  # linear warm-up, then cosine to 10 %
        if step < r.warmup:
            return (step + 1) / r.warmup
        t = (step - r.warmup) / max(1, r.steps - r.warmup)
        return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    history: list[dict[str, Any]] = []
    for step in range(r.steps):
        tokens = batch(r, g, r.batch)
        logits, _ = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % log_every == 0 or step == 0:
            history.append({"step": step + 1, "train_loss": round(loss.item(), 4)})
            print(f"step {step + 1:5d}  loss {loss.item():.4f}", flush=True)
    return model, history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=Recipe.seed)
    parser.add_argument("--steps", type=int, default=Recipe.steps)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    r = Recipe(seed=args.seed, steps=args.steps)

    start, cpu_start = time.perf_counter(), time.process_time()
    model, history = train(r)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    model.eval()
    evaluation = held_out(model, r, torch.Generator().manual_seed(r.seed + 1), count=500)
    print(json.dumps(evaluation), f"trained in {seconds:.1f} s ({cpu:.1f} s of CPU)", flush=True)

    args.out.mkdir(parents=True, exist_ok=True)
    weights = args.out / f"{NAME}.safetensors"
    save_file(model.tensors(), str(weights))
    config = {
        "name": NAME,
        "architecture": "attention-only pre-LN causal decoder (see training/README.md)",
        "alphabet": ALPHABET,
        "bos": BOS,
        "vocab": [BOS, *ALPHABET],
        "layers": r.layers,
        "heads": r.heads,
        "d_model": r.d_model,
        "d_k": r.d_model // r.heads,
        "max_tokens": r.max_tokens,
        "ln_eps": r.ln_eps,
        "recipe": asdict(r),
        "history": history,
        "held_out": evaluation,
        "sha256": hashlib.sha256(weights.read_bytes()).hexdigest(),
    }
    (args.out / f"{NAME}.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"wrote {weights} ({weights.stat().st_size} bytes) sha256 {config['sha256']}")


if __name__ == "__main__":
    main()
