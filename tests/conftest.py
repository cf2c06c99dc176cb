"""Fixtures for every test folder: one TestClient factory, and no developer environment.

``make_client(**settings)`` is the only way tests build an app: ``Settings(**settings)``
with every ``ATTENTION_LAB_*`` variable out of sight, so a value exported in the shell
(``ATTENTION_LAB_MAX_TOKENS=4``) cannot change a test's result. ``client`` is the default
app, one per module. The variables are also removed for the whole session (and put back
at its end), for the code that reads them itself: ``get_settings()`` behind
``app.main.app`` and the CLIs, and the servers the browser and slow tests spawn.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

ENV_PREFIX = "ATTENTION_LAB_"
_hidden: dict[str, str] = {}


def _settings_variables() -> list[str]:
    # pydantic-settings matches names case-insensitively.
    return [name for name in os.environ if name.upper().startswith(ENV_PREFIX)]


def pytest_configure(config: pytest.Config) -> None:
    for name in _settings_variables():
        _hidden[name] = os.environ.pop(name)


def pytest_unconfigure(config: pytest.Config) -> None:
    os.environ.update(_hidden)
    _hidden.clear()


def pytest_report_header(config: pytest.Config) -> str | None:
    if _hidden:
        return "hidden from the tests: " + ", ".join(sorted(_hidden))
    return None


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
