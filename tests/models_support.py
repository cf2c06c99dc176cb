"""What the model tests share: whether the real models are installed, where their files are.

Tests that need the real all-MiniLM-L6-v2 use ``needs_minilm``, and SmolLM2 ``needs_smollm2``:
skipped, with the command that installs it, when it is not on this machine (CI installs
both, so they run there).
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


SMOLLM2_INSTALLED = registry.installed("smollm2")
needs_smollm2 = pytest.mark.skipif(
    not SMOLLM2_INSTALLED,
    reason="SmolLM2-135M-Instruct is not installed: attention-lab models install smollm2",
)


def smollm2_file() -> Path:
    """The GGUF file of the installed SmolLM2."""
    from app.models import smollm

    folder = registry.entry("smollm2").folder()
    assert folder is not None
    return folder / smollm.WEIGHTS
