"""The five sources the product follows, as data for ``/sources`` (``app.web.reference``):
each with the id that quotations link to (``/sources#<id>``), its title, its author where
known, what the product takes from it, and what is our own example or our reconstruction
of material the source does not print, and why.

Text is written in the product's notation (W^Q, d_k, …: the template prints it with the
``math`` filter).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    kind: str  # what it is, in a learner's words
    author: str | None
    takes: tuple[str, ...]  # what the product takes from it, and where
    ours: tuple[str, ...]  # our example or our reconstruction, and why


SOURCES: tuple[Source, ...] = (
    Source(
        "tutorial",
        "Self-Attention",
        "a tutorial",
        "Hao Ma",
        (
            "The running example “I love LLMs”: three tokens with four numbers each, and "
            "W^Q, W^K and W^V (the main page, Figures 3–12).",
            "The numbering of Figures 1–13, so a course that cites “Figure 6” finds it here.",
            "“I love LLMs” against “LLMs love I” (lab E3, the reversed sentence).",
        ),
        (
            "The tutorial counts sequence positions from 0 and matrix rows from 1; we count "
            "both from 1 (row 2 is love), as the notation key says.",
            "The tutorial has no output projection W^O: the multi-head W^O of lab F2 comes "
            "from the course module.",
        ),
    ),
    Source(
        "course-module",
        "Attention",
        "a course module (sections 6.1–6.6)",
        None,
        (
            "The two-token stepper (lab B1), the score-variance and saturation experiments "
            "(labs C1 and C2), kinds of mask and how they combine (lab D1), shuffling tokens "
            "and adding positions (labs E1 and E2), four heads and W^O (labs F1–F3), and the "
            "cost of a layer (labs G1 and G3).",
        ),
        (
            "The stepper's Q and K: the module prints the dot products and the values but not "
            "its inputs, so ours reproduce every number it prints.",
            "The four heads' weights (F1): the module names what each head attends to but "
            "prints no weights, so the weights are our example.",
            "The total FLOPs of G1: our reconstruction from the module's terms and its "
            "crossover N > 2·d_model.",
            "The sliding-window mask of D1 is our example: the module only names it.",
        ),
    ),
    Source(
        "qkv-notes",
        "Queries, keys and values",
        "section 4 of a course",
        None,
        (
            "The softmax table of one query with scores 2, 1 and 0 (lab A1) and the question "
            "of lab A2.",
            "The flat line: dividing by √d_k holds the weights still at every width (lab C4).",
            "One map against two (lab A5), the empty row (lab D3), one divisor per head width "
            "(lab F3) and the count of the three maps (lab G2).",
        ),
        (
            "Lab C4's model, raw scores (2, 1, 0) times √d at width d, is our reconstruction "
            "of the notes' synthetic figure.",
        ),
    ),
    Source(
        "per-position-notes",
        "Inside Transformers, Part 3: Scaled dot-product attention",
        "notes on one position at a time",
        None,
        (
            "The per-position view of lab B2: the output of one token, equation by equation, "
            "and the causal mask as j ≤ i, applied before the softmax.",
            "A raw x_i·x_j score without projections (lab A5).",
        ),
        (
            "The notes count positions from 0 (their “token 2” is our row 3); lab B2 names "
            "the token beside its row.",
        ),
    ),
    Source(
        "textbook",
        "Chapter 16: Self-Attention and the Transformer",
        "a textbook chapter",
        None,
        (
            "“One query, worked” (lab A3) and keys that disagree (lab A4).",
            "The scaling table over d_k (lab C3), masking before or after the softmax "
            "(lab D2), sinusoidal positions (lab E2), and the base model's sizes for the "
            "cost labs (d_model = 512, h = 8, d_ff = 2048; labs G1–G3).",
        ),
        (
            "Tables the chapter describes but does not print are rebuilt from its numbers: "
            "A3's table, A4's queries, C3's table, and the score matrix of the masks lab, "
            "whose first row gives the chapter's 0.4551.",
        ),
    ),
)

BY_ID: dict[str, Source] = {s.id: s for s in SOURCES}
