"""The one Jinja environment: every page, embed, lab, error page and exported HTML file is
rendered from ``templates/`` by ``environment``.

Its number filter, ``num``, writes a number exactly as the page's JavaScript would
(``app.figures.fmt.exact``), so an editor cell reads the same before and after the script
runs. Its notation filter, ``math``, escapes a text and writes the product's notation in
it (W^Q, d_k, q_2, √d_k, e^−2: ``app.notation``) as MathML, exactly as the page's
``setNotation`` (static/js/notation.js) does. Autoescape is on; templates are read once
(no reload on every request). It lives at the top of ``app`` because two surfaces render
with it: the web pages (``app.web``, which adds its globals ``asset_url`` and
``oembed_link``) and the standalone HTML export (``app.export.html``), which must work
without a server.
"""

from __future__ import annotations

from typing import Any

import jinja2
from markupsafe import Markup, escape

from app import __version__
from app.figures.fmt import exact
from app.notation import Token, Tree, spoken, tokens
from app.paths import templates_dir

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(templates_dir())), autoescape=True, auto_reload=False
)
environment.globals["version"] = __version__


def _num(value: Any) -> str:
    return exact(float(value))


def mathml(tree: Tree) -> str:
    """One MathML tree as markup: ["msub", ["mi", "d"], ["mi", "k"]] -> <msub>…</msub>."""
    tag, *children = tree
    inner = "".join(str(escape(c)) if isinstance(c, str) else mathml(c) for c in children)
    return f"<{tag}>{inner}</{tag}>"


def _math(value: Any) -> Markup:
    """``text`` escaped, with its notation as inline MathML. Markup given (already HTML)
    is returned as it is: only plain text is parsed."""
    if isinstance(value, Markup):
        return value
    return Markup("".join(map(_html, tokens("" if value is None else str(value)))))


def _html(token: Token) -> str:
    if len(token) == 4:
        _, tree, source, spoken = token
        # alttext: the source as typed ("√d_k"), for copying and for tests reading the text
        return (
            f'<math alttext="{escape(source)}" aria-label="{escape(spoken)}">{mathml(tree)}</math>'
        )
    return str(escape(token[1]))


def _spoken(value: Any) -> str:
    """An attribute (an aria-label) cannot hold MathML: the text's notation in words
    ("W^Q row 1" -> "W Q row 1"), escaped by the template as any attribute."""
    return spoken("" if value is None else str(value))


environment.filters["num"] = _num
environment.filters["math"] = _math
environment.filters["spoken"] = _spoken
