"""The "Use in a course" panel under a lesson (templates/macros/course.html and
static/js/course_panel.js), in one page load: it opens from the keyboard, Copy puts the
snippet on the clipboard, and each download button saves the file the export route
answers, named after the lesson (the SCORM zip holding its manifest, with the pass mark
typed in the panel; a pass mark outside 0–100 is refused beside the buttons)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import Page

pytestmark = pytest.mark.browser


def test_course_panel_copies_and_downloads(
    shared_page: Page, server_url: str, tmp_path: Path
) -> None:
    page = shared_page
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{server_url}/lessons/why-scale")
    page.locator('#lesson-player[data-rendered="0"]').wait_for(timeout=20_000)
    summary = page.locator("#use-in-a-course > summary")
    summary.focus()
    page.keyboard.press("Enter")
    panel = page.locator("#use-in-a-course")
    assert panel.get_attribute("open") is not None
    status = panel.locator('[data-role="course-status"]')

    panel.get_by_role("button", name="Copy: Sphinx (reStructuredText)").click()
    page.wait_for_function("() => document.querySelector('[data-role=course-status]').textContent")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith(".. raw:: html\n\n   <iframe src=")
    assert f"{server_url}/embed/lesson/why-scale" in copied
    assert copied == panel.locator('[data-snippet="sphinx"]').text_content()
    assert "copied" in (status.text_content() or "")

    mastery = panel.get_by_label("Pass mark for the SCORM packages (%)")
    assert mastery.input_value() == "80"
    mastery.fill("101")
    panel.locator('[data-export="scorm12"]').click()
    assert "whole number from 0 to 100" in (status.text_content() or "")
    mastery.fill("65")

    saved = {}
    for fmt, name in (("html", "why-divide-by-d-k.html"),
                      ("scorm12", "why-divide-by-d-k-scorm12.zip")):  # fmt: skip
        with page.expect_download(timeout=60_000) as download:
            panel.locator(f'[data-export="{fmt}"]').click()
        assert download.value.suggested_filename == name
        saved[fmt] = tmp_path / name
        download.value.save_as(saved[fmt])
        page.wait_for_function(
            f"() => document.querySelector('[data-role=course-status]').textContent"
            f".includes('Saved {name}')"
        )
    assert saved["html"].read_text(encoding="utf-8").startswith("<!doctype html>")
    with zipfile.ZipFile(saved["scorm12"]) as archive:
        assert sorted(archive.namelist()) == ["imsmanifest.xml", "index.html"]
        manifest = archive.read("imsmanifest.xml").decode()
    assert "<adlcp:masteryscore>65</adlcp:masteryscore>" in manifest
    assert errors == []
