"""The ``attention-lab`` command: ``serve`` (the default) runs the web app.

``attention-lab`` alone, or ``attention-lab serve --port 9000``, starts uvicorn and
prints the URL to open. Other subcommands register themselves in ``build_parser``: add a
subparser to ``sub`` and ``set_defaults(handler=function)``; ``main`` calls
``handler(args)`` and exits with what it returns.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app import __version__

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

    from app.settings import Settings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
WORKER_START_SECONDS = 30
# Every line names the request it was written for ("-" outside a request).
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attention-lab",
        description="Attention Lab: an interactive visualiser of scaled dot-product attention, "
        "softmax(Q Kᵀ / √d_k) V. With no subcommand, serves the web app and prints the "
        "URL to open in a browser.",
        epilog="Examples: 'attention-lab' (then open http://127.0.0.1:8000); "
        "'attention-lab --host 0.0.0.0 --port 8080 --workers 4' to serve a classroom. "
        "Limits, log level and embedding policy come from ATTENTION_LAB_* environment "
        "variables (see the README's configuration table).",
    )
    parser.add_argument("--version", action="version", version=f"attention-lab {__version__}")
    add_serve_arguments(parser)
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", title="commands (optional; the default is serve)"
    )
    serve_parser = sub.add_parser(
        "serve", help="serve the web app (the default)", description="Serve the web app."
    )
    # SUPPRESS keeps `attention-lab --port 9000 serve` at 9000: a subparser's own defaults
    # would otherwise overwrite what was given before the subcommand.
    add_serve_arguments(serve_parser, suppress_defaults=True)
    from app.export.cli import add_export_parser  # the `export` subcommand (issue 5)
    from app.http.lab_export import export_lab  # labs are built as the lab API builds them

    add_export_parser(sub, labs=export_lab)
    from app.models.cli import add_models_parser  # `models list` / `models install` (issue 20)

    add_models_parser(sub)
    return parser


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0-65535, got {value}")
    return value


def add_serve_arguments(p: argparse.ArgumentParser, suppress_defaults: bool = False) -> None:
    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress_defaults else value

    p.add_argument(
        "--host",
        default=default(DEFAULT_HOST),
        help="interface to bind (default 127.0.0.1, this machine only; 0.0.0.0 serves a network)",
    )
    p.add_argument("--port", type=_port, default=default(DEFAULT_PORT), help="port (default 8000)")
    p.add_argument(
        "--workers",
        type=_positive_int,
        default=default(None),
        help="worker processes (default: ATTENTION_LAB_WORKERS, else 1); the app keeps no "
        "state, so any number works",
    )
    p.add_argument(
        "--root-path",
        type=_root_path,
        default=default(None),
        metavar="PATH",
        help="the path a reverse proxy serves the app under, e.g. /attention (the proxy "
        "strips it; uvicorn's --root-path); default: ATTENTION_LAB_ROOT_PATH, else none",
    )
    p.add_argument(
        "--reload",
        action="store_true",
        default=default(False),
        help="restart when the source changes (development; always one worker)",
    )


def _root_path(text: str) -> str:
    from app.settings import check_root_path

    try:
        return check_root_path(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def display_url(host: str, port: int) -> str:
    """The URL a person on this machine opens: wildcard binds are reached via loopback."""
    shown = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "": "127.0.0.1"}.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def where_to_open(host: str, port: int, root: str) -> str:
    """What to open: this server, or (under a root path) the proxy in front of it."""
    if not root:
        return f"open {display_url(host, port)}"
    return (
        f"serving {display_url(host, port)} for a proxy that strips {root}; "
        f"open the proxy's address, e.g. https://your-host{root}/"
    )


def log_config(level: str, fmt: str = "text") -> dict[str, Any]:
    """uvicorn's logging config plus the app's loggers (``attention_lab.*``, one line per
    request from ``app.web.telemetry``), all to stderr with a timestamp and the request
    id: as text, or (``fmt="json"``) one JSON object per line."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    if fmt == "json":
        config["formatters"]["default"] = {"()": "app.web.telemetry.JsonFormatter"}
    else:
        config["formatters"]["default"]["fmt"] = LOG_FORMAT
        config["formatters"]["default"]["use_colors"] = False
    config.setdefault("filters", {})["request_id"] = {"()": "app.web.telemetry.RequestIdFilter"}
    for handler in config["handlers"].values():
        handler["filters"] = ["request_id"]
    config["loggers"]["attention_lab"] = {
        "handlers": ["default"],
        "level": level.upper(),
        "propagate": False,
    }
    config["loggers"]["uvicorn"]["level"] = level.upper()
    return config


def share_metrics_between(processes: int) -> None:
    """Requests served by other processes than this one (several workers, or --reload's
    child): give them one directory for Prometheus' multiprocess mode (unless the
    operator named one), set before any worker starts, so a scrape of any of them, or of
    the metrics port this process serves, reports them all (``app.http.scrape``). A new
    directory per start: old files would count the last run's requests again."""
    if processes > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        import tempfile

        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="attention-lab-metrics-")


