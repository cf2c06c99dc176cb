"""The reference pages and what every page carries: /sources (the five sources, by id),
/glossary (each term once), the site navigation, the notation key, glossary terms with
their tooltips and "Try it in lab" links under the figures."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from fastapi.testclient import TestClient

from app.figures.labs import LABS
from app.figures.registry import FIGURES, LAB_LINKS
from app.web.crosslinks import figure_labs
from app.web.glossary import BY_ID as TERM_BY_ID
from app.web.glossary import TERMS
from app.web.papers import PAPERS
from app.web.sources import SOURCES
from app.web.templating import environment

PAGES = ["/", "/labs", "/labs/why-scale", "/labs/masks", "/sources", "/glossary"]


class Ids(HTMLParser):
    """Every id of a page, and every aria-describedby it names."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.described: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.append(value)
            if name == "aria-describedby" and value:
                self.described.extend(value.split())


def test_sources_names_the_five_sources_by_id(client: TestClient) -> None:
    html = client.get("/sources").text
    assert [s.id for s in SOURCES] == [
        "tutorial", "course-module", "qkv-notes", "per-position-notes", "textbook",
    ]  # fmt: skip
    for source in SOURCES:
        assert f'<section class="source-card" id="{source.id}"' in html
        assert source.takes
        assert source.ours
    assert "“Self-Attention”</h2>" in html
    assert "A tutorial by Hao Ma" in html
    assert "“Inside Transformers, Part 3: Scaled dot-product attention”" in html
    assert "“Chapter 16: Self-Attention and the Transformer”" in html
    assert "“Queries, keys and values”" in html
    assert "“Attention”</h2>" in html
    # Notation in the sources' text is MathML; no authoring notes.
    assert '<math alttext="W^O" aria-label="W O"><msup><mi>W</mi><mi>O</mi></msup></math>' in html
    for note in ("(ours)", "reconstructed", "is missing"):
        assert note not in html


def test_sources_lists_each_paper_the_new_labs_cite_with_its_arxiv_link(
    client: TestClient,
) -> None:
    html = client.get("/sources").text
    new = [lab for lab in LABS if lab.id in ("flash", "generation", "rotary")]
    intros = " ".join(" ".join(f.intro.split()) for lab in new for f in lab.figures)
    entries = {f.entry for lab in new for f in lab.figures}
    assert len(PAPERS) == len({p.id for p in PAPERS}) == len({p.arxiv for p in PAPERS}) == 10
    for paper in PAPERS:
        assert paper.named in intros, paper.id  # a lab names it, so it belongs here
        assert re.fullmatch(r"\d{4}\.\d{5}", paper.arxiv), paper.id
        assert f'<a href="https://arxiv.org/abs/{paper.arxiv}">arXiv:{paper.arxiv}</a>' in html
        assert f'<section class="source-card" id="{paper.id}"' in html
        assert f"“{paper.title}”</h3>" in html
        cited = set(re.findall(r"\b[HIJ][1-4]\b", " ".join(paper.uses)))
        assert cited, paper.id
        assert cited <= entries, paper.id  # every use names a lab entry that exists
    assert PAPERS[0].title.startswith("FlashAttention: Fast and Memory-Efficient Exact")
    assert {p.arxiv for p in PAPERS} >= {"2205.14135", "2104.09864", "2108.12409",
                                          "2305.13245", "1911.02150", "2309.17453",
                                          "2310.06825", "2309.06180"}  # fmt: skip


def test_glossary_defines_each_term_once(client: TestClient) -> None:
    html = client.get("/glossary").text
    ids = [t.id for t in TERMS]
    assert len(ids) == len(set(ids))
    wanted = {"d_model", "d_k", "d_v", "h", "L_Q", "L_K", "query", "key", "value", "score"}
    wanted |= {"weight", "softmax", "entropy", "slope", "flops", "mask", "causal"}
    wanted |= {"cross-attention", "positional-encoding", "head", "saturation"}
    assert wanted <= set(ids)
    for t in TERMS:
        assert html.count(f'<div id="{t.id}"><dt>') == 1
    assert "<dt>entropy (in bits)</dt>" in html
    assert "<dt>p(1 − p)</dt>" in html
    assert (
        '<dt><math alttext="d_k" aria-label="d k"><msub><mi>d</mi><mi>k</mi></msub></math></dt>'
        in html
    )
    assert "multiply-adds" in TERM_BY_ID["flops"].definition


