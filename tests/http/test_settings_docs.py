"""Every setting is documented: the README's configuration table lists each field of
``Settings`` as its ``ATTENTION_LAB_*`` variable with its default, and nothing else;
each variable really changes the setting."""

from __future__ import annotations

from pathlib import Path

import pytest
from api_helpers import MakeClient
from fastapi.testclient import TestClient

from app.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
PREFIX = "ATTENTION_LAB_"


def configuration_table() -> dict[str, str]:
    """Variable -> default, from the first table under '## Configuration'."""
    section = README.read_text().split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    table = {}
    for row in rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        table[cells[0].strip("`")] = cells[1].strip("`")
    return table


def test_every_setting_is_in_the_readme_table_with_its_default() -> None:
    table = configuration_table()
    for name, field in Settings.model_fields.items():
        variable = PREFIX + name.upper()
        assert variable in table, f"add {variable} to the README's configuration table"
        expected = "unset" if field.default is None else str(field.default)
        if isinstance(field.default, bool):  # written as the variable is set: true/false
            expected = expected.lower()
        assert table[variable] == expected, f"README default of {variable}"


def test_the_table_documents_no_setting_that_does_not_exist() -> None:
    fields = {PREFIX + name.upper() for name in Settings.model_fields}
    assert set(configuration_table()) <= fields


def test_every_field_has_a_description() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description, name


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [("max_tokens", "7", 7), ("log_level", "debug", "debug"), ("workers", "4", 4),
     ("frame_ancestors", "https://a.example https://b.example",
      "https://a.example https://b.example")],
)  # fmt: skip
def test_environment_variables_set_the_settings(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: object
) -> None:
    monkeypatch.setenv(PREFIX + name.upper(), value)
    assert getattr(Settings(), name) == expected


def test_a_bad_value_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PREFIX + "WORKERS", "0")
    with pytest.raises(ValueError, match="workers"):
        Settings()


def test_healthz_answers_ok(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_test_apps_ignore_the_developer_s_environment(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tests/conftest.py: an ATTENTION_LAB_* variable in the shell changes no test."""
    monkeypatch.setenv(PREFIX + "MAX_TOKENS", "4")
    monkeypatch.setenv(PREFIX.lower() + "frame_ancestors", "https://elsewhere.example")
    settings = make_client().app.state.settings
    assert (settings.max_tokens, settings.frame_ancestors) == (512, "*")
    assert make_client(max_tokens=8).app.state.settings.max_tokens == 8
