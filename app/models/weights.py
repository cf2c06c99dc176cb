"""Model files, checked then read: sha256 pinned per file, tensors as numpy arrays.

``verify(folder, pins)`` hashes each pinned file and refuses the first whose digest
differs (``WeightsMismatchError`` naming the file, both digests and how to reinstall), or
that is missing (``FileNotFoundError``). ``load_tensors`` reads a safetensors file with
``safetensors.numpy`` (no torch); call it only on a verified file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from app.models.errors import WeightsMismatchError

CHUNK = 1 << 20  # hash in 1 MiB reads: the weights never sit in memory twice


def sha256_of(path: Path) -> str:
    """The file's sha256, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def verify(folder: Path, pins: Mapping[str, str], fix: str) -> None:
    """Every file of ``pins`` (path under ``folder`` → sha256) is there and has its
    digest; else an error whose message ends with ``fix`` (what to do)."""
    for name, expected in pins.items():
        path = folder / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing; {fix}")
        actual = sha256_of(path)
        if actual != expected:
            raise WeightsMismatchError(
                f"{path} has sha256 {actual}, not the pinned {expected}: refusing to load "
                f"weights that differ from the tested ones; {fix}"
            )


def load_tensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a safetensors file, by name, as numpy arrays (dtype as stored)."""
    from safetensors.numpy import load_file  # here: importing app.models needs no safetensors

    return dict(load_file(str(path)))
