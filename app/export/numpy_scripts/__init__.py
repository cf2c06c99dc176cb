"""The ONE "Copy as NumPy" generator: every standalone script the app writes (numpy and
the standard library only; each prints its numbers so a test can run it and compare).

* ``attention.numpy_snippet``: a main-page state through every stage (``GET
  /api/v1/export?format=numpy``, the export CLI);
* ``experiments.numpy_script``: a seeded experiment of the why-scale lab (``POST
  /api/v1/experiments/{name}/numpy`` and the lab's C1–C3);
* ``labs.figure_script``: a lab figure without an experiment (masks, order, heads, cost),
  from the pieces in ``lab_common`` and one module per lab (``lab_masks``, ``lab_order``,
  ``lab_heads``, ``lab_cost``).
"""

from __future__ import annotations

from app.export.numpy_scripts.attention import numpy_snippet
from app.export.numpy_scripts.experiments import numpy_script
from app.export.numpy_scripts.labs import figure_script, has_script

__all__ = ["figure_script", "has_script", "numpy_script", "numpy_snippet"]
