"""The glossary: each term of the product defined once, with the id that ``/glossary#<id>``
and every link to it use, and ``term``, the Jinja global that links a word of a page to its
definition with an accessible tooltip (shown on hover and on keyboard focus, named by
``aria-describedby``, hidden again by Escape: ``static/js/terms.js``).

Names and definitions are written in the product's notation (W^Q, d_k, …) and printed
with the ``math`` filter (``app.templating``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from app.templating import environment
from app.web.assets import site_url

GLOSSARY_URL = "/glossary"  # the one place the address is written (see templates/macros/nav.html)


@dataclass(frozen=True)
class Term:
    id: str
    name: str
    definition: str


TERMS: tuple[Term, ...] = (
    Term("d_model", "d_model", "The width of a token’s vector: the number of columns of X, "
         "and of the layer’s output."),
    Term("d_k", "d_k", "The width of a query and of a key: the columns of W^Q and W^K, and so "
         "of Q and K. The scores are divided by √d_k."),
    Term("d_v", "d_v", "The width of a value, and so of each output row: the columns of W^V, "
         "V and Z. It may differ from d_k."),
    Term("d_ff", "d_ff", "The width of the hidden layer of the feed-forward block that follows "
         "attention in a transformer layer (2048 in the original base model)."),
    Term("h", "h", "The number of heads. Usually d_k = d_v = d_model ÷ h, so h heads cost "
         "about as much as one head of width d_model."),
    Term("L_Q", "L_Q", "The number of queries: the rows of Q. Each query gets one row of "
         "weights and one output row."),
    Term("L_K", "L_K", "The number of keys, and of values: the rows of K and V. It equals L_Q "
         "in self-attention and is the source’s length in cross-attention."),
    Term("query", "query", "A row of Q = X W^Q: what a token looks for. q_2 is the query of "
         "row 2."),
    Term("key", "key", "A row of K = X W^K: what a token offers to the queries. k_1 is the key "
         "of row 1."),
    Term("value", "value", "A row of V = X W^V: what a token passes on. Each output row is a "
         "weighted average of the values."),
    Term("score", "score", "A query’s dot product with a key, s_ij = q_i·k_j: one cell of "
         "Q Kᵀ. It is large when the two vectors point the same way."),
    Term("scaling", "scaling", "Dividing the scores by √d_k. For random vectors with entries "
         "of variance 1, q·k has variance d_k, so the scaled scores keep a spread near 1 at "
         "any width."),
    Term("softmax", "softmax", "Turns a row of scores into weights: each score’s "
         "exponential divided by the sum of the row’s exponentials. Adding one number to "
         "every score of a row changes nothing."),
    Term("weight", "weight", "One entry of softmax’s output, p_j: how much of value j goes "
         "into the query’s output. A row’s weights are between 0 and 1 and add up to 1."),
    Term("output", "output", "Z = A V: row i is the weighted average of the value rows with "
         "row i’s weights. z_2 is the output of row 2."),
    Term("entropy", "entropy (in bits)", "How evenly a row of weights is spread: −Σ p·log₂ p. "
         "It is 0 bits when one key takes all the weight, and log₂ L_K bits when all keys "
         "share it equally."),
    Term("slope", "p(1 − p)", "The softmax’s slope: how fast a weight p moves when its own "
         "score moves. It is largest, 0.25, at p = 0.5 and near 0 when p is near 0 or 1."),
    Term("saturation", "saturation", "A softmax whose largest weight is near 1: the other "
         "weights are near 0 and every slope p(1 − p) is near 0, so training barely moves "
         "the scores. Large unscaled scores saturate; dividing by √d_k prevents it."),
    Term("flops", "FLOPs", "Floating-point operations, counted here as multiply-adds: "
         "multiplying an m × n matrix by an n × p matrix costs m·n·p."),
    Term("mask", "mask", "A rule for which keys each query may use. A blocked score becomes "
         "−∞ before the softmax, so its weight is exactly 0 and the row’s other weights still "
         "add up to 1. Blocked cells are hatched."),
    Term("causal", "causal mask", "The mask in which row i may use keys 1 to i only: a token "
         "sees itself and the tokens before it, never a later one."),
    Term("padding", "padding", "Filler tokens that make sequences the same length. A padding "
         "mask blocks them as keys for every query."),
    Term("self-attention", "self-attention", "Attention in which the queries, the keys and "
         "the values all come from the same sequence X."),
    Term("cross-attention", "cross-attention", "Attention in which the queries come from one "
         "sequence (X) and the keys and values from another (the source S), so L_Q and L_K "
         "may differ."),
    Term("positional-encoding", "positional encoding", "A vector added to each token’s row "
         "of X so that attention can tell positions apart; without it, shuffling the tokens "
         "only shuffles the outputs. The sinusoidal formula counts pos from 0: row t has "
         "pos = t − 1."),
    Term("head", "head", "One attention with its own W^Q, W^K and W^V. A layer runs h heads "
         "side by side, joins their outputs and mixes them with W^O."),
    Term("w_o", "W^O", "The output projection of a layer with several heads: it has h·d_v "
         "rows and d_model columns and mixes the joined head outputs back to width d_model."),
    Term("equivariant", "equivariant", "Shuffling the input rows shuffles the output rows in "
         "the same way. Attention without positions is equivariant, not invariant: the "
         "outputs move with their tokens."),
)  # fmt: skip

BY_ID: dict[str, Term] = {t.id: t for t in TERMS}

_math = environment.filters["math"]
# Tooltip ids must be unique within a page; a process-wide counter is (and never repeats
# within one page, whichever macro module calls term).
_tips = itertools.count(1)


@pass_context
def term(context: Context, key: str, text: str | None = None) -> Markup:
    """``text`` (default: the term's name) linked to its definition (under the request's
    root path), which shows on hover and on focus. An unknown key is a KeyError: a
    template naming no term is a bug."""
    entry = BY_ID[key]
    tip = f"tip-{entry.id}-{next(_tips)}"
    return Markup(
        '<span class="term-wrap"><a class="term" href="{url}#{id}" aria-describedby="{tip}">'
        '{label}</a><span class="term-tip" role="tooltip" id="{tip}">{definition}</span></span>'
    ).format(
        url=site_url(context, GLOSSARY_URL),
        id=entry.id,
        tip=tip,
        label=_math(entry.name if text is None else text),
        definition=_math(entry.definition),
    )
