"""The attention engine: pure numpy, float64, no web library (a test enforces it).

Public names: ``run`` and its ``AttentionInput``/``Stages``, ``softmax_stage`` for
Figure 12, and ``InputError`` for inputs that cannot be computed with.
"""

import os

# One BLAS thread per computation unless the operator says otherwise. The matrices are at
# most 512 × 512, the server already runs requests in parallel (thread pool, workers),
# and BLAS threads spinning against them made L = 512 take 188 ms instead of 16 ms on a
# busy 2-core machine. Effective only when this is numpy's first import (as under uvicorn).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from app.attention.pipeline import (  # noqa: E402
    AttentionInput,
    HeadStages,
    InputError,
    Stages,
    run,
)
from app.attention.softmax import SoftmaxStage, softmax_stage  # noqa: E402

__all__ = [
    "AttentionInput",
    "HeadStages",
    "InputError",
    "SoftmaxStage",
    "Stages",
    "run",
    "softmax_stage",
]
