"""The reference pages: ``GET /sources`` (the five sources the product follows, by title,
``app.web.sources``, then the papers the labs of issue 31 cite, ``app.web.papers``) and
``GET /glossary`` (each term defined once, ``app.web.glossary``).
They compute nothing (data rendered into a template), so they are on the pipeline test's
short list of routes that compute nothing.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.web.glossary import TERMS
from app.web.papers import PAPERS
from app.web.sources import SOURCES
from app.web.templating import templates

router = APIRouter(include_in_schema=False)


@router.get("/sources", response_class=HTMLResponse)
def sources(request: Request) -> HTMLResponse:
    """Each source by title and author, what the product takes from it, and what is ours;
    then each paper the labs cite, with its arXiv link and what the labs take from it."""
    context = {"sources": SOURCES, "papers": PAPERS}
    page: HTMLResponse = templates.TemplateResponse(request, "sources.html", context)
    return page


@router.get("/glossary", response_class=HTMLResponse)
def glossary(request: Request) -> HTMLResponse:
    """Every term of the product, each defined once, with an anchor per term."""
    page: HTMLResponse = templates.TemplateResponse(request, "glossary.html", {"terms": TERMS})
    return page
