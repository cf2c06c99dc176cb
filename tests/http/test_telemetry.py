"""What an operator sees: a request id on every answer and log line, one access line with
the client address, and Prometheus metrics at /metrics (app.web.telemetry, app.http.metrics)."""

from __future__ import annotations

import logging
import re
import secrets

import pytest
from api_helpers import MakeClient
from fastapi.testclient import TestClient

from app.http import admission, metrics
from app.web.telemetry import incoming_id, printable

HEX_ID = re.compile(r"[0-9a-f]{32}")


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one series in Prometheus' text format (0 when absent)."""
    for line in text.splitlines():
        series, _, value = line.rpartition(" ")
        found, _, rest = series.partition("{")
        if found != name:
            continue
        pairs = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        if pairs == labels:
            return float(value)
    return 0.0


def test_a_request_without_an_id_gets_a_new_one(client: TestClient) -> None:
    first = client.get("/healthz").headers["x-request-id"]
    second = client.get("/healthz").headers["x-request-id"]
    assert HEX_ID.fullmatch(first)
    assert HEX_ID.fullmatch(second)
    assert first != second


def test_a_plain_request_id_is_kept_and_returned(client: TestClient) -> None:
    r = client.get("/api/v1/presets", headers={"X-Request-ID": "lb-7f3a:42"})
    assert r.headers["x-request-id"] == "lb-7f3a:42"


@pytest.mark.parametrize(
    "sent", [b"two words", b"x" * 129, b"tab\there", "café".encode(), b"a;b", b""], ids=repr
)
def test_an_unsafe_request_id_is_replaced(client: TestClient, sent: bytes) -> None:
    # Spaces, controls and long values would let a client forge or flood log lines.
    r = client.get("/healthz", headers={"X-Request-ID": sent})
    assert HEX_ID.fullmatch(r.headers["x-request-id"])


def test_incoming_id_reads_only_the_request_id_header() -> None:
    scope = {"headers": [(b"x-forwarded-for", b"1.2.3.4"), (b"x-request-id", b"abc")]}
    assert incoming_id(scope) == "abc"


def test_errors_from_the_middleware_carry_the_id_too(client: TestClient) -> None:
    headers = {"content-type": "text/plain", "x-request-id": "guard-1"}
    r = client.post("/api/v1/attention", content=b"x", headers=headers)
    assert r.status_code == 415
    assert r.headers["x-request-id"] == "guard-1"


def test_one_access_line_with_client_and_request_id(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="attention_lab.access"):
        client.get("/no-such-page", headers={"X-Request-ID": "trace-9", "accept": "*/*"})
    (record,) = [r for r in caplog.records if r.name == "attention_lab.access"]
    line = record.getMessage()
    assert re.fullmatch(r"testclient:\d+ GET /no-such-page 404 \d+\.\dms", line), line
    assert getattr(record, "request_id", None) in (None, "trace-9")  # set by the handler's filter


def test_metrics_count_requests_by_route_template(client: TestClient) -> None:
    before = client.get("/metrics").text
    key = {"route": "/api/v1/presets/{preset_id}", "method": "GET", "status": "200"}
    client.get("/api/v1/presets/i-love-llms")
    client.get("/api/v1/presets/causal")
    missing = {"route": "/api/v1/presets/{preset_id}", "method": "GET", "status": "404"}
    client.get("/api/v1/presets/no-such-preset")
    after = client.get("/metrics")
    assert after.headers["content-type"].startswith("text/plain")
    name = "attention_lab_requests_total"
    assert sample(after.text, name, **key) - sample(before, name, **key) == 2
    assert sample(after.text, name, **missing) - sample(before, name, **missing) == 1
    # Raw paths never become labels: a flood of URLs cannot grow the series.
    assert "i-love-llms" not in after.text
    buckets = "attention_lab_request_duration_seconds_count"
    assert sample(after.text, buckets, route="/api/v1/presets/{preset_id}", method="GET") >= 3


