"""The ``attention-lab`` command: ``serve`` (the default) runs the web app.

``attention-lab`` alone, or ``attention-lab serve --port 9000``, starts uvicorn and
prints the URL to open. Other subcommands register themselves in ``build_parser``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from app import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="attention-lab",
        description="Attention Lab: an interactive visualiser of scaled dot-product attention, "
        "softmax(Q Kᵀ / √d_k) V. With no subcommand, serves the web app.",
        epilog="Settings come from ATTENTION_LAB_* environment variables (see the README).",
    )
    parser.add_argument("--version", action="version", version=f"attention-lab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = sub.add_parser("serve", help="serve the web app (the default)")
    add_serve_arguments(serve)
    add_serve_arguments(parser)
    from app.export.cli import add_export_parser  # the `export` subcommand (issue 5)

    add_export_parser(sub)
    return parser


def add_serve_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to bind (default 127.0.0.1; 0.0.0.0 to serve a network)",
    )
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default: ATTENTION_LAB_WORKERS, else 1)",
    )
    p.add_argument("--reload", action="store_true",
                   help="restart when the source changes (development; one worker)")  # fmt: skip


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.settings import get_settings

    settings = get_settings()
    workers = args.workers or settings.workers
    shown = "127.0.0.1" if args.host in {"0.0.0.0", "::"} else args.host
    print(f"Attention Lab {__version__}: open http://{shown}:{args.port}", flush=True)
    uvicorn.run(
        "app.main:app",
        host=args.host,
        port=args.port,
        workers=None if args.reload else workers,
        reload=args.reload,
        log_level=settings.log_level,
        access_log=False,  # app.middleware.AccessLog writes one line per request
        proxy_headers=True,
        forwarded_allow_ips=os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1"),
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command in (None, "serve"):
        return serve(args)
    handler = getattr(args, "handler", None)
    if handler is None:  # pragma: no cover - argparse rejects unknown commands first
        build_parser().print_help()
        return 2
    return int(handler(args))