def start_metrics_port(settings: Settings, host: str, port: int) -> WSGIServer | None:
    """``ATTENTION_LAB_METRICS_PORT``: answer scrapes there from this (the main) process
    (the server, or None without the setting); SettingsError naming the variable if it
    cannot listen."""
    metrics_port = settings.metrics_port
    if not settings.metrics or metrics_port is None:
        return None
    name = f"ATTENTION_LAB_METRICS_PORT={metrics_port}"
    if metrics_port == port:
        raise SettingsError(f"{name}: must differ from the app's port ({port})")
    from app.http.scrape import serve_metrics

    try:
        server, _ = serve_metrics(host, metrics_port)
    except OSError as exc:
        raise SettingsError(f"{name}: cannot listen on {host}:{metrics_port}: {exc}") from None
    return server


def _watched_dirs() -> list[str]:
    """The package and a checkout's static/ and templates/: --reload watches these, not
    the working directory (which may be anywhere)."""
    source = Path(__file__).resolve().parent
    dirs = (source, source.parent / "static", source.parent / "templates")
    return [str(d) for d in dirs if d.is_dir()]


def settings_problem(exc: Exception) -> str:
    """One line naming the environment variable of the first bad setting."""
    from pydantic import ValidationError

    if isinstance(exc, ValidationError) and exc.errors():
        err = exc.errors()[0]
        name = "ATTENTION_LAB_" + str(err["loc"][0]).upper() if err["loc"] else "a setting"
        shown = str(err.get("input", ""))[:40]
        return f"{name}={shown!r}: {err['msg']}"
    return str(exc).splitlines()[0]


def load_settings() -> Settings:
    """The settings, checked as the app will use them; SettingsError with one line if bad."""
    from app.settings import get_settings
    from app.web.security import frame_ancestor_sources

    try:
        settings = get_settings()
        frame_ancestor_sources(settings.frame_ancestors)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        raise SettingsError(settings_problem(exc)) from None
    return settings


class SettingsError(Exception):
    """A bad ``ATTENTION_LAB_*`` setting; the message is one line naming it."""


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = load_settings()
    host = getattr(args, "host", DEFAULT_HOST)
    port = getattr(args, "port", DEFAULT_PORT)
    reload = bool(getattr(args, "reload", False))
    workers = getattr(args, "workers", None) or settings.workers
    if reload and workers > 1:
        print("attention-lab: --reload runs one worker; ignoring --workers", file=sys.stderr)
    # --reload serves from a child: the metrics port of this process must read its files.
    share_metrics_between((2 if settings.metrics_port else 1) if reload else workers)
    start_metrics_port(settings, host, port)
    root = getattr(args, "root_path", None)
    root = (settings.root_path or "") if root is None else root
    print(f"Attention Lab {__version__}: {where_to_open(host, port, root)}", flush=True)
    from app.server import HeadTimeoutH11

    uvicorn.run(
        "app.main:app",
        host=host,
        port=port,
        workers=None if reload else workers,
        reload=reload,
        reload_dirs=_watched_dirs() if reload else None,
        log_config=log_config(settings.log_level, settings.log_format),
        log_level=settings.log_level,
        access_log=False,  # app.web.telemetry writes one line per request
        proxy_headers=True,
        forwarded_allow_ips=os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1"),
        root_path=root,  # the scope's root_path (app.http.mount): every URL starts with it
        # Past this many connections and running requests uvicorn answers 503 itself;
        # idle keep-alive connections close after keep_alive seconds, and connections
        # slow to send a request head after header_timeout (app.server).
        http=HeadTimeoutH11,
        limit_concurrency=settings.limit_concurrency,
        timeout_keep_alive=settings.keep_alive,
        # After SIGTERM running requests get this long, then uvicorn cancels them: a slow
        # streaming client cannot hold the worker past the pod's grace period.
        timeout_graceful_shutdown=settings.shutdown_timeout,
        # A new worker imports numpy and the app before it can answer the supervisor's
        # first ping; uvicorn's 5 s killed every worker on a busy machine, in a loop.
        timeout_worker_healthcheck=WORKER_START_SECONDS,
    )
    return 0


# One BLAS thread per computation unless the operator says otherwise. The matrices are at
# most 512 × 512, the server already runs requests in parallel (thread pool, workers),
# and BLAS threads spinning against them made L = 512 take 188 ms instead of 16 ms on a
# busy 2-core machine. Set before numpy's first import, which is what makes it count;
# the image sets the same variables for anything started without this command.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def configure_process() -> None:
    """Process-wide setup that must precede importing numpy: one BLAS thread."""
    for variable in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(variable, "1")


def main(argv: Sequence[str] | None = None) -> int:
    configure_process()
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return _dispatch(args)
    except SettingsError as exc:
        print(f"attention-lab: bad setting {exc}", file=sys.stderr)
        return 2


def _dispatch(args: argparse.Namespace) -> int:
    if args.command in (None, "serve"):
        return serve(args)
    handler = getattr(args, "handler", None)
    if handler is None:  # pragma: no cover - argparse rejects unknown commands first
        build_parser().print_help()
        return 2
    load_settings()  # a bad setting is one line, not a traceback, in every subcommand
    return int(handler(args))
