"""``attention-lab export``: figures or a lab as a self-contained HTML file, a grid figure as
SVG, or the stages as JSON, a CSV zip or a NumPy script, without a server.

    attention-lab export --state 'https://lab.example.edu/?preset=causal&fig=7'  # Figure 7
    attention-lab export --state 'https://lab.example.edu/?preset=causal'        # Figures 1–13
    attention-lab export --state 'https://lab.example.edu/labs/masks'            # the whole lab
    attention-lab export --state 'https://lab.example.edu/labs/masks#mask-kinds' # one section
    attention-lab export --preset i-love-llms --figure 9 --format svg -o fig9.svg
    attention-lab export --state state.json --format csv                         # a request body

``--state`` takes a page, embed, lab or lab-embed URL (its ``fig=N`` or ``figure=<id>``,
else its ``#fig-N`` or ``#<id>``, honoured), a query string, or a FILE holding one of
those or a JSON request body (optionally with a ``view`` object as in
``POST /api/v1/figures``); ``-`` reads stdin.
``--figure`` is a figure number, a lab figure id or ``all`` (default: what the URL names,
else everything). Anything that cannot be exported (an unknown path, fragment, lab or
figure) is refused with a message naming it and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.export.documents import built, drawn_theme, page_document, page_picture
from app.export.numpy_scripts import numpy_snippet
from app.export.tables import stages_csv_zip, stages_json
from app.export.targets import Target, body_target, is_url, url_target
from app.figures.registry import BY_NUMBER
from app.figures.view_fields import DRAWN_THEMES
from app.inputs.errors import FieldError
from app.inputs.lab_controls import ControlError
from app.inputs.link import encode_body
from app.inputs.resolve import Resolved, StateError, resolve_link
from app.inputs.view import ViewState
from app.settings import Settings, get_settings
from app.wire import encode

FORMATS = ("html", "svg", "json", "csv", "numpy")
SUFFIX = {"html": ".html", "svg": ".svg", "json": ".json", "csv": ".zip", "numpy": ".py"}
# A lab's figures, written by the caller's surface (``app.http.lab_export.export_lab``):
# (lab id, query, figure ids or None for all, format, settings) -> the file's bytes.
LabExporter = Callable[[str, dict[str, str], tuple[str, ...] | None, str, Settings], bytes]


def add_export_parser(sub: Any, labs: LabExporter | None = None) -> None:
    """Register ``export`` on the CLI's subparsers (``app.cli.build_parser``); ``labs``
    writes lab figures (without it a lab URL is refused)."""
    p = sub.add_parser(
        "export",
        help="write figures or a lab (HTML, SVG) or every stage (JSON, CSV, NumPy)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    source = p.add_mutually_exclusive_group()
    source.add_argument("--preset", help="a named example (default: i-love-llms)")
    source.add_argument(
        "--state",
        metavar="URL|FILE",
        help="a page, embed or lab URL or query, or a file holding one or a JSON body "
        "('-' = stdin)",
    )
    p.add_argument("--figure", help="a figure number 1-13, a lab figure id, or all")
    p.add_argument("--format", choices=FORMATS, default="html", help="default html")
    p.add_argument("--theme", choices=DRAWN_THEMES, help="default: the URL's, else light")
    p.add_argument("--root-path", default="", help="the site's sub-path, e.g. /attention")
    p.add_argument(
        "--output",
        "-o",
        metavar="PATH",
        help="file to write ('-' = stdout; default attention-lab-<state>-<figures>.<ext>)",
    )
    p.set_defaults(handler=lambda args: run_export(args, labs))


def state_params(text: str) -> dict[str, str]:
    """A JSON request body's text (an object: it starts with "{") as URL parameters (``s``
    and the view)."""
    try:
        body = json.loads(text)
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


def read_target(args: argparse.Namespace) -> Target:
    """What the arguments ask for (StateError naming the option when it cannot be)."""
    if not args.state:
        return body_target({"preset": args.preset} if args.preset else {}, args.figure)
    given = args.state
    if given == "-":
        text = sys.stdin.read()
    elif is_url(given) or (given.startswith("/") and not Path(given).is_file()):
        text = given
    else:
        text = Path(given).read_text("utf-8")
    text = text.strip()
    if text.startswith("{"):
        return body_target(state_params(text), args.figure)
    if not text:
        raise StateError("--state", "the state is empty")
    return url_target(text, args.figure, args.root_path)


def render_page(target: Target, fmt: str, theme: str | None, settings: Settings) -> bytes:
    """The bytes of a page export."""
    drawn = 0 if fmt in ("csv", "numpy") else max(1, len(target.figures))
    resolved = resolve_link(target.params, settings, figures=drawn)
    if fmt == "csv":
        return stages_csv_zip(resolved.stages, resolved.link.body)
    if fmt == "numpy":
        view = resolved.link.view
        return numpy_snippet(resolved.input, resolved.stages, view, resolved.title).encode()
    if fmt == "html":
        return page_document(resolved, target.figures, settings, theme).encode()
    if len(target.figures) != 1:
        raise StateError("--figure", f"--format {fmt} writes one figure: name it with --figure "
                         "or the URL's fig=N")  # fmt: skip
    if fmt == "svg":
        return page_picture(resolved, target.figures[0], settings, theme).svg.encode()
    return _json(resolved, target.figures[0], theme, settings)


def _json(resolved: Resolved, number: int, theme: str | None, settings: Settings) -> bytes:
    if BY_NUMBER[number].builder is None:
        raise StateError("--figure", f"Figure {number} is a drawing without numbers; export "
                         "it as html")  # fmt: skip
    spec = built(resolved, (number,), drawn_theme(resolved, theme))[str(number)]
    return encode({**stages_json(resolved.stages, resolved.link.body), "figure": spec})


def _name(target: Target, fmt: str) -> str:
    if target.lab is not None:
        one = f"-{target.lab_figures[0]}" if target.lab_figures else ""
        return f"attention-lab-{target.lab}{one}{SUFFIX[fmt]}"
    stem = target.params.get("preset") or ("state" if target.params.get("s") else "i-love-llms")
    which = f"fig{target.figures[0]}" if len(target.figures) == 1 else "figures"
    return f"attention-lab-{stem}-{which}{SUFFIX[fmt]}"


def run_export(args: argparse.Namespace, labs: LabExporter | None = None) -> int:
    settings = get_settings()
    try:
        target = read_target(args)
        if target.lab is not None:
            if labs is None or args.format not in ("html", "svg"):
                raise StateError("--format", "a lab exports as html (or one figure as svg)")
            query = dict(target.params)
            if args.theme:
                query["theme"] = args.theme
            data = labs(target.lab, query, target.lab_figures, args.format, settings)
        else:
            data = render_page(target, args.format, args.theme, settings)
    except OSError as exc:
        return _fail(f"--state: {exc}")
    except StateError as exc:
        return _fail(f"{exc.param}: {exc.message}")
    except ControlError as exc:
        return _fail(f"{exc.key}: {exc.message}")
    if args.output == "-":
        sys.stdout.buffer.write(data)
        return 0
    path = Path(args.output or _name(target, args.format))
    path.write_bytes(data)
    print(f"wrote {path} ({len(data):,} bytes)", file=sys.stderr)
    return 0


def _fail(message: str) -> int:
    print(f"attention-lab export: {message}", file=sys.stderr)
    return 2
