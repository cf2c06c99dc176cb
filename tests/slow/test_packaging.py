"""The project installs and runs from anywhere: a regular wheel (``pip install .``) and an
editable install each serve /healthz, the vendored plotly.js and the templates from
another working directory, and ``attention-lab --help`` works.

Each install goes into its own new virtual environment, with ``--no-deps``: its
dependencies come from the interpreter running the tests, through a path entry to that
interpreter's site-packages (a path entry, not a site directory, so the project's own
editable install there stays invisible and only the freshly installed copy can be
imported).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PLOTLY = "static/vendor/plotly-cartesian-4.1.1.min.js"


def run(*argv: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=clean_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def clean_env() -> dict[str, str]:
    """No PYTHONPATH: the installed copy must find itself."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def new_venv(where: Path) -> Path:
    """A new venv (no pip) that sees the test interpreter's packages as a plain path."""
    run(sys.executable, "-m", "venv", "--without-pip", where)
    python = where / "bin" / "python"
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site.strip()) / "_test_dependencies.pth").write_text("\n".join(sorted(deps)) + "\n")
    return python


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-w", out, ROOT)
    (built,) = out.glob("attention_lab-*.whl")
    return built


def test_the_wheel_holds_every_module_asset_and_template(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {str(p.relative_to(ROOT)) for p in (ROOT / "app").rglob("*.py")}
    # The tiny decoder's weights and config ship inside the package (app/models/data).
    expected |= {str(p.relative_to(ROOT)) for p in (ROOT / "app/models/data").glob("*.*")}
    for folder in ("static", "templates"):
        for p in (ROOT / folder).rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts:
                expected.add(f"app/{p.relative_to(ROOT)}")
    assert expected <= names, sorted(expected - names)
    assert f"app/{PLOTLY}" in names
    (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "attention-lab = app.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


@pytest.fixture(scope="module", params=["wheel", "editable"])
def installed(
    request: pytest.FixtureRequest, wheel: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path]:
    python = new_venv(tmp_path_factory.mktemp(f"venv-{request.param}"))
    target = [str(wheel)] if request.param == "wheel" else ["-e", str(ROOT)]
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("hatchling") else []
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", *isolation,
        *target)  # fmt: skip
    return request.param, python


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_installed_copy_finds_its_own_assets_from_another_directory(
    installed: tuple[str, Path], tmp_path: Path
) -> None:
    kind, python = installed
    code = "import app, app.paths as p; print(app.__file__, p.static_dir(), p.templates_dir())"
    module, static, templates = run(python, "-c", code, cwd=tmp_path).split()
    home = python.parent.parent.resolve() if kind == "wheel" else ROOT
    for found in (module, static):
        assert Path(found).resolve().is_relative_to(home), (kind, found)
    assert (Path(static) / PLOTLY.removeprefix("static/")).is_file()
    if (ROOT / "templates").is_dir():
        shipped = {p.name for p in Path(templates).rglob("*") if p.is_file()}
        assert {p.name for p in (ROOT / "templates").rglob("*") if p.is_file()} <= shipped


def test_installed_console_script_help_and_serve(
    installed: tuple[str, Path], tmp_path: Path
) -> None:
    script = installed[1].parent / "attention-lab"
    assert "--workers" in run(script, "--help", cwd=tmp_path)
    port = free_port()
    proc = subprocess.Popen(
        [script, "--port", str(port)], cwd=tmp_path, env=clean_env(),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}"
        assert get(f"{base}/healthz", proc) == b'{"status":"ok"}'
        assert get(f"{base}/{PLOTLY}", proc) == (ROOT / PLOTLY).read_bytes()
        if (ROOT / "templates").is_dir():  # the page renders from the installed templates
            assert b"<html" in get(f"{base}/", proc).lower()
    finally:
        proc.terminate()
        out = proc.communicate(timeout=10)[0]
    assert f"open http://127.0.0.1:{port}" in out


def get(url: str, proc: subprocess.Popen[str]) -> bytes:
    deadline = time.monotonic() + 60  # the start alone takes seconds on a busy machine
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                body: bytes = response.read()
                return body
        except urllib.error.HTTPError as error:  # served, but not found or broken
            raise AssertionError(f"{url} answered {error.code}") from error
        except (urllib.error.URLError, ConnectionError):
            assert proc.poll() is None, "the server exited"
            time.sleep(0.1)
    raise AssertionError(f"no answer from {url}")
