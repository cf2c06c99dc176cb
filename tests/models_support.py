"""What the model tests share: whether the encoder is installed, and where its files are.

Tests that need the real all-MiniLM-L6-v2 use ``needs_minilm``: skipped, with the command
that installs it, when it is not on this machine (CI installs it, so they run there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.models import registry

MINILM_INSTALLED = registry.installed("minilm")
needs_minilm = pytest.mark.skipif(
    not MINILM_INSTALLED,
    reason="all-MiniLM-L6-v2 is not installed: attention-lab models install minilm",
)


def minilm_folder() -> Path:
    folder = registry.entry("minilm").folder()
    assert folder is not None
    return folder
