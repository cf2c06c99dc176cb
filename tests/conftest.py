"""Fixtures for every test folder: one TestClient factory, and no developer environment.

``make_client(**settings)`` is the only way tests build an app: ``Settings(**settings)``
with every ``ATTENTION_LAB_*`` variable out of sight, so a value exported in the shell
(``ATTENTION_LAB_MAX_TOKENS=4``) cannot change a test's result. ``client`` is the default
app, one per module. The variables are also removed for the whole session (and put back
at its end), for the code that reads them itself: ``get_settings()`` behind
``app.main.app`` and the CLIs, and the servers the browser and slow tests spawn.

``snapshot(name, value)`` compares ``value`` (numbers rounded to 6 significant digits) with
the pretty JSON in tests/snapshots/{name}.json and fails with a diff. It never rewrites a
file unless asked: ``pytest --update-snapshots`` (or ``UPDATE_SNAPSHOTS=1``); then review
``git diff tests/snapshots``.

Markers say what a test needs (pyproject.toml: ``browser``, ``fuzz``, ``slow``), and are
checked before each test's fixtures are set up: a test that would get Chromium (the
``browser`` fixture, directly or through ``page``, ``context`` ...) without the ``browser``
marker fails instead of starting it, so ``-m "not browser"`` never starts a browser; and
every test under tests/browser and tests/slow carries its folder's marker.

``pinned(path, text)`` does the same for any file of the repository that pins a contract
(``tests/contracts/openapi.json``): ``text`` must equal the file, and the same option
rewrites it.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import re
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import settings

# One BLAS thread, as `attention-lab` and the image set (app/cli.py): with BLAS threads
# fighting over two busy cores the real model's 128-token forward pass took 13 s instead
# of 0.4 s. Set before numpy's first import (nothing above, no plugin, imports it).
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

ENV_PREFIX = "ATTENTION_LAB_"
ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots"
DIGITS = 6  # significant digits kept in snapshots: float noise must not churn them
LINE_KEYS = {"values", "text", "color", "hover"}  # lists of lines: a grid's rows, one a line
_hidden: dict[str, str] = {}
_rewritten: list[str] = []

# No Hypothesis deadline anywhere (its default is 200 ms an example): a deadline is a timed
# test, and on a loaded machine it failed properties whose answers were right (one did in
# a fast-loop run at load 10). Speed is what benchmarks/ measures.
settings.register_profile("attention-lab", deadline=None)
settings.load_profile("attention-lab")


def _settings_variables() -> list[str]:
    # pydantic-settings matches names case-insensitively.
    return [name for name in os.environ if name.upper().startswith(ENV_PREFIX)]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        help="rewrite tests/snapshots/*.json and tests/contracts/* from the current code "
        "instead of comparing",
    )


def pytest_configure(config: pytest.Config) -> None:
    for name in _settings_variables():
        _hidden[name] = os.environ.pop(name)
    # The app's own files (the SQLite database of short links, under the default data
    # dir) go to a folder of this run, never the user's: every app a test makes and every
    # server it starts (a subprocess inherits the variable) writes there.
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="attention-lab-tests-")


# The marker every test of a folder must carry (what the folder's tests start).
FOLDER_MARKERS = {"browser": "browser", "slow": "slow"}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a test whose markers do not say what it needs, before its fixtures start it."""
    if "browser" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("browser"):
        pytest.fail(
            f"{item.nodeid} uses Chromium (the browser fixture) without the browser marker: "
            "add `pytestmark = pytest.mark.browser` to its module",
            pytrace=False,
        )
    if item.name.startswith("test_thirty") and not item.get_closest_marker("slow"):
        # Thirty clients at once is a queue of heavy requests: seconds of CPU, which the fast
        # loop leaves to CI (its class of tests is named so, and so it is checked).
        pytest.fail(
            f"{item.nodeid} sends thirty clients at once without the slow marker: "
            "add `@pytest.mark.slow` to it",
            pytrace=False,
        )
    parts = item.path.relative_to(ROOT / "tests").parts
    marker = FOLDER_MARKERS.get(parts[0]) if len(parts) > 1 else None
    if marker and not item.get_closest_marker(marker):
        pytest.fail(
            f"{item.nodeid} is under tests/{parts[0]} without the {marker} marker: "
            f"add `pytestmark = pytest.mark.{marker}` to its module",
            pytrace=False,
        )


