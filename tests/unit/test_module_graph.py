"""app.web.assets.module_graph: the modules a page preloads are exactly the ones its entry
imports, at every depth, so the browser fetches the graph at once."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.main import create_app
from app.settings import Settings
from app.web.assets import module_graph


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


def test_every_static_import_at_every_depth_and_no_dynamic_one(tmp_path: Path) -> None:
    write(tmp_path, "js/main.js", 'import { a } from "./a.js";\nimport {\n  b,\n} from "./b.js";\n'
          'const p = () => import("./lazy.js");\n')  # fmt: skip
    write(tmp_path, "js/a.js", 'export * from "./sub/c.js";\nimport "./b.js";\n')
    write(tmp_path, "js/b.js", 'import data from "./words.json" with { type: "json" };\n')
    write(tmp_path, "js/sub/c.js", 'import { a } from "../a.js";\n')  # a cycle back
    write(tmp_path, "js/lazy.js", "")
    assert module_graph("js/main.js", tmp_path) == ("js/a.js", "js/b.js", "js/sub/c.js")


def test_the_main_page_preloads_its_whole_graph() -> None:
    html = TestClient(create_app()).get("/").text
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/static/([^"]+)"', html))
    expected = set(module_graph("js/main.js")) | set(module_graph("js/lessons/collect.js"))
    assert preloaded == expected - {"js/main.js", "js/lessons/collect.js"}
    assert {"js/grid_core.js", "js/notation_core.js", "js/editor_core.js"} <= preloaded  # depth 2+
    assert (
        "js/plotly.js" in preloaded
    )  # the loader, not plotly itself (imported when a chart needs it)


def test_a_lab_page_preloads_under_the_root_path() -> None:
    client = TestClient(create_app(Settings(root_path="/attention")))
    html = client.get("/labs/order").text
    urls = re.findall(r'<link rel="modulepreload" href="([^"]+)"', html)
    assert urls
    assert all(u.startswith("/attention/static/js/") for u in urls), urls
    for url in urls:
        assert client.get(url.removeprefix("/attention")).status_code == 200, url
    assert "/attention/static/js/labs/lab.js" in urls  # order.js imports the lab's module
