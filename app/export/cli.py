"""``attention-lab export``: a figure as a self-contained HTML file, or the stages as JSON,
a CSV zip or a NumPy script, without a server.

    attention-lab export --preset i-love-llms --figure 6 --format html --output fig6.html
    attention-lab export --state state.json --format csv            # a request body
    attention-lab export --state link.txt --figure 7                # a page or embed URL

``--state FILE`` holds a JSON request body (optionally with a ``view`` object as in
``POST /api/v1/figures``) or a page/embed URL or its query string; ``-`` reads stdin.
``--format json`` writes the stages export of ``GET /api/v1/export?format=json`` plus the
figure's dict under ``figure``. Errors name the parameter and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from app.export.html import figure_html
from app.export.numpy_scripts import numpy_snippet
from app.export.tables import stages_csv_zip, stages_json
from app.figures import build_figures
from app.figures.registry import FIGURE_NUMBERS, known_figures
from app.figures.view_fields import DRAWN_THEMES
from app.inputs.errors import FieldError
from app.inputs.link import encode_body, to_query
from app.inputs.resolve import Resolved, StateError, drawable, resolve_link
from app.inputs.view import ViewState
from app.settings import get_settings
from app.wire import encode

FORMATS = ("html", "json", "csv", "numpy")
SUFFIX = {"html": ".html", "json": ".json", "csv": ".zip", "numpy": ".py"}


def add_export_parser(sub: Any) -> None:
    """Register ``export`` on the CLI's subparsers (called from ``app.cli.build_parser``)."""
    p = sub.add_parser(
        "export",
        help="write a figure (HTML) or every stage (JSON, CSV, NumPy)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--preset", help="a named example (default: i-love-llms)")
    source.add_argument(
        "--state",
        metavar="FILE",
        help="JSON request body, or a page/embed URL or query ('-' = stdin)",
    )
    p.add_argument("--figure", type=int, default=6, help="figure number (default 6)")
    p.add_argument("--format", choices=FORMATS, default="html", help="default html")
    default = DRAWN_THEMES[0]
    p.add_argument("--theme", choices=DRAWN_THEMES, default=default, help=f"default {default}")
    p.add_argument(
        "--output",
        "-o",
        metavar="PATH",
        help="file to write ('-' = stdout; default attention-lab-<state>-fig<N>.<ext>)",
    )
    p.set_defaults(handler=run_export)


def state_params(text: str) -> dict[str, str]:
    """A state file's text as URL parameters: a JSON body becomes ``s``, a URL its query."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            body = json.loads(stripped)
        except ValueError as exc:
            raise StateError("--state", f"the file is not valid JSON ({exc})") from None
        view = body.pop("view", None) or {}
        if not isinstance(view, dict):
            raise StateError("--state", "view must be an object")
        try:
            params = ViewState.from_json(view).to_query()
        except FieldError as exc:
            raise StateError(exc.field, exc.message) from None
        return {**params, "s": encode_body(body)}
    query = urlsplit(stripped).query if "?" in stripped else stripped.lstrip("?")
    return dict(parse_qsl(query.split("#")[0]))


def render(resolved: Resolved, fmt: str, figure: int, theme: str) -> bytes:
    """The bytes of the export in ``fmt``."""
    if fmt == "csv":
        return stages_csv_zip(resolved.stages, resolved.link.body)
    if fmt == "numpy":
        view = resolved.link.view
        return numpy_snippet(resolved.input, resolved.stages, view, resolved.title).encode()
    if figure not in FIGURE_NUMBERS:
        raise StateError("--figure", f"there is no Figure {figure}; choose from {known_figures()}")
    drawable(resolved, get_settings())
    fig_view = resolved.link.view.figure_view("dark" if theme == "dark" else "light", (figure,))
    spec = build_figures(resolved.stages, fig_view)["figures"][str(figure)]
    if fmt == "json":
        return encode({**stages_json(resolved.stages, resolved.link.body), "figure": spec})
    return figure_html(
        spec, theme=theme, title=resolved.title, query=to_query(resolved.link)
    ).encode()


def run_export(args: argparse.Namespace) -> int:
    try:
        if args.state:
            text = sys.stdin.read() if args.state == "-" else Path(args.state).read_text("utf-8")
            params = state_params(text)
        else:
            params = {"preset": args.preset} if args.preset else {}
        # The pipeline's order, as the routes': parse, price (a figure format also obeys
        # the figure limits and costs its figure) from the shapes, then compute, encode.
        drawn = 0 if args.format in ("csv", "numpy") else 1
        resolved = resolve_link(params, get_settings(), figures=drawn)
        data = render(resolved, args.format, args.figure, args.theme)
    except OSError as exc:
        print(f"attention-lab export: --state: {exc}", file=sys.stderr)
        return 2
    except StateError as exc:
        print(f"attention-lab export: {exc.param}: {exc.message}", file=sys.stderr)
        return 2
    if args.output == "-":
        sys.stdout.buffer.write(data)
        return 0
    stem = resolved.link.preset_id or "state"
    path = Path(args.output or f"attention-lab-{stem}-fig{args.figure}{SUFFIX[args.format]}")
    path.write_bytes(data)
    print(f"wrote {path} ({len(data):,} bytes)", file=sys.stderr)
    return 0
