"""Attention Lab for notebooks: ``attention_lab.widget.Figure`` draws a figure of a state.

A distinct top-level name, shipped in the same distribution as the ``app`` package: a
notebook's working directory often holds a user's own ``app`` package or ``app.py``,
which would shadow ours (the current directory comes first on ``sys.path``), while
``attention_lab`` is the distribution's own name. The maths stays in ``app``.
"""

from app import __version__

__all__ = ["__version__"]