def test_metrics_label_unknown_paths_and_assets_with_bounded_names(client: TestClient) -> None:
    client.get("/a/b/c/random-1")
    client.get("/static/css/app.css")
    text = client.get("/metrics").text
    assert 'route="unmatched"' in text
    assert 'route="/static"' in text
    assert "random-1" not in text


def test_admission_rejections_and_heavy_work_in_flight(client: TestClient) -> None:
    # Deltas: the series are per process, and other tests' apps share this process.
    gate = admission.gate_of(client)
    rejected, running = "attention_lab_admission_rejections_total", "attention_lab_heavy_in_flight"
    before = client.get("/metrics").text
    slots = [gate.enter() for _ in range(gate.limit)]  # other requests hold every slot
    try:
        during = client.get("/metrics").text
        assert sample(during, running) - sample(before, running) == gate.limit
        with pytest.raises(admission.BusyError):
            gate.enter()
    finally:
        for slot in slots:
            gate.leave(slot)
    after = client.get("/metrics").text
    assert sample(after, rejected) - sample(before, rejected) == 1
    assert sample(after, running) == sample(before, running)


def test_metrics_can_be_switched_off(make_client: MakeClient) -> None:
    r = make_client(metrics=False).get("/metrics", headers={"accept": "application/json"})
    assert r.status_code == 404
    assert "ATTENTION_LAB_METRICS" in r.text


def test_made_up_methods_fold_into_one_label_and_the_scrape_stays_bounded(
    client: TestClient,
) -> None:
    """20,000 made-up method tokens once grew /metrics to 38 MB (issue 25): any method
    outside the standard ones is counted as ``other``, so the series cannot grow."""

    def flood(count: int) -> None:
        for _ in range(count):
            client.request("X" + secrets.token_hex(6).upper(), "/healthz")

    flood(20)
    before = client.get("/metrics").text
    flood(300)
    after = client.get("/metrics").text
    name = "attention_lab_requests_total"
    other = {"route": "/healthz", "method": "other", "status": "405"}
    assert sample(after, name, **other) - sample(before, name, **other) == 300
    assert not re.search(r'method="X[0-9A-F]{12}"', after)
    assert len(after.splitlines()) == len(before.splitlines())  # no new series at all
    assert metrics.method_label("PATCH") == "PATCH"
    assert metrics.method_label("patch") == "other"  # methods are case-sensitive tokens


def test_the_access_line_escapes_control_characters(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """A %0a in the path is a line feed once decoded; written raw it would forge a second
    access line."""
    forged = "/x%0a127.0.0.1:1%20GET%20/admin%20200%201.0ms%0d%00%e2%80%a8%5c"
    with caplog.at_level(logging.INFO, logger="attention_lab.access"):
        client.get(forged, headers={"accept": "*/*"})
    (record,) = [r for r in caplog.records if r.name == "attention_lab.access"]
    line = record.getMessage()
    for raw in ("\n", "\r", "\x00", "\u2028"):
        assert raw not in line
    assert re.fullmatch(
        r"testclient:\d+ GET /x\\x0a127\.0\.0\.1:1 GET /admin 200 1\.0ms\\x0d\\x00\\u2028"
        r"\\\\ 404 \d+\.\dms",
        line,
    ), line
    assert printable("/lessons/é") == "/lessons/é"  # printable text is left alone


def test_with_a_metrics_port_the_apps_port_answers_404_at_metrics(
    make_client: MakeClient,
) -> None:
    r = make_client(metrics_port=9464).get("/metrics", headers={"accept": "application/json"})
    assert r.status_code == 404
    assert "ATTENTION_LAB_METRICS_PORT" in r.text
    assert "attention_lab_requests_total" not in r.text


def test_streamed_answers_tell_a_proxy_not_to_buffer_them(client: TestClient) -> None:
    url = "/api/v1/labs/one-query/figures.ndjson?figures=two-maps"
    with client.stream("GET", url) as r:
        assert r.headers["content-type"].startswith("application/x-ndjson")
        assert r.headers["x-accel-buffering"] == "no"
    assert "x-accel-buffering" not in client.get("/api/v1/presets").headers