def test_term_links_to_its_definition_with_a_tooltip() -> None:
    def term(*args: str) -> str:  # as a template calls it (no request: no root path)
        return environment.from_string("{{ term(*args) }}").render(args=args)

    html = term("d_k", "√d_k")
    found = re.fullmatch(
        r'<span class="term-wrap"><a class="term" href="/glossary#d_k" '
        r'aria-describedby="(tip-d_k-\d+)"><math alttext="√d_k" aria-label="square root of d k">'
        r"<msqrt>.*</msqrt></math></a>"
        r'<span class="term-tip" role="tooltip" id="(tip-d_k-\d+)">The width of a query.*'
        r"</span></span>",
        html,
    )
    assert found
    assert found.group(1) == found.group(2)
    assert term("d_k") != term("d_k")  # two uses, two ids
    with pytest.raises(KeyError):
        term("no-such-term")


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_nav_and_the_notation_key(client: TestClient, path: str) -> None:
    html = client.get(path).text
    nav = re.search(r'<nav class="site-nav" aria-label="Site">(.*?)</nav>', html, re.S)
    assert nav
    for href, label in (
        ("/labs", "Labs"),
        ("/models", "Models"),
        ("/sources", "Sources"),
        ("/glossary", "Glossary"),
    ):
        current = ' aria-current="page"' if path == href else ""
        assert f'<a href="{href}"{current}>{label}</a>' in nav.group(1)
    assert html.count('<details id="notation">') == 1
    key = html[html.index('<details id="notation">') :]
    assert "We count from 1." in key
    assert "row 2 is love" in key
    assert "count from 0" in key
    assert "pos = t − 1" in key
    for symbol in ("<mi>W</mi><mi>Q</mi>", "<mi>d</mi><mi>model</mi>", "<mi>L</mi><mi>K</mi>"):
        assert symbol in key
    # Unique ids, and every aria-describedby names an element of the page.
    parser = Ids()
    parser.feed(html)
    assert len(parser.ids) == len(set(parser.ids))
    assert set(parser.described) <= set(parser.ids)


def test_the_page_intro_links_its_terms(client: TestClient) -> None:
    html = client.get("/").text
    intro = html[html.index('<div class="intro">') : html.index("</div>", html.index("intro"))]
    for key in ("query", "key", "score", "d_k", "softmax", "weight"):
        assert f'href="/glossary#{key}"' in intro
    assert '<a href="/sources#tutorial">“Self-Attention”</a>' in intro
    assert "d<sub>k</sub>" not in html
    assert "W<sup>" not in html


def test_each_figure_links_the_labs_that_explore_it(client: TestClient) -> None:
    html = client.get("/").text
    labs = {lab.id: {f.name for f in lab.figures} for lab in LABS}
    for number, links in LAB_LINKS.items():
        for lab_id, name in links:
            assert name in labs[lab_id], (number, lab_id, name)
    for figure in FIGURES:
        panel = html[html.index(f'id="fig-{figure.number}"') :]
        panel = panel[: panel.index("</section>")]
        found = re.findall(r'<p class="try-lab">Try it in lab (.*?)</p>', panel, re.S)
        links = figure_labs(figure.number)
        assert len(found) == (1 if links else 0), figure.number
        for link in links:
            assert f'<a href="{link.href}">{link.entry} (' in found[0]
    assert [(x.href, x.entry) for x in figure_labs(12)] == [
        ("/labs/why-scale?figure=flat-line#flat-line", "C4"),
        ("/labs/why-scale?figure=saturation#saturation", "C2"),
    ]
    assert figure_labs(99) == []


RAW_NOTATION = re.compile(r"[A-Za-z]\^[A-Za-z0-9−]|[A-Za-z]_[A-Za-z0-9]|√d_")


@pytest.mark.parametrize(
    "path", ["/", "/labs/heads", "/embed/labs/one-query/two-maps", "/embed/labs/heads/split-concat"]
)
def test_aria_labels_say_the_notation_in_words(client: TestClient, path: str) -> None:
    """An aria-label cannot hold MathML: W^Q, d_k and √d_k are spoken ("W Q", "d k")."""
    html = client.get(path).text
    labels = re.findall(r'aria-label="([^"]*)"', html)
    assert labels
    assert [label for label in labels if RAW_NOTATION.search(label)] == []
    if path == "/":
        assert 'aria-label="W Q row 1, d k column 1"' in html  # the editor's cells
        assert 'aria-label="Label of row 1"' in html  # rows count from 1
