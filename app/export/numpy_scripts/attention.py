""" "Copy as NumPy": a self-contained Python script (numpy only) that recomputes a state.

The script holds the inputs as literals (full precision), rebuilds the mask, runs every
head, concatenates, applies W^O, and prints each stage under the same names the JSON and
CSV exports use (``q``, ``head1_weights``, ``output``, …) plus Figure 12's stretched
softmax. Its arithmetic is the engine's, operation for operation, so what it prints equals
the page's numbers (the tests run it and compare to 1e-9). Pure: stdlib + numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.attention import AttentionInput, Stages
from app.export.tables import number_text
from app.inputs.view import ViewState

TEXTBOOK_ROW = (1.0, 2.0, 3.0)

_SOFTMAX = '''
def softmax(s):
    """Softmax of each row: subtract the row maximum first (no overflow);
    a row whose every key is blocked (all -inf) becomes zeros, not NaN."""
    m = s.max(axis=1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(m), m, 0.0))
    total = e.sum(axis=1, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def show(name, m):
    print(f"{name} =", m, sep="\\n")
'''

_HEADS = """
d_k, d_v = Q.shape[1] // heads, V.shape[1] // heads  # per head
outputs = []
for h in range(heads):
    q, k, v = Q[:, h * d_k:(h + 1) * d_k], K[:, h * d_k:(h + 1) * d_k], V[:, h * d_v:(h + 1) * d_v]
    scores = q @ k.T                                      # L_Q x L_K
    scaled = scores / (np.sqrt(d_k) if scale else 1.0)
    masked = np.where(allowed, scaled, -np.inf)           # blocked keys get -inf
    weights = softmax(masked)                             # each row sums to 1
    outputs.append(weights @ v)                           # L_Q x d_v
    tag = f"head{h + 1}_" if heads > 1 else ""
    stages = [("q", q), ("k", k), ("v", v)] if heads > 1 else []
    stages += [("scores", scores), ("scaled", scaled), ("masked", masked), ("weights", weights)]
    if heads > 1 or W_O is None:
        stages.append(("output", outputs[-1]))
    for name, m in stages:
        show(tag + name, m)
    if h == {head}:
        head_scaled = scaled
concat = np.concatenate(outputs, axis=1)
if heads > 1 or W_O is not None:
    show("concat", concat)
output = concat if W_O is None else concat @ W_O
if heads > 1 or W_O is not None:
    show("output", output)
"""


def _literal(m: np.ndarray[Any, Any], name: str, dtype: str = "float") -> str:
    """``NAME = np.array([...], dtype=...)`` with one row per line, full precision."""
    if dtype == "bool":
        rows = [", ".join("True" if v else "False" for v in row) for row in m.tolist()]
    else:
        rows = [", ".join(number_text(v) for v in row) for row in m.tolist()]
    body = "".join(f"    [{r}],\n" for r in rows)
    return f"{name} = np.array([\n{body}], dtype={dtype})\n"


def _inputs(inp: AttentionInput, stages: Stages) -> str:
    out = f"tokens = {list(stages.tokens)!r}\n"
    if inp.x is None:  # direct mode
        assert inp.q is not None
        assert inp.k is not None
        assert inp.v is not None
        out += f"key_tokens = {list(stages.key_tokens)!r}\n"
        return out + "".join(_literal(m, n) for n, m in (("Q", inp.q), ("K", inp.k), ("V", inp.v)))
    assert inp.w_q is not None
    assert inp.w_k is not None
    assert inp.w_v is not None
    out += _literal(inp.x, "X")
    source = "X"
    if inp.source_x is not None:
        out += f"key_tokens = {list(stages.key_tokens)!r}  # the source sequence S\n"
        out += _literal(inp.source_x, "S")
        source = "S"
    else:
        out += "key_tokens = tokens  # self-attention: keys are the same tokens\n"
    out += _literal(inp.w_q, "W_Q") + _literal(inp.w_k, "W_K") + _literal(inp.w_v, "W_V")
    return out + f"Q, K, V = X @ W_Q, {source} @ W_K, {source} @ W_V\n"


def _mask(inp: AttentionInput) -> str:
    out = "allowed = np.ones((len(tokens), len(key_tokens)), dtype=bool)  # query i may see key j\n"
    if inp.mask == "causal":
        out += "allowed &= np.tril(np.ones_like(allowed))  # causal: key j only when j <= i\n"
    if inp.padding is not None:
        flags = ", ".join(str(bool(p)) for p in inp.padding)
        out += f"allowed &= ~np.array([{flags}])[None, :]  # padding keys are blocked\n"
    if inp.allowed is not None:
        out += _literal(inp.allowed, "custom", "bool") + "allowed &= custom\n"
    return out


def _one_line(text: str) -> str:
    """Text safe inside a ``#`` comment: no line breaks, no control characters."""
    return "".join(c for c in " ".join(text.split()) if c.isprintable())


def numpy_snippet(inp: AttentionInput, stages: Stages, view: ViewState, title: str) -> str:
    """The script for ``inp`` (whose computation is ``stages``) and Figure 12's view,
    already checked against the stages (``app.inputs.resolve``)."""
    head, focus, stretch = view.head, view.for_tokens(len(stages.tokens)).focus_row, view.stretch
    if view.row == "focus":
        row = f"head_scaled[{focus}]  # the focus token's scaled scores (head {head + 1})"
    else:
        row = f"np.array([{', '.join(number_text(v) for v in TEXTBOOK_ROW)}])  # textbook row"
    w_o = "None" if inp.w_o is None else "W_O"
    parts = [
        f"# Attention Lab: {_one_line(title)}\n",
        '"""softmax(Q K^T / sqrt(d_k)) V with numpy alone; prints every stage."""\n',
        "import numpy as np\n\n",
        "np.set_printoptions(precision=10, suppress=True, linewidth=120)\n\n",
        _inputs(inp, stages),
        "" if inp.w_o is None else _literal(inp.w_o, "W_O"),
        f"W_O = {w_o}\n" if inp.w_o is None else "",
        f"scale = {inp.scale!r}  # divide the scores by sqrt(d_k)\n",
        f"heads = {inp.heads}\n",
        _mask(inp),
        _SOFTMAX,
        '\nshow("q", Q)\nshow("k", K)\nshow("v", V)\n',
        _HEADS.replace("{head}", str(head)),
        f"\n# Figure 12: the same softmax after multiplying a row by stretch = {stretch:g}\n",
        f"row = {row}\n",
        f'show("softmax_stretched", softmax(row[None, :] * {stretch!r}))\n',
    ]
    return "".join(parts)
