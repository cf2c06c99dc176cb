"""The OpenAPI document is a contract: pinned in tests/contracts/openapi.json and compared.

Any change to a path, a field, a bound, a description or an example of /api/v1 fails here
with a diff, so it lands as a reviewed change of that file, not by accident. The file is the
document the default app serves at /api/v1/openapi.json, pretty-printed with sorted keys
(so a diff shows the change, not a reordering). When the change is intended:

    pytest --update-snapshots tests/http/test_openapi_contract.py   # or UPDATE_SNAPSHOTS=1
    git diff tests/contracts/openapi.json
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

PINNED = "tests/contracts/openapi.json"
WHAT = "the OpenAPI document (GET /api/v1/openapi.json)"


def document_text(document: dict[str, Any]) -> str:
    """The pinned form: two-space indent, sorted keys, UTF-8 as is, one final newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_openapi_document_equals_the_pinned_file(
    client: TestClient, pinned: Callable[..., None]
) -> None:
    r = client.get("/api/v1/openapi.json")
    assert r.status_code == 200, r.text
    pinned(PINNED, document_text(r.json()), WHAT)


def test_a_changed_document_fails_with_a_diff_and_the_command(
    client: TestClient, pinned: Callable[..., None], request: pytest.FixtureRequest
) -> None:
    # The comparison itself can fail: one changed title is reported, with the fix. (Not
    # while rewriting: the changed document would then be written to the file.)
    if request.config.getoption("--update-snapshots") or os.environ.get("UPDATE_SNAPSHOTS"):
        pytest.skip("rewriting the pinned files")
    document = client.get("/api/v1/openapi.json").json()
    document["info"]["title"] += " (changed)"
    with pytest.raises(pytest.fail.Exception) as failed:
        pinned(PINNED, document_text(document), WHAT)
    message = str(failed.value)
    assert f"differs from {PINNED}" in message
    assert "(changed)" in message
    assert "pytest --update-snapshots tests/http/test_openapi_contract.py" in message
