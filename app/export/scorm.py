"""A lesson as a SCORM package: ``scorm_package(lesson, html, version) -> bytes`` (a zip).

The package holds ``imsmanifest.xml`` (SCORM 1.2, or SCORM 2004 4th Edition, in the
namespaces their schemas declare) and ONE SCO, ``index.html``: the
lesson's offline document (``app.export.lesson_document.lesson_html``) with the SCORM
adapter (``static/js/lessons/scorm_adapter.js``) inlined in its head, so that it listens
before the player announces its first step. The adapter reports completion and the score
through the LMS's API, keeps the learner's record in the LMS (``cmi.suspend_data``, never
the browser's storage) and reports each question as an interaction; it does nothing when no
LMS is there, so the same file still works opened on its own.

The schema control files (ADL's and IMS's XSDs) are not in the package: their terms were
not established for vendoring here, so the manifest names no schema location (no file that
the zip lacks); LMSs import a manifest by its namespaces.

The pass mark (``mastery``, percent) goes in the manifest where each version keeps it (1.2:
``adlcp:masteryscore``; 2004: the primary objective's ``imsss:minNormalizedMeasure``, which
the LMS hands the SCO as ``cmi.scaled_passing_score``) and in the adapter's attributes as a
fallback. A lesson without questions has no score, so it carries no pass mark.

The zip is deterministic (fixed timestamps, fixed order): the same lesson gives the same
bytes. ``lesson_slug`` is the file name every lesson export uses.
"""

from __future__ import annotations

import io
import re
import unicodedata
import zipfile
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal
from xml.sax.saxutils import escape, quoteattr

from app.export.html import script_text
from app.inputs.fields import printable
from app.paths import static_dir

Version = Literal["1.2", "2004"]
VERSIONS: tuple[Version, ...] = ("1.2", "2004")
ADAPTER_FILE = "js/lessons/scorm_adapter.js"
SCO_FILE = "index.html"
DEFAULT_MASTERY = 80
# The zip's timestamps: fixed, so one lesson always gives the same bytes (1980 is the
# earliest date a zip can hold).
_EPOCH = (1980, 1, 1, 0, 0, 0)
_HEAD_END = re.compile(r"</head\s*>", re.IGNORECASE)

_NAMESPACES: dict[Version, str] = {
    "1.2": (
        'xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"\n'
        '          xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"'
    ),
    "2004": (
        'xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"\n'
        '          xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"\n'
        '          xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"\n'
        '          xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"\n'
        '          xmlns:imsss="http://www.imsglobal.org/xsd/imsss"'
    ),
}
_SCHEMA_VERSION: dict[Version, str] = {"1.2": "1.2", "2004": "2004 4th Edition"}


def lesson_slug(title: str) -> str:
    """The file name stem of a lesson's exports: its title in lower-case ASCII words
    joined by hyphens ("Why divide by √d_k?" -> "why-divide-by-d-k"), at most 60
    characters; "lesson" when nothing is left."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    words = re.findall(r"[a-z0-9]+", ascii_title.lower())
    slug = "-".join(words)[:60].strip("-")
    return slug or "lesson"


def question_count(lesson: Mapping[str, Any]) -> int:
    return sum(1 for step in lesson.get("steps", []) if step.get("question"))


def manifest(lesson: Mapping[str, Any], version: Version, mastery: int) -> str:
    """``imsmanifest.xml`` for the one-SCO package of ``lesson``."""
    title = escape(printable(str(lesson["title"])))
    ident = "attention-lab-" + (lesson.get("id") or lesson_slug(str(lesson["title"])))
    scored = question_count(lesson) > 0
    if version == "1.2":
        item_extra = (
            f"\n        <adlcp:masteryscore>{mastery}</adlcp:masteryscore>" if scored else ""
        )
        scorm_type = 'adlcp:scormtype="sco"'
    else:
        item_extra = _sequencing(mastery if scored else None)
        scorm_type = 'adlcp:scormType="sco"'
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier={quoteattr(ident)} version="1"
          {_NAMESPACES[version]}>
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>{_SCHEMA_VERSION[version]}</schemaversion>
  </metadata>
  <organizations default="lesson-organization">
    <organization identifier="lesson-organization">
      <title>{title}</title>
      <item identifier="lesson-item" identifierref="lesson-sco" isvisible="true">
        <title>{title}</title>{item_extra}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="lesson-sco" type="webcontent" {scorm_type} href="{SCO_FILE}">
      <file href="{SCO_FILE}"/>
    </resource>
  </resources>
</manifest>
"""


def _sequencing(mastery: int | None) -> str:
    """SCORM 2004: the content sets completion and success itself; with questions, the
    primary objective is satisfied by a score of at least ``mastery`` percent."""
    objectives = ""
    if mastery is not None:
        objectives = f"""
          <imsss:objectives>
            <imsss:primaryObjective objectiveID="lesson-score" satisfiedByMeasure="true">
              <imsss:minNormalizedMeasure>{mastery / 100:g}</imsss:minNormalizedMeasure>
            </imsss:primaryObjective>
          </imsss:objectives>"""
    return f"""
        <imsss:sequencing>{objectives}
          <imsss:deliveryControls completionSetByContent="true" objectiveSetByContent="true"/>
        </imsss:sequencing>"""


@cache
def adapter_source() -> str:
    return (static_dir() / ADAPTER_FILE).read_text(encoding="utf-8")


def sco_html(html: str, version: Version, mastery: int) -> str:
    """The lesson document with the adapter inlined at the end of its head."""
    tag = (
        f'<script data-scorm-version="{version}" data-mastery-score="{mastery}">\n'
        f"{script_text(adapter_source())}</script>\n"
    )
    found = _HEAD_END.search(html)
    if found is None:
        raise ValueError("the lesson document has no </head> to put the SCORM adapter in")
    return html[: found.start()] + tag + html[found.start() :]


def scorm_package(
    lesson: Mapping[str, Any], html: str, version: Version, *, mastery: int = DEFAULT_MASTERY
) -> bytes:
    """The zip an LMS imports: the manifest and the lesson as one SCO."""
    if version not in VERSIONS:
        raise ValueError(f"SCORM version must be one of {', '.join(VERSIONS)}, got {version!r}")
    if not 0 <= mastery <= 100:
        raise ValueError(f"mastery must be a percentage from 0 to 100, got {mastery}")
    files = {
        "imsmanifest.xml": manifest(lesson, version, mastery),
        SCO_FILE: sco_html(html, version, mastery),
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()
