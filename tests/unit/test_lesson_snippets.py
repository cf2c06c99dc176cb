"""app/web/lesson_snippets.py: the course-site snippets, each built by the tool of the host it
names, in a temporary folder: the Sphinx one by Sphinx, the Jupyter Book 1 one by Sphinx with
MyST-Parser (Jupyter Book 1's engine), the Quarto one by pandoc (Quarto's engine; Quarto
itself cannot be installed here), each built page holding the iframe with the lesson's embed
URL, its height and the height listener; the Jupyter Book 2 one by a real mystmd build (the
npm devDependency), whose page must hold an iframe node, not text. Hostile titles stay text;
docs/lessons.md quotes the snippets as this module writes them.

A missing tool skips its test on a developer's machine and fails on CI (``CI`` set), where
.ci/run installs pandoc and ``npm ci`` mystmd: the build tests cannot pass by skipping."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from app.inputs.link import decode_body
from app.web.lesson_snippets import (
    HEIGHT_LISTENER,
    LESSON_HEIGHT,
    course_snippets,
    lesson_embed_path,
    lesson_iframe,
    panel_snippets,
    step_query,
)

ROOT = Path(__file__).resolve().parents[2]
MYST = ROOT / "node_modules" / ".bin" / "myst"

SITE = "https://lab.example.edu"
LESSON = {"version": 1, "title": "Masks & order", "steps": [{"title": "One", "text": ""}]}


class Iframes(HTMLParser):
    """The attributes of every <iframe> and the text of every <script> in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.frames: list[dict[str, str | None]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "iframe":
            self.frames.append(dict(attrs))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


def parsed(html: str) -> Iframes:
    parser = Iframes()
    parser.feed(html)
    return parser


def need(tool: str, found: bool, how: str) -> None:
    """Skip without ``tool`` here; on CI its absence is a failure."""
    if found:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{tool} is missing on CI: {how}")
    pytest.skip(f"{tool} is not installed here: {how}")


def snippet(key: str, src: str, title: str) -> str:
    return {s.key: s for s in course_snippets(src, title)}[key].text


def check_built_frame(html: str, src: str) -> None:
    """The built page holds one iframe (the lesson's, titled, 900 px tall) and the listener."""
    built = parsed(html)
    assert len(built.frames) == 1, html
    frame = built.frames[0]
    assert frame["src"] == src
    assert frame["title"] == "Attention Lab lesson: Masks & order"
    assert frame["height"] == str(LESSON_HEIGHT)
    assert any("attention-lab:height" in s for s in built.scripts)
    assert "&lt;iframe" not in html  # never its source printed as text


def test_embed_paths() -> None:
    assert lesson_embed_path(LESSON, "masks-and-order") == "/embed/lesson/masks-and-order"
    path = lesson_embed_path(LESSON)
    assert path.startswith("/embed/lesson?l=")
    assert decode_body(path.removeprefix("/embed/lesson?l=")) == LESSON


@pytest.mark.slow
def test_sphinx_renders_the_snippet(tmp_path: Path) -> None:
    src = SITE + lesson_embed_path(LESSON)
    sphinx = {s.key: s for s in course_snippets(src, LESSON["title"])}["sphinx"]
    project = tmp_path / "src"
    project.mkdir()
    (project / "conf.py").write_text('project = "Course"\n', encoding="utf-8")
    page = f"Week 3\n======\n\nBefore the lecture.\n\n{sphinx.text}\n\nAfter the lesson.\n"
    (project / "index.rst").write_text(page, encoding="utf-8")
    out = tmp_path / "html"
    # One build in a child process (Sphinx's own warnings stay out of this process); -W
    # turns a snippet Sphinx does not understand into a failure.
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html",
         "-D", "html_theme=basic", str(project), str(out)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    check_built_frame((out / "index.html").read_text(encoding="utf-8"), src)


@pytest.mark.slow
def test_jupyter_book_1_renders_the_myst_snippet(tmp_path: Path) -> None:
    """Jupyter Book 1 is Sphinx with MyST-Parser: the same build, the page in MyST markdown."""
    need("myst-parser", importlib.util.find_spec("myst_parser") is not None,
         "pip install -e '.[test]'")  # fmt: skip
    src = SITE + lesson_embed_path(LESSON)
    project = tmp_path / "src"
    project.mkdir()
    conf = 'project = "Course"\nextensions = ["myst_parser"]\n'
    (project / "conf.py").write_text(conf, encoding="utf-8")
    page = f"# Week 3\n\nBefore.\n\n{snippet('myst', src, LESSON['title'])}\n\nAfter.\n"
    (project / "index.md").write_text(page, encoding="utf-8")
    out = tmp_path / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html",
         "-D", "html_theme=basic", str(project), str(out)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    check_built_frame((out / "index.html").read_text(encoding="utf-8"), src)


@pytest.mark.slow
def test_pandoc_renders_the_quarto_snippet(tmp_path: Path) -> None:
    """Quarto renders a page's markdown with pandoc, which passes a ```{=html} block through."""
    pandoc = shutil.which("pandoc")
    need("pandoc", pandoc is not None, "apt-get install pandoc (.ci/run does)")
    assert pandoc is not None
    src = SITE + lesson_embed_path(LESSON)
    page = f"# Week 3\n\nBefore.\n\n{snippet('quarto', src, LESSON['title'])}\n\nAfter.\n"
    done = subprocess.run(
        [pandoc, "--from", "markdown", "--to", "html5"], input=page,
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    check_built_frame(done.stdout, src)
    assert "<p><iframe" not in done.stdout  # passed through as a block, not a paragraph


@pytest.mark.parametrize(("key", "opening", "closing"), [("myst", "```{raw} html", "```"),
                         ("quarto", "```{=html}", "```")])  # fmt: skip
def test_markdown_snippets_are_raw_html_blocks(key: str, opening: str, closing: str) -> None:
    src = f"{SITE}/embed/lesson/why-scale"
    snippet = {s.key: s for s in course_snippets(src, "Why scale")}[key]
    lines = snippet.text.split("\n")
    assert lines[0] == opening
    assert lines[-1] == closing
    html = "\n".join(lines[1:-1])
    assert html == lesson_iframe(src, "Why scale") + "\n" + HEIGHT_LISTENER
    assert parsed(html).frames[0]["src"] == src


def test_mystmd_snippet_is_the_iframe_directive() -> None:
    src = f"{SITE}/embed/lesson/why-scale"
    snippet = {s.key: s for s in course_snippets(src, "Why\nscale\u2028:::")}["mystmd"]
    # A line break in the title would end the option (and ::: could close the directive).
    title = ":title: Attention Lab lesson: Why\ufffdscale\ufffd:::"
    assert snippet.text.splitlines() == [f":::{{iframe}} {src}", ":width: 100%", title, ":::"]


def test_docs_quote_every_snippet_as_written() -> None:
    docs = (ROOT / "docs" / "lessons.md").read_text(encoding="utf-8")
    for s in course_snippets(f"{SITE}/embed/lesson/why-scale", "Why divide by √d_k"):
        block = f"<!-- snippet: {s.key} -->\n````{s.language}\n{s.text}\n````\n"
        assert block in docs, f"docs/lessons.md should quote the {s.key} snippet:\n{block}"


def test_hostile_title_stays_text() -> None:
    title = '"><script>alert(1)</script>\x00'
    for snippet in course_snippets(f"{SITE}/embed/lesson?l=abc&x=\"'", title):
        if snippet.key == "mystmd":  # a directive, no HTML: the title is its option's text
            assert snippet.text.split("\n")[2] == ":title: Attention Lab lesson: " + (
                title.replace("\x00", "\ufffd")
            )
            continue
        frames = parsed(snippet.text).frames
        assert len(frames) == 1
        assert frames[0]["title"] == "Attention Lab lesson: " + title.replace("\x00", "\ufffd")
        assert frames[0]["src"] == f"{SITE}/embed/lesson?l=abc&x=\"'"
        assert len(re.findall("<script>", snippet.text)) == 1  # only the listener's


def nodes(tree: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """Every node of type ``kind`` in a mystmd page's tree (its mdast)."""
    found = [tree] if tree.get("type") == kind else []
    for child in tree.get("children", []):
        found += nodes(child, kind)
    return found


def built_page(project: Path, name: str) -> dict[str, Any]:
    return json.loads((project / "_build/site/content" / f"{name}.json").read_text("utf-8"))


@pytest.mark.slow
def test_mystmd_renders_the_jupyter_book_2_snippet(tmp_path: Path) -> None:
    need("mystmd", shutil.which("node") is not None and MYST.exists(),
         "`npm ci` installs it (package.json devDependency)")  # fmt: skip
    src = SITE + lesson_embed_path(LESSON)
    snippets = {s.key: s for s in course_snippets(src, LESSON["title"])}
    (tmp_path / "myst.yml").write_text(
        "version: 1\nproject:\n  title: Course\nsite:\n  template: book-theme\n", "utf-8"
    )
    plain = lesson_iframe(src, LESSON["title"])  # a plain <iframe>, which MyST also reads
    for name, text in (("week3", snippets["mystmd"].text), ("jb1", snippets["myst"].text),
                       ("plain", plain)):  # fmt: skip
        page = f"Before the lecture.\n\n{text}\n\nAfter the lesson.\n"
        (tmp_path / f"{name}.md").write_text(page, encoding="utf-8")
    # `myst build --site` writes each page as mystmd made it (the tree its theme renders),
    # then fetches the theme from outside the package registries (CI has no way there), so
    # the build may end with that fetch's failure and only that one. `myst build --html`
    # fetches the same theme first and writes nothing offline: the tree is what can be
    # checked, and it is what the theme draws from.
    done = subprocess.run(
        [str(MYST), "build", "--site"], cwd=tmp_path,
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    log = done.stdout + done.stderr
    assert done.returncode == 0 or "templates/site/myst/book-theme" in log, log
    week3 = built_page(tmp_path, "week3")["mdast"]
    frames = nodes(week3, "iframe")
    assert len(frames) == 1, week3
    assert frames[0]["src"] == src
    assert frames[0]["width"] == "100%"
    assert frames[0]["title"] == "Attention Lab lesson: Masks & order"
    texts = " ".join(t["value"] for t in nodes(week3, "text"))
    assert texts == "Before the lecture. After the lesson."
    # Which keeps the height: neither. The directive has no height option, and a plain
    # <iframe> becomes the same node with its height dropped (and width forced to 100%);
    # the theme then draws any iframe node in a box 60 % as tall as wide (docs/lessons.md).
    assert "height" not in frames[0]
    (as_html,) = nodes(built_page(tmp_path, "plain")["mdast"], "iframe")
    assert as_html["src"] == src
    assert as_html["width"] == "100%"
    assert "height" not in as_html
    # The Jupyter Book 1 snippet is what mystmd refuses: its iframe arrives as text.
    jb1 = built_page(tmp_path, "jb1")["mdast"]
    assert not nodes(jb1, "iframe")
    assert any("<iframe" in t["value"] for t in nodes(jb1, "text"))
    assert "unknown format for raw content: html" in log


@pytest.mark.parametrize("src", [f"{SITE}/embed/lesson/why-scale",
                                 f"{SITE}/embed/lesson?l=abc&mode=present",
                                 "https://\U0001f600.example/embed/lesson/x"])  # fmt: skip
def test_panel_snippets_say_where_their_step_goes(src: str) -> None:
    """What course_panel.js does (insert step_join + N at step_at, in UTF-16 code units)
    gives the server's own snippet for that step; and it names the step once."""
    for shown, expected in zip(panel_snippets(src, "Why\u00e9 \U0001f600"),
                               course_snippets(step_query(src, 6), "Why\u00e9 \U0001f600"),
                               strict=True):  # fmt: skip
        units = shown.text.encode("utf-16-le")
        cut = shown.step_at * 2
        spliced = units[:cut].decode("utf-16-le") + shown.step_join + "6"
        assert spliced + units[cut:].decode("utf-16-le") == expected.text, shown.key
        assert shown.step_join in {"?step=", "&step=", "&amp;step="}
        assert expected.text.count("step=6") == 1


def test_step_query() -> None:
    assert step_query("/lessons/why-scale", 3) == "/lessons/why-scale?step=3"
    assert step_query("/embed/lesson?l=abc", 1) == "/embed/lesson?l=abc&step=1"
