"""Attention Lab for notebooks: ``attention_lab.widget.Figure`` draws a figure of a state.

A distinct top-level name, shipped in the same distribution as the ``app`` package: a
notebook's working directory often holds a user's own ``app`` package or ``app.py``,
which would shadow ours (the current directory comes first on ``sys.path``), while
``attention_lab`` is the distribution's own name. The maths stays in ``app``, which this
package imports internally; if a user's ``app`` shadows it, the import stops here with a
message saying so, rather than computing with someone else's module (docs/notebook.md).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_OURS = Path(__file__).resolve().parent.parent / "app"
_found = importlib.util.find_spec("app")
_where = None if _found is None or _found.origin is None else Path(_found.origin).resolve()
if _where is None or _where.parent != _OURS:
    raise ImportError(
        f"attention_lab needs Attention Lab's own package `app` ({_OURS}), but `import app` "
        f"finds {_where or 'nothing'}: a module or folder named `app` in the working "
        "directory (or earlier on sys.path) shadows it. Rename it, or start the notebook "
        "from another folder."
    )

from app import __version__  # noqa: E402  (after the check: it names the problem)

__all__ = ["__version__"]
