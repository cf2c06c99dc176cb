"""The interactive API docs work in a real Chromium with no internet and the site's CSP.

A live uvicorn serves the app on a free port; every request that is not to that server
is aborted and recorded, and the docs page carries the site's Content-Security-Policy
(no inline script). Swagger UI must render the API's operations, prefill the
running example as the request body, and a "Try it out" execute must answer 200.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Route

pytestmark = pytest.mark.browser


def test_docs_render_offline_under_the_csp(browser: Browser, server_url: str) -> None:
    server = server_url
    foreign: list[str] = []
    errors: list[str] = []

    def only_local(route: Route) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context = browser.new_context()
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.route("**/*", only_local)
        response = page.goto(f"{server}/api/v1/docs")
        assert response is not None
        # The site's own policy, not one added by the test: no inline script allowed.
        assert "script-src 'self';" in response.headers["content-security-policy"]
        page.wait_for_selector("#operations-attention-attention_api_v1_attention_post")
        text = page.inner_text("#swagger-ui")
        assert "/api/v1/softmax" in text
        assert "/api/v1/presets/{preset_id}" in text
        page.click("#operations-attention-attention_api_v1_attention_post .opblock-summary")
        body = page.wait_for_selector("textarea.body-param__text")
        assert '"I"' in body.input_value()  # the running example is the prefilled body
        page.click("#operations-attention-attention_api_v1_attention_post .execute")
        status = page.wait_for_selector(".live-responses-table tr.response .response-col_status")
        assert status.inner_text().strip() == "200"
    finally:
        context.close()
    assert foreign == []
    assert errors == []
