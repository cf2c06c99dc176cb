"""Copy-paste snippets that put a lesson into a course site: the one place that writes them,
for the "Use in a course" panel (``templates/macros/course.html``), the lesson oEmbed
answer and the docs' examples, so they never disagree.

Each snippet holds the lesson's iframe (``/embed/lesson/{id}`` for a built-in lesson,
``/embed/lesson?l=…`` for any other: the lesson travels in the link, the server stores
nothing) and the small listener that lets the iframe follow the height the embed posts
(``{type: "attention-lab:height", …}``, as the figure embeds do). Where a platform strips
the ``<script>``, the iframe keeps its initial height and scrolls inside. Formats:

    html    a plain web page (or an LMS page editor's HTML view)
    mystmd  Jupyter Book 2 (the mystmd engine): the ``{iframe}`` directive. mystmd refuses
            ```{raw} html (it prints the HTML as text) and keeps no height or script: its
            theme draws the frame full width in a box 60 % as tall as wide, the lesson
            scrolls inside it (tests/unit/test_lesson_snippets.py builds it with mystmd)
    myst    Jupyter Book 1 (Sphinx + MyST-Parser): a ```{raw} html block
    sphinx  Sphinx reStructuredText: a ``.. raw:: html`` directive
    quarto  Quarto: a ```{=html} raw block, tried with pandoc (Quarto's engine), not with
            Quarto itself

The title is user text: made printable, then escaped in attributes; the snippets are
plain text the page prints (escaped) inside ``<pre>``. ``course_panel_data`` is the
panel's context (a Jinja global: the macro calls it with the page's request). The panel can
open the lesson at the step the learner is on (the player's ``?step=N``, from 1): each
snippet says where ``step=N`` goes in it (``Snippet.step_at``, ``step_join``), so the
panel's script inserts a number and never writes a snippet itself.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from html import escape
from textwrap import indent
from typing import Any
from urllib.parse import quote

from starlette.requests import Request

from app.http.responses import site_base
from app.inputs.fields import printable
from app.inputs.link import encode_body

# The iframe's height before the first height message (or for good, when the platform
# strips the script): one step of a lesson with a grid figure at 720 px fits.
LESSON_HEIGHT = 900
# The listener of the figure embeds (docs/embedding.md), shared by every embed on a page.
HEIGHT_LISTENER = """<script>
  // Resize each Attention Lab iframe to the height it reports.
  window.addEventListener("message", function (event) {
    var m = event.data;
    if (!m || m.type !== "attention-lab:height" || typeof m.height !== "number") return;
    document.querySelectorAll("iframe").forEach(function (frame) {
      if (frame.contentWindow === event.source) frame.style.height = m.height + "px";
    });
  });
</script>"""


@dataclass(frozen=True)
class Snippet:
    """One platform's snippet: ``key`` (html | mystmd | myst | sphinx | quarto), a ``label`` for
    people, the ``language`` it is written in and its ``text``. ``step_at`` and ``step_join``
    say how the same snippet names a step (``stepped``): the text ``step_join`` + N goes in
    at ``step_at``, counted in UTF-16 code units as the panel's script counts."""

    key: str
    label: str
    language: str
    text: str
    step_at: int = 0
    step_join: str = ""


def lesson_embed_path(lesson: dict[str, Any], builtin_id: str | None = None) -> str:
    """The embed of a built-in lesson by its id, or of any lesson by its link."""
    if builtin_id is not None:
        return f"/embed/lesson/{quote(builtin_id, safe='')}"
    return f"/embed/lesson?l={encode_body(lesson)}"


def lesson_iframe(src: str, title: str, height: int = LESSON_HEIGHT) -> str:
    """The iframe: full width of the column, titled for screen readers, lazy."""
    name = escape(printable(f"Attention Lab lesson: {title}"))
    return (
        f'<iframe src="{escape(src)}" title="{name}" width="100%" height="{height}" '
        f'style="border:0;max-width:100%" loading="lazy" allowfullscreen '
        f'referrerpolicy="strict-origin-when-cross-origin"></iframe>'
    )


