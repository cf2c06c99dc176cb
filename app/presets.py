"""Named examples, each a complete ``POST /api/v1/attention`` request body.

The running example "I love LLMs" (3 tokens × 4 numbers, from the chapter) comes first;
it is the default state of the page and the example body in the API docs.
"""

from __future__ import annotations

import copy
import math
from typing import Any

RUNNING_EXAMPLE: dict[str, Any] = {
    "tokens": ["I", "love", "LLMs"],
    "x": [[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]],
    "w_q": [[0, -1, 1, 1], [0, 1, 0, 0], [1, 0, 0, -1], [1, 1, 0, 1]],
    "w_k": [[0, -1, 0, 1], [-1, 1, 0, 0], [1, -1, 1, -1], [1, 1, 0, 1]],
    "w_v": [[0, 0, 1, 0], [1, 0, 0, 1], [0, 1, 0, 0], [1, 0, 0, 0]],
    "scale": True,
    "mask": "none",
    "heads": 1,
}

# Our W^O for two heads of width 2 (used by the "two-heads" preset; the tutorial has none).
W_O_TWO_HEADS = [[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, -1, 1], [1, 0, 0, 0]]

# A second sequence for cross-attention: a translation's source, its own rows S. A
# decoder writing English reads the French sentence it translates. The numbers are the
# rows of X plus (1, 1, 0, 1), so the weights are the ones FIGURES.md works out.
TRANSLATION_SOURCE: dict[str, Any] = {
    "tokens": ["J'", "aime", "les", "LLM"],
    "x": [*RUNNING_EXAMPLE["x"], [1, 1, 0, 1]],
}

_PRESETS: dict[str, dict[str, Any]] = {
    "i-love-llms": {
        "title": "I love LLMs",
        "description": 'The running example of the tutorial "Self-Attention": 3 tokens, '
        "d_model = d_k = d_v = 4.",
        "body": RUNNING_EXAMPLE,
    },
    "cross-attention": {
        "title": "Cross-attention: translating J'aime les LLM",
        "description": "A translation in progress: the decoder has written I love (2 "
        "queries, from X) and reads the French source J'aime les LLM (4 keys and values, "
        "from its own rows S). The weights are 2 × 4, not square.",
        "body": {
            **RUNNING_EXAMPLE,
            "tokens": ["I", "love"],
            "x": RUNNING_EXAMPLE["x"][:2],
            "source": copy.deepcopy(TRANSLATION_SOURCE),
        },
    },
    "causal": {
        "title": "I love LLMs, causal mask",
        "description": "The running example as a decoder sees it: each token attends only "
        "to itself and the tokens before it.",
        "body": {**RUNNING_EXAMPLE, "mask": "causal"},
    },
    "two-heads": {
        "title": "I love LLMs, two heads",
        "description": "Two heads of width 2 (divisor √2 each), concatenated and mixed by our W^O.",
        "body": {**RUNNING_EXAMPLE, "heads": 2, "w_o": W_O_TWO_HEADS},
    },
}

# Labs I (LABS.md A3, A4, B1): direct mode, so the keys carry their own labels.
WHO_KEYS = [[0.4, 0.5, 0.6], [0.2, 0.1, 0.3], [0.6, 0.7, 0.8]]
DOG_TRUCK_KEYS = [[0.9, 0, 0.1], [0, 0.9, 0.1], [0.1, 0, 0.9]]

_PRESETS.update(
    {
        "two-tokens": {
            "title": "Two tokens, step by step",
            "description": 'The two-token computation of the course module "Attention" '
            "(lab B1): d_k = 2, scaled, causal. Q and K are our reconstruction, chosen to give "
            "its printed numbers.",
            "body": {
                "tokens": ["token 1", "token 2"],
                "q": [[3, -3], [1, 1]],
                "k": [[-3, 3], [1, 1]],
                "v": [[0, -1], [1, 2]],
                "scale": True,
                "mask": "causal",
                "heads": 1,
            },
        },
        "who-is-the-best": {
            "title": "One query, worked: who",
            "description": 'The "who" query of "Chapter 16: Self-Attention and the '
            'Transformer" against three 3-D keys, values equal to the keys (lab A3): our '
            "reconstruction of its table.",
            "body": {
                "tokens": ["who"],
                "key_tokens": ["is", "the", "best"],
                "q": [[0.1, 0.2, 0.3]],
                "k": WHO_KEYS,
                "v": WHO_KEYS,
                "scale": True,
                "mask": "none",
                "heads": 1,
            },
        },
        "dog-truck-barked": {
            "title": "Queries that commit or average",
            "description": "Keys for animal, vehicle and verb, V = K (lab A4). Our queries: "
            "animal-seeking and vehicle-seeking (length 5) commit, the neutral one cannot.",
            "body": {
                "tokens": ["animal?", "vehicle?", "neutral"],
                "key_tokens": ["dog", "truck", "barked"],
                "q": [[5, 0, 0], [0, 5, 0], [1, 1, 1]],
                "k": DOG_TRUCK_KEYS,
                "v": DOG_TRUCK_KEYS,
                "scale": True,
                "mask": "none",
                "heads": 1,
            },
        },
    }
)

