"""The ``attention-lab`` command: options, defaults, the URL it prints, its log lines."""

from __future__ import annotations

import argparse
import json
import logging.config
import os
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.settings import Settings, get_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _no_metrics_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    """``serve`` with several workers sets PROMETHEUS_MULTIPROC_DIR in this process; start
    each test without it and restore its absence afterwards (setenv records the original
    state, so monkeypatch undoes what ``serve`` did behind its back)."""
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "")
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")


def parse(*argv: str) -> argparse.Namespace:
    return cli.build_parser().parse_args(list(argv))


def test_defaults_are_loopback_8000_one_worker_from_settings() -> None:
    args = parse()
    assert (args.command, args.host, args.port, args.workers, args.reload) == (
        None, "127.0.0.1", 8000, None, False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "argv",
    [
        ["--port", "9001", "--host", "0.0.0.0", "--workers", "3"],
        ["serve", "--port", "9001", "--host", "0.0.0.0", "--workers", "3"],
        ["--port", "9001", "--host", "0.0.0.0", "--workers", "3", "serve"],
    ],
)
def test_serve_options_before_or_after_the_subcommand(argv: list[str]) -> None:
    args = parse(*argv)
    assert (args.host, args.port, args.workers) == ("0.0.0.0", 9001, 3)


@pytest.mark.parametrize(
    "argv", [["--port", "70000"], ["--port", "x"], ["--workers", "0"], ["--bogus"]]
)
def test_bad_options_exit_2_with_a_message(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse(*argv)
    assert exited.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_help_names_every_option_and_the_settings(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--help")
    text = capsys.readouterr().out
    for word in ("--host", "--port", "--workers", "--reload", "serve", "ATTENTION_LAB_"):
        assert word in text
    assert "http://127.0.0.1:8000" in text


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("127.0.0.1", "http://127.0.0.1:8000"),
        ("0.0.0.0", "http://127.0.0.1:8000"),
        ("::", "http://[::1]:8000"),
        ("::1", "http://[::1]:8000"),
        ("lab.example.edu", "http://lab.example.edu:8000"),
    ],
)
def test_display_url(host: str, url: str) -> None:
    assert cli.display_url(host, 8000) == url


def test_serve_prints_the_url_and_runs_uvicorn_with_the_settings_workers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda target, **kw: calls.append({"target": target, **kw}))
    monkeypatch.setenv("ATTENTION_LAB_WORKERS", "3")
    get_settings.cache_clear()
    try:
        assert cli.main(["--port", "8123"]) == 0
    finally:
        get_settings.cache_clear()
    assert "open http://127.0.0.1:8123" in capsys.readouterr().out
    (call,) = calls
    assert call["target"] == "app.main:app"
    assert (call["host"], call["port"], call["workers"], call["reload"]) == (
        "127.0.0.1", 8123, 3, False,
    )  # fmt: skip
    assert call["access_log"] is False  # app.web.middleware.telemetry logs instead
    assert call["limit_concurrency"] == Settings().limit_concurrency
    assert call["timeout_keep_alive"] == Settings().keep_alive


def test_server_limits_come_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda target, **kw: calls.append(kw))
    monkeypatch.setenv("ATTENTION_LAB_LIMIT_CONCURRENCY", "7")
    monkeypatch.setenv("ATTENTION_LAB_KEEP_ALIVE", "11")
    get_settings.cache_clear()
    try:
        assert cli.main([]) == 0
    finally:
        get_settings.cache_clear()
    (call,) = calls
    assert (call["limit_concurrency"], call["timeout_keep_alive"]) == (7, 11)


@pytest.mark.parametrize(
    ("variable", "value"),
    [("ATTENTION_LAB_MAX_TOKENS", "banana"), ("ATTENTION_LAB_FRAME_ANCESTORS", "a;b"),
     ("ATTENTION_LAB_PUBLIC_URL", "lab.example.edu"),
     ("ATTENTION_LAB_PUBLIC_URL", "https://user:pw@lab.example.edu"),
     ("ATTENTION_LAB_PUBLIC_URL", "https://lab.example.edu/my course"),
     ("ATTENTION_LAB_METRICS_PORT", "70000"), ("ATTENTION_LAB_HEADER_TIMEOUT", "0")],
)  # fmt: skip
@pytest.mark.parametrize("argv", [[], ["export", "--preset", "i-love-llms"]])
def test_a_bad_setting_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    variable: str,
    value: str,
    argv: list[str],
) -> None:
    monkeypatch.setattr("uvicorn.run", lambda *a, **kw: pytest.fail("the server started"))
    monkeypatch.setenv(variable, value)
    get_settings.cache_clear()
    try:
        assert cli.main(argv) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"attention-lab: bad setting {variable}")


