"""The papers the three labs of issue 31 follow (``flash``, ``generation``, ``rotary``), as
data for the second half of ``/sources`` (``app.web.reference``): each with its authors as
the labs name them, its title, where it appeared, its arXiv identifier, how the labs' intros
name it (``named``: the words ``tests/http/test_reference_pages.py`` finds in a lab's
intro, so a paper no lab cites cannot stay listed) and the lab entries that use it.

Unlike the five sources (``app.web.sources``), the labs name these papers by title in
their own text; this page gathers them with a link to each paper's arXiv abstract.
"""

from __future__ import annotations

from dataclasses import dataclass

ARXIV = "https://arxiv.org/abs/"


@dataclass(frozen=True)
class Paper:
    id: str
    authors: str
    title: str
    venue: str  # where and when it appeared
    arxiv: str  # the arXiv identifier, e.g. 2205.14135
    named: str  # how a lab's intro names it
    uses: tuple[str, ...]  # what the labs take from it, by lab entry

    @property
    def href(self) -> str:
        return ARXIV + self.arxiv


PAPERS: tuple[Paper, ...] = (
    Paper(
        "flashattention",
        "Dao et al.",
        "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
        "NeurIPS 2022",
        "2205.14135",
        "Dao et al., 2022",
        (
            "Algorithm 1's block sizes, B_c = ⌈M / 4d⌉ and B_r = min(⌈M / 4d⌉, d), and its "
            "tiles (lab H1); the running max and sum of each row, rescaled when a larger "
            "score arrives (H2).",
            "Theorem 2's orders of memory traffic, Θ(N·d + N²) and Θ(N²·d² / M), compared "
            "as orders of growth (H3).",
        ),
    ),
    Paper(
        "online-softmax",
        "Milakov and Gimelshein",
        "Online normalizer calculation for softmax",
        "2018",
        "1805.02867",
        "Milakov and Gimelshein",
        ("The online normalizer that H2 steps through, one tile of keys at a time.",),
    ),
    Paper(
        "pagedattention",
        "Kwon et al.",
        "Efficient Memory Management for Large Language Model Serving with PagedAttention",
        "SOSP 2023",
        "2309.06180",
        "PagedAttention",
        (
            "Decoding against the cache, one new row of K and V a step (lab I1, §2.2).",
            "The cache's bytes per token, 2 × layers × kv_heads × d_head × bytes a value, "
            "and OPT-13B's 800 KB a token (I2, §3).",
        ),
    ),
    Paper(
        "multi-query",
        "Shazeer",
        "Fast Transformer Decoding: One Write-Head is All You Need",
        "2019",
        "1911.02150",
        "One Write-Head is All",
        ("Multi-query attention: every query head reads one key/value head (lab I3).",),
    ),
    Paper(
        "grouped-query",
        "Ainslie et al.",
        "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints",
        "EMNLP 2023",
        "2305.13245",
        "GQA",
        (
            "Grouped-query attention, and a grouped state made by mean-pooling the key and "
            "value heads of each group (lab I3).",
        ),
    ),
    Paper(
        "longformer",
        "Beltagy et al.",
        "Longformer: The Long-Document Transformer",
        "2020",
        "2004.05150",
        "Longformer",
        ("The sliding window: each token reads only the last W keys (lab I4).",),
    ),
    Paper(
        "mistral",
        "Jiang et al.",
        "Mistral 7B",
        "2023",
        "2310.06825",
        "Mistral 7B",
        (
            "The window's reach growing with the layers, and the rolling buffer of W slots "
            "(lab I4); the model's sizes among the cache's presets (I2).",
        ),
    ),
    Paper(
        "attention-sinks",
        "Xiao et al.",
        "Efficient Streaming Language Models with Attention Sinks",
        "ICLR 2024",
        "2309.17453",
        "Attention Sinks",
        ("Keeping the first k tokens beside the window, and what evicting them does (I4).",),
    ),
    Paper(
        "roformer",
        "Su et al.",
        "RoFormer: Enhanced Transformer with Rotary Position Embedding",
        "2021",
        "2104.09864",
        "RoFormer",
        (
            "Rotating each pair of q and k by m·θ_i, θ_i = base^(−2i/d), so a score reads "
            "only the offset m − n (lab J1); the wavelengths of base 10,000 (J2).",
        ),
    ),
    Paper(
        "alibi",
        "Press, Smith and Lewis",
        "Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation",
        "ICLR 2022",
        "2108.12409",
        "Train Short, Test Long",
        (
            "ALiBi's bias −m·(i − j) before the softmax and its slopes for any head count, "
            "a power of two or not (lab J3).",
        ),
    ),
)
