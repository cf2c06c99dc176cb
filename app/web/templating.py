"""``templates``: the one Jinja environment (``app.templating``) wrapped for responses
(``templates.TemplateResponse(request, name, context)``), with the globals every page may
use: ``asset_url`` (hashed static URLs), ``site_url`` (a path under the root path),
``oembed_link`` (the page's oEmbed discovery),
``view_fields`` (the one declaration of the view, by name: the controls' bounds, stops,
choices and labels, ``app.figures.view_fields``), ``term`` (a word linked to its glossary
definition, ``app.web.glossary``), ``builtin_lessons`` (the built-in lessons' ids and
titles, ``app.web.lesson_links``) and ``figure_labs`` (the lab sections that explore a
figure, ``app.web.crosslinks``); ``course_panel_data`` (a lesson's "Use in a course"
panel, ``app.web.lesson_snippets``); ``lesson_kinds`` (the one declaration of the lesson
question kinds for the editor's script, ``app.lessons.kinds.editor_kinds``).
"""

from __future__ import annotations

from fastapi.templating import Jinja2Templates

from app.figures.view_fields import BY_NAME
from app.lessons.kinds import editor_kinds
from app.templating import environment
from app.web.assets import asset_url, module_urls, site_url
from app.web.crosslinks import figure_labs
from app.web.glossary import term
from app.web.lesson_links import builtin_lessons
from app.web.lesson_snippets import course_panel_data
from app.web.oembed import oembed_link

environment.globals.update(
    asset_url=asset_url,
    module_urls=module_urls,
    site_url=site_url,
    oembed_link=oembed_link,
    view_fields=BY_NAME,
)
environment.globals.update(term=term, figure_labs=figure_labs, builtin_lessons=builtin_lessons)
environment.globals.update(course_panel_data=course_panel_data, lesson_kinds=editor_kinds)
templates = Jinja2Templates(env=environment)