def test_the_metrics_port_must_differ_from_the_apps(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("uvicorn.run", lambda *a, **kw: pytest.fail("the server started"))
    monkeypatch.setenv("ATTENTION_LAB_METRICS_PORT", "8123")
    get_settings.cache_clear()
    try:
        assert cli.main(["--port", "8123"]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert err == (
        "attention-lab: bad setting ATTENTION_LAB_METRICS_PORT=8123: must differ from the "
        "app's port (8123)\n"
    )


@pytest.mark.slow
def test_the_metrics_port_answers_scrapes_and_a_taken_port_is_one_line() -> None:
    import socket
    import urllib.request

    from app.http import metrics  # noqa: F401 - the series this process exports
    from app.settings import Settings

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(cli.SettingsError, match=f"METRICS_PORT={port}: cannot listen"):
            cli.start_metrics_port(Settings(metrics_port=port), "127.0.0.1", 8000)
    server = cli.start_metrics_port(Settings(metrics_port=port), "127.0.0.1", 8000)
    assert server is not None
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
            assert b"attention_lab_heavy_in_flight" in r.read()
    finally:
        server.shutdown()
        server.server_close()
    assert cli.start_metrics_port(Settings(metrics_port=port, metrics=False), "x", 1) is None
    assert cli.start_metrics_port(Settings(), "127.0.0.1", 8000) is None


def test_uvicorn_serves_with_the_header_timeout_protocol(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.server import HeadTimeoutH11

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda target, **kw: calls.append(kw))
    cli.main([])
    (call,) = calls
    assert call["http"] is HeadTimeoutH11
    # A worker that imports numpy and the app on a busy core needs more than uvicorn's 5 s.
    assert call["timeout_worker_healthcheck"] >= 30


def test_reload_runs_one_worker_and_watches_the_package_not_the_cwd(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda target, **kw: calls.append(kw))
    cli.main(["serve", "--reload", "--workers", "4"])
    (call,) = calls
    assert call["reload"] is True
    assert call["workers"] is None
    assert str(ROOT / "app") in call["reload_dirs"]


def test_log_config_routes_the_access_log_to_a_handler(
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = cli.log_config("info")
    assert config["loggers"]["attention_lab"]["handlers"] == ["default"]
    logging.config.dictConfig(config)
    try:
        logging.getLogger("attention_lab.access").info("GET /healthz 200 1.0ms")
        assert "attention_lab.access [-]: GET /healthz 200 1.0ms" in capsys.readouterr().err
    finally:
        logging.getLogger("attention_lab").handlers.clear()
        logging.getLogger("attention_lab").propagate = True


def test_json_log_config_writes_one_object_per_line_with_the_request_id(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from app.web.telemetry import request_id

    logging.config.dictConfig(cli.log_config("info", "json"))
    token = request_id.set("abc-123")
    try:
        logging.getLogger("attention_lab.access").info("GET /healthz 200 1.0ms")
        (line,) = capsys.readouterr().err.strip().splitlines()
        entry = json.loads(line)
        assert entry["request_id"] == "abc-123"
        assert entry["message"] == "GET /healthz 200 1.0ms"
        assert entry["logger"] == "attention_lab.access"
        assert entry["level"] == "INFO"
    finally:
        request_id.reset(token)
        logging.getLogger("attention_lab").handlers.clear()
        logging.getLogger("attention_lab").propagate = True


def test_several_workers_share_one_metrics_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    cli.share_metrics_between(1)
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ
    cli.share_metrics_between(2)
    made = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    assert made.is_dir()
    made.rmdir()
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "/operator/chose")
    cli.share_metrics_between(4)
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == "/operator/chose"
