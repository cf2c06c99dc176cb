"""What the why-scale figures share: the d_k steps, the run sizes (full and preview),
and the seed bound. PURE.
"""

from __future__ import annotations

import math

POW2 = [2**i for i in range(11)]  # 1 … 1024


DRAWS = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000]


MODULE_WIDTHS = (32, 64, 128, 256)


MODULE_VAR = (0.9987, 1.0040, 1.0029, 1.0038)


PREVIEW_DRAWS = 5_000


PREVIEW_TRIALS = 200


FIXED_HALF = 4 * math.sqrt(1024)


SEED_MAX = 2**32 - 1
