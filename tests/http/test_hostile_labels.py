"""Control characters in token labels (issue 16): U+202E and the other bidirectional
controls, NUL, CR/LF and the other C0/C1 controls, the line and paragraph separators.

The rule is decided once, in ``app.inputs.fields``: bodies and links refuse such a label
with a 422 naming ``tokens[i]`` (a link: naming ``s``, with ``tokens[i]`` in its message
and location), and every sink that puts a label into a title, an attribute, an export or
a README passes it through ``printable`` as well. The sinks are tested here with labels
that never went through validation.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest
from api_helpers import assert_error, body
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from app.attention import AttentionInput, run
from app.export.html import figure_html
from app.export.tables import stages_csv_zip
from app.figures import build_figures
from app.inputs.fields import LABEL_PATTERN, REPLACEMENT, Label, printable
from app.inputs.link import LinkState, encode_body
from app.inputs.resolve import state_title
from app.inputs.view import ViewState
from app.web.oembed import iframe_html, oembed_response

CONTROLS = ["\u202e", "\u202d", "\u202a", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f",
            "\u061c", "\x00", "\r", "\n", "\t", "\x1b", "\x7f", "\x85", "\x9f", "\u2028",
            "\u2029"]  # fmt: skip
# Characters that never appear in a page or an export of their own accord (unlike \n, \t).
NEVER = [c for c in CONTROLS if c not in "\n\t"]
BENIGN = ["naïve", "日本語", "👩‍💻", "مرحبا", "a b", "‹a›", "x²", "ZWNJ\u200c"]


def hostile(ch: str) -> list[str]:
    return ["I", f"lo{ch}ve", "LLMs"]


@pytest.mark.parametrize("ch", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_a_body_with_a_control_character_is_a_422_naming_the_label(
    client: TestClient, ch: str
) -> None:
    for path in ("/api/v1/attention", "/api/v1/figures", "/api/v1/export?format=csv"):
        detail = assert_error(client.post(path, json=body(tokens=hostile(ch))), "tokens[1]")
        assert f"U+{ord(ch):04X}" in detail[0]["msg"]
    direct = {"q": [[1.0]] * 2, "k": [[1.0]] * 2, "v": [[1.0]] * 2, "key_tokens": ["a", ch]}
    assert_error(client.post("/api/v1/attention", json=direct), "key_tokens[1]")
    source = {"x": [[1, 0, 1, 0]] * 2, "tokens": [f"{ch}s", "t"]}
    assert_error(client.post("/api/v1/attention", json=body(source=source)), "source.tokens[0]")


@pytest.mark.parametrize("ch", ["\u202e", "\x00", "\n"], ids=lambda c: f"U+{ord(c):04X}")
def test_a_link_with_a_control_character_is_refused_naming_s_and_the_label(
    client: TestClient, ch: str
) -> None:
    s = encode_body(body(tokens=hostile(ch)))
    r = client.get(f"/api/v1/export?format=csv&s={s}")
    detail = assert_error(r, "s")
    assert detail[0]["loc"] == ["query", "s", "tokens", 1]
    assert detail[0]["msg"].startswith("tokens[1]: a label is plain text")
    embed = client.get(f"/embed/6?s={s}")
    assert embed.status_code == 400
    assert "tokens[1]" in embed.text
    if ch in NEVER:
        assert ch not in embed.text
    oembed = client.get(f"/oembed?url={quote(f'http://testserver/?s={s}', safe='')}")
    assert "tokens[1]" in assert_error(oembed, "url", 404)[0]["msg"]


def test_benign_unicode_labels_are_accepted(client: TestClient) -> None:
    state = body(tokens=BENIGN[:3])
    r = client.post("/api/v1/attention", json=state)
    assert r.status_code == 200, r.text
    assert r.json()["tokens"] == BENIGN[:3]
    for label in BENIGN:
        assert printable(label) == label


_LABEL: TypeAdapter[str] = TypeAdapter(Label)


@given(st.text(max_size=12))
def test_the_schema_pattern_is_the_validator(label: str) -> None:
    try:
        _LABEL.validate_python(label)
        accepted = True
    except ValidationError:
        accepted = False
    assert accepted == (re.fullmatch(LABEL_PATTERN, label) is not None)
    assert re.fullmatch(LABEL_PATTERN, printable(label))


def test_the_openapi_document_says_so(client: TestClient) -> None:
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    tokens = schemas["AttentionRequest"]["properties"]["tokens"]["anyOf"][0]["items"]
    assert tokens["pattern"] == LABEL_PATTERN
    assert "bidirectional controls" in tokens["description"]


# ---- the sinks, given labels that were never validated


def _stages(tokens: list[str]) -> Any:
    x = np.array([[0, 0, 1, 1], [0, 1, 0, 1], [1, 0, 0, 1]], dtype=float)
    w = np.eye(4)
    return run(AttentionInput(x=x, w_q=w, w_k=w, w_v=w, tokens=tuple(tokens)))


def _clean(text: str, labels: list[str]) -> None:
    for ch in NEVER:
        assert ch not in text, f"U+{ord(ch):04X}"
    for label in labels:
        assert label not in text


@pytest.mark.parametrize("ch", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_state_title_and_the_oembed_snippet_are_printable(ch: str) -> None:
    tokens = hostile(ch)
    title = state_title(LinkState(body={"tokens": tokens}, view=ViewState()))
    assert title == f"“I lo{REPLACEMENT}ve LLMs”"
    raw = f"Figure 6: weights of {tokens[1]}"
    snippet = iframe_html("/embed/6", raw, 720, 600)
    answer = oembed_response(src="/embed/6", title=raw, size=(720, 600), provider_url="/",
                             maxwidth=None, maxheight=None)  # fmt: skip
    for text in (snippet, answer["title"], answer["html"]):
        _clean(text, [tokens[1]])
        assert "\n" not in text
    assert f'title="Figure 6: weights of lo{REPLACEMENT}ve"' in snippet


@pytest.mark.parametrize("ch", ["\u202e", "\x00", "\r", "\n", "\u2028", "\x85"],
                         ids=lambda c: f"U+{ord(c):04X}")  # fmt: skip
def test_the_offline_html_export_is_printable(ch: str) -> None:
    tokens = hostile(ch)
    stages = _stages(tokens)
    spec = build_figures(stages, ViewState().for_tokens(3).figure_view("light", (7,)))
    html = figure_html(spec["figures"]["7"], theme="light", title=f"“{tokens[1]}”", query="")
    _clean(html, [tokens[1]])
    assert f"lo{REPLACEMENT}ve" in html  # the label is still there, inert


@pytest.mark.parametrize("ch", CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_the_csv_zip_readme_and_cells_are_printable(ch: str) -> None:
    tokens = hostile(ch)
    data = stages_csv_zip(_stages(tokens), {"tokens": tokens})
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        readme = z.read("README.txt").decode()
        cells = [z.read(n).decode() for n in z.namelist() if n.endswith(".csv")]
    _clean(readme, [tokens[1]])
    assert f"tokens (queries): I, lo{REPLACEMENT}ve, LLMs" in readme
    for text in cells:
        _clean(text, [tokens[1]])
