"""The attention engine: pure numpy, float64, no web library (a test enforces it).

Public names: ``run`` and its ``AttentionInput``/``Stages``, ``softmax_stage`` for
Figure 12, and ``InputError`` for inputs that cannot be computed with.
"""

from app.attention.pipeline import (
    AttentionInput,
    HeadStages,
    InputError,
    Stages,
    run,
)
from app.attention.softmax import SoftmaxStage, softmax_stage

__all__ = [
    "AttentionInput",
    "HeadStages",
    "InputError",
    "SoftmaxStage",
    "Stages",
    "run",
    "softmax_stage",
]
