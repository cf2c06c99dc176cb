"""The lesson pages (issue 19, app/web/lessons.py): the index, a built-in lesson, any
lesson from its l= link, the editor; the player's state handed over as JSON; errors as
HTML pages naming the field; hostile lesson text printed as text; the links into the
lessons from the main page and every lab, and Previous/Next on every lab section; the
offline document (app/export/lesson_document.py) and the bundler it inlines the player
with (app/export/js_bundle.py)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.export import js_bundle
from app.export.lesson_document import lesson_html
from app.figures.labs import LABS
from app.http.lesson_labs import lab_figure
from app.lessons.builtin import builtin_ids, builtin_json
from app.lessons.link import encode_lesson
from app.main import create_app
from app.settings import Settings

HTML = {"accept": "text/html"}
HOSTILE = '<img src=x onerror="alert(1)">'
STATE = re.compile(r'<script type="application/json" id="lesson-state">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def hostile_lesson() -> dict[str, Any]:
    return {
        "version": 1,
        "title": f"Title {HOSTILE}",
        "summary": f"Summary {HOSTILE}",
        "steps": [
            {
                "title": f"Step {HOSTILE}",
                "text": f"Text {HOSTILE}\n</script><script>alert(2)</script>",
                "state": {"page": "main", "query": "preset=i-love-llms", "figures": [1, 6]},
                "question": {"kind": "attends_most", "prompt": f"Prompt {HOSTILE}", "row": 2},
            },
            {
                "title": "A lab section",
                "state": {"page": "lab", "lab": "masks", "section": "mask-kinds"},
            },
        ],
    }


def state_of(html: str) -> dict[str, Any]:
    match = STATE.search(html)
    assert match, "no #lesson-state"
    data: dict[str, Any] = json.loads(match.group(1))
    return data


def test_index_lists_every_builtin_with_its_modes(client: TestClient) -> None:
    r = client.get("/lessons", headers=HTML)
    assert r.status_code == 200
    for lesson_id in builtin_ids():
        assert f'href="/lessons/{lesson_id}"' in r.text
        assert f'href="/lessons/{lesson_id}?mode=present"' in r.text
    assert 'href="/lessons/edit"' in r.text
    assert 'aria-current="page"' in r.text  # the navigation's Lessons link


@pytest.mark.parametrize("lesson_id", builtin_ids())
def test_a_builtin_hands_the_player_every_step(client: TestClient, lesson_id: str) -> None:
    r = client.get(f"/lessons/{lesson_id}", headers=HTML)
    assert r.status_code == 200
    state = state_of(r.text)
    raw = builtin_json(lesson_id)
    assert raw is not None
    assert state["lesson_id"] == lesson_id
    assert state["mode"] == "student"
    assert state["lesson"]["title"] == raw["title"]
    assert len(state["steps"]) == len(raw["steps"])
    for step, given in zip(state["steps"], raw["steps"], strict=True):
        if given["state"]["page"] == "lab":
            assert step["kind"] == "lab"
            assert (step["lab"], step["section"]) == (
                given["state"]["lab"],
                given["state"]["section"],
            )
            assert step["open"].startswith(f"/labs/{step['lab']}")
            assert step["open"].endswith(f"#{step['section']}")
        else:
            assert step["kind"] == "main"
            assert step["figures"] == given["state"]["figures"]
            assert set(step["view"]) == {"focus", "head", "stretch", "softmax_row"}
            assert step["body"]["tokens"]
            assert step["open"].startswith("/?")
            assert step["static"] == [n for n in step["figures"] if n in (1, 2)]
    # the player's DOM contract is in the page before the script runs
    for marker in ('id="lesson-player"', "data-next", "data-prev", 'data-role="progress"'):
        assert marker in r.text
    assert "js/lessons/page.js" in r.text


def test_modes(client: TestClient) -> None:
    present = client.get("/lessons/why-scale?mode=present", headers=HTML)
    assert present.status_code == 200
    assert state_of(present.text)["mode"] == "present"
    assert "Presenter keys" in present.text
    assert "presenting" in present.text
    assert 'href="?"' in present.text  # back to student mode
    student = client.get("/lessons/why-scale", headers=HTML)
    assert 'href="?mode=present"' in student.text
    bad = client.get("/lessons/why-scale?mode=loud", headers=HTML)
    assert bad.status_code == 400
    assert "<code>mode</code>" in bad.text
    assert "student, present" in bad.text


def test_unknown_lesson_names_the_id_and_the_builtins(client: TestClient) -> None:
    r = client.get("/lessons/no-such-lesson", headers=HTML)
    assert r.status_code == 404
    assert "<code>id</code>" in r.text
    for lesson_id in builtin_ids():
        assert lesson_id in r.text


def test_play_takes_any_lesson_from_its_link(client: TestClient) -> None:
    raw = builtin_json("masks-and-order")
    assert raw is not None
    raw.pop("id")
    r = client.get("/lessons/play?l=" + encode_lesson(raw), headers=HTML)
    assert r.status_code == 200
    state = state_of(r.text)
    assert state["lesson_id"] is None
    assert state["lesson"]["title"] == raw["title"]


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ("", 400, "l"),
        ("l=%25%25%25", 400, "l"),
        ("l=" + "A" * 60_000, 400, "l"),
        ("l=" + encode_lesson({"version": 1, "title": "x", "steps": [], "extra": 1}), 422, "extra"),
        ("l=" + encode_lesson({**hostile_lesson(), "version": 2}), 422, "version"),
    ],
)
def test_a_bad_link_names_the_field(
    client: TestClient, query: str, status: int, field: str
) -> None:
    r = client.get(f"/lessons/play?{query}", headers=HTML)
    assert r.status_code == status, r.text[:300]
    assert "text/html" in r.headers["content-type"]
    assert field in r.text


def test_a_bad_step_state_names_its_path(client: TestClient) -> None:
    lesson = hostile_lesson()
    lesson["steps"][0]["state"]["query"] = "preset=nope"
    r = client.get("/lessons/play?l=" + encode_lesson(lesson), headers=HTML)
    assert r.status_code == 422
    assert "steps[0].state.query" in r.text


def test_hostile_lesson_text_stays_text(client: TestClient) -> None:
    r = client.get("/lessons/play?l=" + encode_lesson(hostile_lesson()), headers=HTML)
    assert r.status_code == 200
    assert "<img" not in r.text
    assert "alert(2)</script>" not in r.text
    assert "&lt;img src=x onerror=" in r.text  # printed, escaped
    assert state_of(r.text)["lesson"]["steps"][0]["question"]["prompt"] == f"Prompt {HOSTILE}"


def test_editor_page(client: TestClient) -> None:
    r = client.get("/lessons/edit", headers=HTML)
    assert r.status_code == 200
    for marker in ("lesson-editor", "editor-steps", "editor-preview", "editor-download",
                   "editor-file", "editor-link", "js/lessons/edit.js"):  # fmt: skip
        assert marker in r.text
    for lesson_id in builtin_ids():
        assert f'data-start-from="{lesson_id}"' in r.text


def test_main_page_and_labs_link_the_lessons(client: TestClient) -> None:
    pages = ["/", *(f"/labs/{lab.id}" for lab in LABS if lab.status == "ready")]
    for path in pages:
        html = client.get(path, headers=HTML).text
        for lesson_id in builtin_ids():
            assert f'href="/lessons/{lesson_id}"' in html, path
        assert "js/lessons/collect.js" in html, path


@pytest.mark.parametrize(
    "lab", [lab for lab in LABS if lab.status == "ready"], ids=lambda lab: lab.id
)
def test_every_lab_section_has_previous_and_next(client: TestClient, lab: Any) -> None:
    html = client.get(f"/labs/{lab.id}", headers=HTML).text
    names = [f.name for f in lab.figures]
    pagers = re.findall(r'<nav class="section-pager"(.*?)</nav>', html, re.S)
    assert len(pagers) == len(names)
    for i, pager in enumerate(pagers):
        if i:
            assert f'href="#{names[i - 1]}" rel="prev"' in pager
        following = (
            f'href="#{names[i + 1]}" rel="next"' if i + 1 < len(names) else 'href="#other-labs"'
        )
        assert following in pager
    assert 'id="other-labs"' in html


# ---- the offline document ----


@pytest.fixture(scope="module")
def offline() -> str:
    settings = Settings()
    return lesson_html(hostile_lesson(), settings=settings, lab_figure=lab_figure(settings))


def test_offline_document_inlines_everything(offline: str) -> None:
    data = json.loads(re.search(r'id="lesson-data">(.*?)</script>', offline, re.S).group(1))  # type: ignore[union-attr]
    assert data["lesson"]["title"] == f"Title {HOSTILE}"
    answer = data["answers"][0]
    assert answer["kind"] == "attends_most"
    assert answer["accept"]["choice"].startswith("k")
    assert data["answers"][1] is None
    main, lab = data["steps"]
    assert set(main) == {"light", "dark"}
    assert main["light"]["numbers"] == [1, 6]
    assert "6" in main["light"]["figures"]
    assert lab["dark"]["kind"] == "lab"
    assert lab["dark"]["figure"]["name"] == "mask-kinds"
    # Figure 1 is a drawing: its template travels with the file
    assert 'id="lesson-static-1"' in offline
    # nothing is fetched: no module import, no external script or stylesheet
    assert 'type="module"' not in offline
    # (the icon is an inline data: URL, so the browser never asks the host for one)
    assert not re.search(r"<(script|link)[^>]+(src|href)=(?![\"']data:)", offline)
    assert "fetch(" not in offline.split('id="lesson-data"')[1].split("</script>", 1)[0]


def test_offline_document_prints_text_as_text(offline: str) -> None:
    assert "<img" not in offline
    assert "</script><script>alert(2)" not in offline
    assert "&lt;img src=x onerror=" in offline


def test_offline_document_without_a_lab_builder_and_without_charts() -> None:
    lesson = copy.deepcopy(hostile_lesson())
    html = lesson_html(lesson, settings=Settings())
    data = json.loads(re.search(r'id="lesson-data">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    assert data["steps"][1] == {}
    assert "Plotly" not in html.split("</style>", 1)[1][:2000]


# ---- the bundler ----


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_bundle_runs_modules_in_import_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a_js = [
        'import { b as bee } from "./lib/b.js";',
        'import data from "./d.json" with { type: "json" };',
        "export const a = bee() + data.n;",
    ]
    b_js = ["export function b() {", "  return 1;", "}", "const c = 2;", "export { c };",
            'export { b as again } from "./b2.js";']  # fmt: skip
    files = {"js/a.js": "\n".join(a_js), "js/lib/b.js": "\n".join(b_js),
             "js/lib/b2.js": "export function b() {}\n", "js/d.json": '{"n": 41}'}  # fmt: skip
    write(tmp_path, files)
    monkeypatch.setattr(js_bundle, "static_dir", lambda: tmp_path)
    js_bundle.bundle.cache_clear()
    text = js_bundle.bundle("js/a.js")
    assert text.index("// js/lib/b2.js") < text.index("// js/lib/b.js") < text.index("// js/a.js")
    assert "const { b: bee } = __m" in text
    assert "const data = __m" in text
    assert "return { c: c, again: __m0.b, b };" in text
    assert "import " not in text
    assert "export " not in text


@pytest.mark.parametrize(
    "files",
    [
        {"js/a.js": "export default 1;\n"},
        {"js/a.js": 'const m = import("./b.js");\n'},
        {"js/a.js": 'import * as b from "./b.js";\n', "js/b.js": "export const x = 1;\n"},
        {"js/a.js": 'import { b } from "./b.js";\n', "js/b.js": 'import { a } from "./a.js";\n'},
    ],
    ids=["default", "dynamic", "namespace", "cycle"],
)
def test_bundle_refuses_what_it_cannot_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
) -> None:
    write(tmp_path, files)
    monkeypatch.setattr(js_bundle, "static_dir", lambda: tmp_path)
    js_bundle.bundle.cache_clear()
    with pytest.raises(js_bundle.BundleError):
        js_bundle.bundle("js/a.js")
    js_bundle.bundle.cache_clear()