def mystmd_iframe(src: str, title: str) -> str:
    """The ``{iframe}`` directive of mystmd (Jupyter Book 2): as wide as the column, titled.
    A directive option ends at its line: ``printable`` replaces every line break."""
    name = printable(f"Attention Lab lesson: {title}")
    return f":::{{iframe}} {src}\n:width: 100%\n:title: {name}\n:::"


def course_snippets(src: str, title: str, height: int = LESSON_HEIGHT) -> list[Snippet]:
    """The five snippets for the embed URL ``src`` (absolute) of the lesson ``title``."""
    block = lesson_iframe(src, title, height) + "\n" + HEIGHT_LISTENER
    return [
        Snippet("html", "A web page (or an LMS page's HTML view)", "html", block),
        Snippet("mystmd", "Jupyter Book 2 (mystmd)", "markdown", mystmd_iframe(src, title)),
        Snippet(
            "myst",
            "Jupyter Book 1 (Sphinx + MyST-Parser)",
            "markdown",
            f"```{{raw}} html\n{block}\n```",
        ),
        Snippet(
            "sphinx", "Sphinx (reStructuredText)", "rst", ".. raw:: html\n\n" + indent(block, "   ")
        ),
        Snippet(
            "quarto",
            "Quarto (a raw HTML block; tried with pandoc, not Quarto)",
            "markdown",
            f"```{{=html}}\n{block}\n```",
        ),
    ]


def step_query(url: str, step: int) -> str:
    """``url`` opening its lesson at ``step`` (from 1, as the player's ``?step=`` counts)."""
    return f"{url}{'&' if '?' in url else '?'}step={step}"


def stepped(plain: Snippet, with_step: Snippet) -> Snippet:
    """``plain`` with where its step goes: ``with_step`` is the same snippet for step 1, which
    differs from it by one insertion (the src's ``?step=1`` or ``&step=1``, escaped as the
    snippet escapes its src)."""
    text, other = plain.text, with_step.text
    at = next((i for i, (a, b) in enumerate(zip(text, other, strict=False)) if a != b), len(text))
    inserted = other[at : at + len(other) - len(text)]
    if other != text[:at] + inserted + text[at:] or not inserted.endswith("step=1"):
        raise ValueError(f"the {plain.key} snippet names its step in more than one place")
    units = len(text[:at].encode("utf-16-le")) // 2
    return replace(plain, step_at=units, step_join=inserted.removesuffix("1"))


def panel_snippets(src: str, title: str) -> list[Snippet]:
    """The snippets of the panel: ``course_snippets``, each able to name a step."""
    return [stepped(a, b) for a, b in zip(course_snippets(src, title),
            course_snippets(step_query(src, 1), title), strict=True)]  # fmt: skip


# How much of a long l= link the panel prints (the href keeps all of it).
SHOWN_LINK = 80


def course_panel_data(
    request: Request, lesson: dict[str, Any], builtin_id: str | None = None
) -> dict[str, Any]:
    """The "Use in a course" panel of ``lesson`` (its JSON; ``builtin_id`` for a built-in):
    the lesson's link, and the snippets for its embed, from the site's public address."""
    base = site_base(request)
    page = f"/lessons/{quote(builtin_id, safe='')}" if builtin_id else (
        f"/lessons/play?l={encode_body(lesson)}"
    )  # fmt: skip
    link = base + page
    shown = link if len(link) <= SHOWN_LINK else link[: SHOWN_LINK - 1] + "…"
    src = base + lesson_embed_path(lesson, builtin_id)
    return {"link": link, "link_text": shown, "shown_link": SHOWN_LINK,
            "snippets": panel_snippets(src, str(lesson.get("title", "")))}  # fmt: skip
