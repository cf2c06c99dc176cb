"""One error handler, two surfaces: a browser opening a wrong address gets an HTML page
that says what was wrong and leads back; the API and scripts get the JSON shape."""

from __future__ import annotations

from fastapi.testclient import TestClient

BROWSER = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def test_a_browser_gets_an_html_404_page(client: TestClient) -> None:
    r = client.get("/nope", headers=BROWSER)
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html")
    assert "<h1>Not found</h1>" in r.text
    assert "there is no page at this address" in r.text
    assert 'href="/"' in r.text
    assert "content-security-policy" in r.headers


def test_a_script_gets_json_for_the_same_address(client: TestClient) -> None:
    r = client.get("/nope", headers={"accept": "application/json"})
    assert r.status_code == 404
    assert r.json() == {"detail": "Not Found"} or r.json()["detail"]


def test_the_api_answers_json_even_to_a_browser(client: TestClient) -> None:
    r = client.get("/api/v1/nope", headers=BROWSER)
    assert r.status_code == 404
    detail = r.json()["detail"][0]
    assert detail["field"] == "path"
    assert detail["type"] == "http_error"


def test_a_browser_gets_an_html_405_page_with_allow(client: TestClient) -> None:
    r = client.post("/labs", headers=BROWSER)
    assert r.status_code == 405
    assert r.headers["content-type"].startswith("text/html")
    assert "GET" in r.headers["allow"]
