"""/lessons/edit hands the editor's script the question kinds' one declaration
(app/lessons/kinds.py ``editor_kinds``) in ``<script id="lesson-kinds">``."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.testclient import TestClient

from app.lessons.kinds import editor_kinds
from app.main import create_app


def test_the_editor_page_hands_its_script_the_declaration() -> None:
    with TestClient(create_app()) as client:
        response = client.get("/lessons/edit")
    assert response.status_code == 200
    found = re.search(r'<script type="application/json" id="lesson-kinds">(.*?)</script>',
                      response.text, re.S)  # fmt: skip
    assert found is not None
    declared: dict[str, Any] = json.loads(found.group(1))
    assert declared == editor_kinds()
    assert declared["kinds"]["direction"]["only_when"] == {"col": ["quantity", "weight"]}
