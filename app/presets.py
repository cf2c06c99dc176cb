"""Named examples, each a complete ``POST /api/v1/attention`` request body.

The running example "I love LLMs" (3 tokens × 4 numbers, from the chapter) comes first;
it is the default state of the page and the example body in the API docs.
"""

from __future__ import annotations

import copy
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

# The chapter's W^O for two heads of width 2 (used by the "two-heads" preset).
W_O_TWO_HEADS = [[0, 0, 1, 1], [1, 1, 0, 0], [0, 1, -1, 1], [1, 0, 0, 0]]

_PRESETS: dict[str, dict[str, Any]] = {
    "i-love-llms": {
        "title": "I love LLMs",
        "description": "The chapter's running example: 3 tokens, d_model = d_k = d_v = 4.",
        "body": RUNNING_EXAMPLE,
    },
    "cross-attention": {
        "title": "Cross-attention: 2 queries, 4 source tokens",
        "description": "Q from the first two rows of X; K and V from a 4-token source "
        "(X plus the row 1 1 0 1). The weights are 2 × 4, not square.",
        "body": {
            **RUNNING_EXAMPLE,
            "tokens": ["I", "love"],
            "x": RUNNING_EXAMPLE["x"][:2],
            "source": {
                "x": [*RUNNING_EXAMPLE["x"], [1, 1, 0, 1]],
                "tokens": ["I", "love", "LLMs", "!"],
            },
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
        "description": "Two heads of width 2 (divisor √2 each), concatenated and mixed by W^O.",
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
            "description": "The course module's two-token computation (lab B1): d_k = 2, "
            "scaled, causal. Q and K are reconstructed to reproduce its printed numbers.",
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
            "description": "The textbook chapter's 'who' query against three 3-D keys, "
            "values equal to the keys (lab A3); the table is rebuilt.",
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
            "description": "Keys for animal, vehicle and verb, V = K (lab A4). The queries "
            "are reconstructed: animal-seeking and vehicle-seeking (length 5) commit, the "
            "neutral one cannot.",
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
