"""app/export/scorm.py: the package's files, its manifest for SCORM 1.2 and 2004 4th Edition
(namespaces, schema version, the one SCO, the pass mark where each version keeps it), the
adapter inlined in the SCO's head, hostile titles kept as text, and the same bytes for the
same lesson. The adapter's behaviour is tests/js/scorm_adapter.test.mjs; the whole package
in a SCORM runtime is tests/browser/test_lesson_scorm.py."""

from __future__ import annotations

import io
import zipfile
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from app.export.scorm import (
    VERSIONS,
    adapter_source,
    lesson_slug,
    manifest,
    sco_html,
    scorm_package,
)

CP12 = "http://www.imsproject.org/xsd/imscp_rootv1p1p2"
ADLCP12 = "http://www.adlnet.org/xsd/adlcp_rootv1p2"
CP2004 = "http://www.imsglobal.org/xsd/imscp_v1p1"
ADLCP2004 = "http://www.adlnet.org/xsd/adlcp_v1p3"
IMSSS = "http://www.imsglobal.org/xsd/imsss"
XSI = "http://www.w3.org/2001/XMLSchema-instance"

HTML = "<!doctype html><html><head><title>t</title></head><body><p>lesson</p></body></html>"


def lesson(questions: int = 2, **over: Any) -> dict[str, Any]:
    question = {"kind": "attends_most", "prompt": "Which key?", "row": 2}
    steps = [
        {
            "title": f"Step {i + 1}",
            "text": "",
            "state": {"page": "main", "query": "", "figures": [6]},
            **({"question": question} if i < questions else {}),
        }
        for i in range(3)
    ]
    return {"version": 1, "id": "why-scale", "title": "Why divide by √d_k", "steps": steps, **over}


def unzip(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        return {name: archive.read(name).decode() for name in archive.namelist()}


def no_absent_schema(root: ET.Element, files: dict[str, str]) -> None:
    """The manifest names no schema file the zip lacks (the XSDs are not vendored)."""
    pairs = root.attrib.get(f"{{{XSI}}}schemaLocation", "").split()
    assert all(name in files for name in pairs[1::2])


def test_scorm_12_manifest() -> None:
    files = unzip(scorm_package(lesson(), HTML, "1.2", mastery=75))
    assert sorted(files) == ["imsmanifest.xml", "index.html"]
    root = ET.fromstring(files["imsmanifest.xml"])
    assert root.tag == f"{{{CP12}}}manifest"
    assert root.attrib["identifier"] == "attention-lab-why-scale"
    assert root.findtext(f"{{{CP12}}}metadata/{{{CP12}}}schema") == "ADL SCORM"
    assert root.findtext(f"{{{CP12}}}metadata/{{{CP12}}}schemaversion") == "1.2"
    no_absent_schema(root, files)
    orgs = root.find(f"{{{CP12}}}organizations")
    assert orgs is not None
    org = orgs.find(f"{{{CP12}}}organization")
    assert org is not None
    assert orgs.attrib["default"] == org.attrib["identifier"]
    assert org.findtext(f"{{{CP12}}}title") == "Why divide by √d_k"
    item = org.find(f"{{{CP12}}}item")
    assert item is not None
    assert item.findtext(f"{{{ADLCP12}}}masteryscore") == "75"
    resource = root.find(f"{{{CP12}}}resources/{{{CP12}}}resource")
    assert resource is not None
    assert item.attrib["identifierref"] == resource.attrib["identifier"]
    assert resource.attrib[f"{{{ADLCP12}}}scormtype"] == "sco"
    assert resource.attrib["type"] == "webcontent"
    assert resource.attrib["href"] == "index.html"
    file = resource.find(f"{{{CP12}}}file")
    assert file is not None
    assert file.attrib["href"] in files


def test_scorm_2004_manifest() -> None:
    files = unzip(scorm_package(lesson(), HTML, "2004"))
    root = ET.fromstring(files["imsmanifest.xml"])
    assert root.tag == f"{{{CP2004}}}manifest"
    assert root.findtext(f"{{{CP2004}}}metadata/{{{CP2004}}}schemaversion") == "2004 4th Edition"
    no_absent_schema(root, files)
    resource = root.find(f"{{{CP2004}}}resources/{{{CP2004}}}resource")
    assert resource is not None
    assert resource.attrib[f"{{{ADLCP2004}}}scormType"] == "sco"
    item = root.find(f"{{{CP2004}}}organizations/{{{CP2004}}}organization/{{{CP2004}}}item")
    assert item is not None
    objective = item.find(
        f"{{{IMSSS}}}sequencing/{{{IMSSS}}}objectives/{{{IMSSS}}}primaryObjective"
    )
    assert objective is not None
    assert objective.attrib["satisfiedByMeasure"] == "true"
    assert objective.findtext(f"{{{IMSSS}}}minNormalizedMeasure") == "0.8"
    controls = item.find(f"{{{IMSSS}}}sequencing/{{{IMSSS}}}deliveryControls")
    assert controls is not None
    assert controls.attrib["completionSetByContent"] == "true"


@pytest.mark.parametrize("version", VERSIONS)
def test_no_questions_no_pass_mark(version: str) -> None:
    text = manifest(lesson(questions=0), version, 80)  # type: ignore[arg-type]
    ET.fromstring(text)
    assert "masteryscore" not in text
    assert "minNormalizedMeasure" not in text


def test_hostile_title_is_text_and_an_id_comes_from_the_title() -> None:
    title = '</title><script>alert(1)</script> & "quotes"\x07'
    text = manifest(lesson(id=None, title=title), "1.2", 80)
    root = ET.fromstring(text)
    assert "<script>" not in text
    assert root.findtext(f".//{{{CP12}}}title") == title.replace("\x07", "\ufffd")
    assert root.attrib["identifier"] == "attention-lab-title-script-alert-1-script-quotes"


def test_adapter_inlined_in_head() -> None:
    sco = sco_html(HTML, "2004", 90)
    head, body = sco.split("</head>")
    assert '<script data-scorm-version="2004" data-mastery-score="90">' in head
    assert "attention-lesson:progress" in head
    assert "API_1484_11" in head
    assert body == "<body><p>lesson</p></body></html>"
    assert "</script" not in adapter_source()  # else script_text must have escaped it
    with pytest.raises(ValueError, match="</head>"):
        sco_html("<p>no head</p>", "1.2", 80)


def test_same_lesson_same_bytes_and_bad_arguments() -> None:
    assert scorm_package(lesson(), HTML, "1.2") == scorm_package(lesson(), HTML, "1.2")
    assert scorm_package(lesson(), HTML, "1.2") != scorm_package(lesson(), HTML, "2004")
    with pytest.raises(ValueError, match="version"):
        scorm_package(lesson(), HTML, "1.3")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mastery"):
        scorm_package(lesson(), HTML, "1.2", mastery=101)


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Attention by hand", "attention-by-hand"),
        ("Why divide by √d_k?", "why-divide-by-d-k"),
        ("Café — naïve", "cafe-naive"),
        ("注意", "lesson"),
        ("x" * 80, "x" * 60),
        ("a " * 40, ("a-" * 30)[:59]),
    ],
)
def test_lesson_slug(title: str, slug: str) -> None:
    assert lesson_slug(title) == slug
