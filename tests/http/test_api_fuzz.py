"""Schemathesis fuzzes API v1 from its own OpenAPI document, in process (ASGI transport).

Valid and invalid bodies alike: no response may be a 5xx, every response must match the
documented status codes, content types and schemas, and no response may carry NaN or
Infinity. A schema-valid body may be refused only for a rule JSON Schema cannot say (and
the schema's descriptions do): shapes that must chain, heads dividing a width, the work
and size limits, rows of equal length. The number of examples is bounded so the whole
module runs in seconds. Marked ``fuzz``: the fast loop leaves it out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import schemathesis
from api_helpers import strict_json
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app.main import create_app
from app.settings import Settings

# The kinds of 422 a schema-valid body may get: a rule across fields (app.inputs.errors'
# shape_error: shapes that chain, heads dividing d_k, 2^53 in /cost), a limit of the
# server's (too_costly), and ragged rows (body.rectangular's value_error).
ACROSS_FIELDS = {"shape_error", "too_costly"}
RAGGED = "rows must all have the same length"


def refused_only_for_rules_the_schema_cannot_say(ctx: Any, response: Any, case: Any) -> None:
    """positive_data_acceptance, less the rules no JSON Schema can state: a schema-valid
    body refused for a type, a bound, a pattern or an unknown field means the schema and
    the validators disagree (e.g. 520.0 refused for an integer field)."""
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    if response.status_code != 422:
        return
    for item in json.loads(response.content)["detail"]:
        if item["loc"][:1] != ["body"]:  # the bodies' models are checked here, not queries
            continue
        ragged = item["type"] == "value_error" and item["msg"].startswith(RAGGED)
        assert item["type"] in ACROSS_FIELDS or ragged, (
            f"a schema-valid body was refused: {item} (body {case.body!r:.300})"
        )


pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module")
def api_schema() -> Any:
    """The app's own OpenAPI document, loaded when the test runs, not when it is collected:
    schemathesis builds its cases for every operation then (about 60 s of a two-core
    machine's collection when it was built at import). Not through make_client: the
    default Settings() still ignore the shell, as tests/conftest.py hides ATTENTION_LAB_*."""
    return schemathesis.openapi.from_asgi("/api/v1/openapi.json", create_app(Settings()))


schema = schemathesis.pytest.from_fixture("api_schema")


# 20 random cases per operation, on top of schemathesis' coverage phase (its boundary and
# invalid cases for every field, which max_examples does not bound). At 40 this module was
# the suite's slowest after the browser tests (a figures or export case takes up to 2 s,
# most of it drawing the body from the schema).
@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_openapi(case: Any) -> None:
    # positive_data_acceptance is off: JSON Schema cannot say that shapes must chain
    # (x columns = w_q rows, heads dividing d_k), so a schema-valid body may rightly get
    # 422. Invalid bodies must still be rejected (negative_data_rejection stays on).
    response = case.call_and_validate(
        excluded_checks=[positive_data_acceptance],
        additional_checks=[refused_only_for_rules_the_schema_cannot_say],
    )
    assert response.status_code < 500
    # schemathesis gives each header as a list of values
    content_type = "".join(response.headers.get("content-type", []))
    if response.content and content_type.startswith("application/json"):
        strict_json(response.text)
