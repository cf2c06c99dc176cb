"""The attention engine: pure numpy, float64, no web library (a test enforces it).

Public names: ``run`` and its ``AttentionInput``/``Stages``, ``softmax_stage`` for
Figure 12, and ``InputError`` for inputs that cannot be computed with.
"""

from app.attention.options import Options
from app.attention.pipeline import (
    AttentionInput,
    HeadStages,
    InputError,
    Stages,
    run,
)
from app.attention.softmax import SoftmaxStage, softmax_stage
from app.attention.tiled import TileTrace

__all__ = [
    "AttentionInput",
    "HeadStages",
    "InputError",
    "Options",
    "SoftmaxStage",
    "Stages",
    "TileTrace",
    "run",
    "softmax_stage",
]
