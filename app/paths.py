"""Where the static assets and templates live, for a source checkout and an installed wheel.

In the repository they sit at the top level (``static/``, ``templates/``); the wheel
ships them as the packages ``app.static`` and ``app.templates``. Both resolve here so
nothing else in the app depends on the working directory.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

_REPO_ROOT = Path(__file__).resolve().parent.parent


@cache
def asset_dir(name: str) -> Path:
    """Return the directory of ``static`` or ``templates``, installed or in a checkout."""
    spec = importlib.util.find_spec(f"app.{name}")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if Path(location).is_dir():
                return Path(location)
    return _REPO_ROOT / name


def static_dir() -> Path:
    return asset_dir("static")


def templates_dir() -> Path:
    return asset_dir("templates")