# Coverage is measured once, by CI (.ci/run: --cov=app), over every test but the browser
# tests. Theirs drive Chromium through Playwright's Python client, whose every call is
# hundreds of Python calls that the tracer sees (a browser file took 50 % more CPU under
# it), for 0.2 % of app/ that no other test reaches (their servers are processes of
# their own, which coverage does not follow anyway). So it is paused for each browser
# test, fixtures included, and resumed after; the floor is the rest's.
@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    measuring = _coverage() if item.get_closest_marker("browser") else None
    if measuring is not None:
        measuring.stop()
    try:
        yield
    finally:
        if measuring is not None:
            measuring.start()


def _coverage() -> Any:
    """The coverage measurement running in this process (pytest-cov's), if any."""
    try:
        import coverage
    except ImportError:  # coverage is a test dependency, but a loop without it runs too
        return None
    return coverage.Coverage.current()


# What a test of each kind usually costs (seconds), for ordering the files only: a wrong
# guess makes a run slower, never changes a result. Anything else costs about 0.05 s.
KIND_SECONDS = {"fuzz": 10.0, "slow": 4.0, "browser": 3.0}


def _guessed_seconds(item: pytest.Item) -> float:
    for kind, seconds in KIND_SECONDS.items():
        if item.get_closest_marker(kind):
            return seconds
    return 0.05


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the files that take longest first, each file's tests in their own order.

    CI's workers take whole files (``--dist loadfile --no-loadscope-reorder``) in this
    order, as each finishes one: longest first leaves short files to even out the end,
    instead of one worker alone on a long browser file while the other waits (xdist's
    own order, by test count, put the many-case unit files first and the long browser
    files last)."""
    files: dict[Path, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.path, []).append(item)
    cost = {path: sum(map(_guessed_seconds, group)) for path, group in files.items()}
    ordered = sorted(files, key=lambda path: -cost[path])  # stable: ties keep their order
    items[:] = [item for path in ordered for item in files[path]]


def pytest_unconfigure(config: pytest.Config) -> None:
    os.environ.update(_hidden)
    _hidden.clear()


def pytest_report_header(config: pytest.Config) -> str | None:
    if _hidden:
        return "hidden from the tests: " + ", ".join(sorted(_hidden))
    return None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _rewritten:
        terminalreporter.write_sep("=", "pinned files rewritten: review their git diff")
        for name in _rewritten:
            terminalreporter.write_line(f"  {name}")


@pytest.fixture(scope="session")
def make_client() -> Callable[..., TestClient]:
    """``make_client(raise_server_exceptions=True, **settings) -> TestClient`` on a new app.

    Settings are the defaults plus ``settings``; the environment never counts.
    """
    # Imported here, not at the top: app.main builds an app (reading the environment) on
    # import, which must come after pytest_configure has hidden the variables.
    from app.main import create_app
    from app.settings import Settings

    def make(*, raise_server_exceptions: bool = True, **settings: Any) -> TestClient:
        with pytest.MonkeyPatch.context() as env:
            for name in _settings_variables():
                env.delenv(name)
            app_settings = Settings(**settings)
        return TestClient(create_app(app_settings), raise_server_exceptions=raise_server_exceptions)

    return make


@pytest.fixture(scope="module")
def client(make_client: Callable[..., TestClient]) -> Iterator[TestClient]:
    """The app with default settings, one per test module."""
    with make_client() as c:
        yield c


# ---- snapshots

_LONG_NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[+-]?\d+)?(?![\w.])")


def _round_text(match: re.Match[str]) -> str:
    text = match.group(0)
    digits = len(text.split("e")[0].lstrip("-").replace(".", "").lstrip("0"))
    return text if digits <= DIGITS else f"{float(text):.{DIGITS}g}"


def rounded(value: Any) -> Any:
    """``value`` with floats (and long decimals printed inside strings) to 6 digits."""
    if isinstance(value, float):
        return float(f"{value:.{DIGITS}g}")
    if isinstance(value, str):
        return _LONG_NUMBER.sub(_round_text, value)
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(item) for item in value]
    return value


def pretty(value: Any, indent: str = "", lines: bool = False) -> str:
    """JSON, one key or row per line. A list of plain values (a row) stays on one line, and
    so does anything short (up to 100 characters). A list of strings is one a line when
    long, or always with ``lines`` (the value of a key in ``LINE_KEYS``: a grid's rows).
    """
    inner = indent + "  "
    strings = isinstance(value, list) and len(value) > 1 and all(isinstance(v, str) for v in value)
    if strings and (lines or len(_json(value)) > 100):
        return "[\n" + ",\n".join(inner + _json(v) for v in value) + "\n" + indent + "]"
    if isinstance(value, dict | list) and len(_json(value)) <= 100:
        return _json(value)
    if isinstance(value, dict) and value:
        items = [f"{inner}{_json(k)}: {pretty(v, inner, k in LINE_KEYS)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        return "[\n" + ",\n".join(inner + pretty(v, inner) for v in value) + "\n" + indent + "]"
    return _json(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _updating(config: pytest.Config) -> bool:
    return bool(config.getoption("--update-snapshots")) or os.environ.get("UPDATE_SNAPSHOTS") == "1"


def compare_or_rewrite(request: pytest.FixtureRequest, path: Path, text: str, what: str) -> None:
    """Fail with a diff unless ``path`` holds ``text``; with --update-snapshots, write it."""
    name = path.relative_to(ROOT).as_posix()
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if _updating(request.config):
        if old != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            _rewritten.append(name)
        return
    how = f"pytest --update-snapshots {request.node.path.relative_to(ROOT).as_posix()}"
    if old is None:
        pytest.fail(f"no {name}: run {how}, then review the new file", pytrace=False)
    if old != text:
        diff = difflib.unified_diff(old.splitlines(), text.splitlines(), "stored", "now",
                                    lineterm="", n=2)  # fmt: skip
        shown = list(diff)
        more = f"\n... {len(shown) - 80} more diff lines" if len(shown) > 80 else ""
        pytest.fail(
            f"{what} differs from {name}:\n" + "\n".join(shown[:80]) + more
            + f"\nIf the change is intended: {how}, then review git diff {name}.",
            pytrace=False,
        )  # fmt: skip


@pytest.fixture
def snapshot(request: pytest.FixtureRequest) -> Callable[[str, Any], None]:
    """``snapshot(name, value)``: ``value`` must match tests/snapshots/{name}.json."""

    def check(name: str, value: Any) -> None:
        text = pretty(rounded(value)) + "\n"
        compare_or_rewrite(request, SNAPSHOTS / f"{name}.json", text, "figure output")

    return check


@pytest.fixture
def pinned(request: pytest.FixtureRequest) -> Callable[..., None]:
    """``pinned(path, text, what)``: the repository file at ``path`` must hold ``text``."""

    def check(path: str, text: str, what: str = "the current output") -> None:
        compare_or_rewrite(request, ROOT / path, text, what)

    return check


def _run_async(fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    """``asyncio.run(fn(*args))`` in a thread of its own: in a whole-suite run the browser
    tests' Playwright keeps an asyncio loop running in the main thread, where
    ``asyncio.run`` would refuse to start another."""

    async def main() -> Any:
        return await fn(*args)

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, main()).result()


@pytest.fixture(scope="session")
def run_async() -> Callable[..., Any]:
    """Runs ``fn(*args)`` on an event loop of its own (``_run_async``)."""
    return _run_async