# ---- The order and heads labs (LABS.md E1 and F1): appended, so the presets above keep
# their order.

# E1 (ours): "The" and "the" share one embedding, so only order tells them apart.
_DOG_BIT_MAN_X = {"the": [0, 0, 1, 1], "dog": [0, 1, 0, 1], "bit": [1, 0, 0, 1],
                  "man": [1, 1, 0, 1]}  # fmt: skip
_PRESETS["dog-bit-man"] = {
    "title": "The dog bit the man",
    "description": "Our example for permutation equivariance: the running example's W^Q, "
    'W^K, W^V on five tokens; "The" and "the" share one embedding. Shuffle the rows '
    "and each output travels with its token.",
    "body": {
        **RUNNING_EXAMPLE,
        "tokens": ["The", "dog", "bit", "the", "man"],
        "x": [_DOG_BIT_MAN_X[t.lower()] for t in ("The", "dog", "bit", "the", "man")],
    },
}

# F1 (ours): four hand-set heads on one sentence. Each head's pattern, as
# {query: {key: weight}}; a query not listed attends to itself alone.
FOUR_HEADS_TOKENS = ["The", "animal", "didn't", "cross", "the", "street", "because", "it",
                     "was", "tired"]  # fmt: skip
FOUR_HEADS_NAMES = ["previous word", "coreference", "verb → subject", "start and because"]
_N = len(FOUR_HEADS_TOKENS)
FOUR_HEADS_PATTERNS: list[dict[int, dict[int, float]]] = [
    {i: {max(i - 1, 0): 1.0} for i in range(_N)},
    {7: {1: 1.0}},
    {2: {1: 1.0}, 3: {1: 1.0}, 8: {7: 1.0}, 9: {7: 1.0}},
    {i: {0: 0.5, 6: 0.5} for i in range(_N)},
]
# A blocked key's score in the construction below: e^-1000 is exactly 0 in float64.
_OFF = -1000.0


def _four_heads_body() -> dict[str, Any]:
    """Direct mode, 4 heads of width 10, scale off. Head h's query row i is the log of its
    pattern row (−1000 where the pattern is 0) and its keys and values are the identity,
    so its scores are that log, its weights the pattern and its output the pattern too."""
    q = [[0.0] * (4 * _N) for _ in range(_N)]
    for h, pattern in enumerate(FOUR_HEADS_PATTERNS):
        for i in range(_N):
            row = pattern.get(i, {i: 1.0})
            for j in range(_N):
                q[i][h * _N + j] = math.log(row[j]) if j in row else _OFF
    identity = [[1.0 if j % _N == i else 0.0 for j in range(4 * _N)] for i in range(_N)]
    return {"tokens": FOUR_HEADS_TOKENS, "q": q, "k": identity, "v": identity,
            "scale": False, "mask": "none", "heads": 4}  # fmt: skip


_PRESETS["four-heads"] = {
    "title": "Four hand-set heads",
    "description": "Our example: four heads on \"The animal didn't cross the street because "
    'it was tired" with set weights (previous word; "it" → "animal"; verb → subject; '
    'the start and "because"). Trained heads are found, not assigned.',
    "body": _four_heads_body(),
}

DEFAULT_PRESET = "i-love-llms"


def preset_ids() -> list[str]:
    return list(_PRESETS)


def preset_summaries() -> list[dict[str, str]]:
    """Id, title and description of every preset, running example first."""
    return [
        {"id": k, "title": p["title"], "description": p["description"]} for k, p in _PRESETS.items()
    ]


def get_preset(preset_id: str) -> dict[str, Any] | None:
    """A deep copy of the preset (callers may edit it), or None if there is no such id."""
    preset = _PRESETS.get(preset_id)
    if preset is None:
        return None
    return {"id": preset_id, "title": preset["title"], "description": preset["description"],
            "body": copy.deepcopy(preset["body"])}  # fmt: skip
