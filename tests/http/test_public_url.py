"""Trailing-slash redirects take their address from ATTENTION_LAB_PUBLIC_URL, never from a
Host header a client chose, and the public URL refuses what would change what a link
means (app.web.middleware.SlashRedirect, app.settings.check_public_url)."""

from __future__ import annotations

import pytest
from api_helpers import MakeClient
from pydantic import ValidationError

from app.settings import Settings, check_public_url

PUBLIC = "https://lab.example.edu"
EVIL = {"host": "evil.example"}


@pytest.mark.parametrize(
    ("sent", "moved"),
    [("/lessons/", "/lessons"), ("/models/", "/models"), ("/models/minilm/", "/models/minilm"),
     ("/api/v1/presets/", "/api/v1/presets"), ("/labs/one-query/?x=1", "/labs/one-query?x=1")],
)  # fmt: skip
def test_slash_redirects_use_the_public_url_whatever_the_host(
    make_client: MakeClient, sent: str, moved: str
) -> None:
    client = make_client(public_url=PUBLIC)
    r = client.get(sent, headers=EVIL, follow_redirects=False)
    assert r.status_code == 307
    assert r.headers["location"] == PUBLIC + moved
    assert "evil" not in r.text


def test_under_a_sub_path_the_public_url_names_it(make_client: MakeClient) -> None:
    client = make_client(public_url=f"{PUBLIC}/attention", root_path="/attention")
    r = client.get("/lessons/", headers=EVIL, follow_redirects=False)  # the proxy strips it
    assert r.headers["location"] == f"{PUBLIC}/attention/lessons"


def test_without_a_public_url_the_redirect_is_starlettes(make_client: MakeClient) -> None:
    client = make_client()
    r = client.get("/lessons/", follow_redirects=False)
    assert (r.status_code, r.headers["location"]) == (307, "http://testserver/lessons")
    assert client.get("/lessons/").status_code == 200  # and it lands on the page


def test_only_paths_a_route_takes_are_redirected(make_client: MakeClient) -> None:
    client = make_client(public_url=PUBLIC)
    assert client.get("/no-such-page/", follow_redirects=False).status_code == 404
    assert client.get("/", follow_redirects=False).status_code == 200
    # A decoded "%" goes back out encoded: the Location names the same path.
    r = client.get("/models/no%25such/", follow_redirects=False)
    assert r.headers["location"] == f"{PUBLIC}/models/no%25such"


@pytest.mark.parametrize(
    ("value", "says"),
    [("https://user:pw@lab.example.edu", "user name or password"),
     ("https://token@lab.example.edu", "user name or password"),
     ("https://lab.example.edu/my course", "spaces"), (" https://lab.example.edu", "spaces"),
     ("https://lab.example.edu/\tx", "control characters"),
     ("https://lab.example.edu/<script>", "percent-encoded"),
     ("lab.example.edu", "http(s) address"), ("https://lab.example.edu/?a=1", "query"),
     ("https://lab.example.edu:99999", "port number")],
)  # fmt: skip
def test_the_public_url_refuses_what_would_change_a_link(value: str, says: str) -> None:
    with pytest.raises(ValidationError, match="public_url") as caught:
        Settings(public_url=value)
    assert says in str(caught.value)


def test_a_plain_public_url_is_kept_without_its_trailing_slash() -> None:
    assert Settings(public_url=f"{PUBLIC}/").public_url == PUBLIC
    assert Settings(public_url="").public_url is None
    assert check_public_url("http://127.0.0.1:8000/attention") == "http://127.0.0.1:8000/attention"
