"""Serving under a sub-path, set up: the ``ATTENTION_LAB_ROOT_PATH`` setting and its
checks, ``attention-lab --root-path`` (uvicorn's) passed through, the mount helpers, and
the nginx and Ingress examples in deploy/ agreeing with the app. The pages themselves
are checked in tests/http/test_root_path.py and, behind a real proxy, in
tests/browser/test_root_path_browser.py."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app import cli
from app.http.mount import path_in_app, root_path, site_path
from app.settings import Settings, check_root_path, get_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", ["/attention", "/courses/cs101/attention", "/a.b_c~d-2"])
def test_a_root_path_is_a_path_without_a_trailing_slash(value: str) -> None:
    assert check_root_path(value) == value
    assert Settings(root_path=value).root_path == value


def test_empty_or_unset_is_the_root_of_the_host() -> None:
    assert Settings().root_path is None
    assert Settings(root_path="").root_path is None


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("attention", "must start with '/'"),
        ("/attention/", "write '/attention'"),
        ("/", "must be empty, not '/'"),
        ("https://uni.example.edu/attention", "must start with '/'"),
        ("/a//b", "segments"),
        ("/a/../b", "segments"),
        ("/a b", "segments"),
        ("/a?x=1", "segments"),
        ('/a"onload="x', "segments"),
    ],
)
def test_a_bad_root_path_is_refused_saying_why(value: str, says: str) -> None:
    with pytest.raises(ValueError, match=re.escape(says)):
        check_root_path(value)
    with pytest.raises(ValueError, match="root_path"):
        Settings(root_path=value)


def test_the_environment_variable_sets_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATTENTION_LAB_ROOT_PATH", "/attention")
    assert Settings().root_path == "/attention"


def serve(monkeypatch: pytest.MonkeyPatch, argv: list[str], env: str | None) -> dict[str, Any]:
    """``attention-lab argv`` with ATTENTION_LAB_ROOT_PATH=env: what uvicorn.run got."""
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda target, **kw: calls.append(kw))
    if env is not None:
        monkeypatch.setenv("ATTENTION_LAB_ROOT_PATH", env)
    get_settings.cache_clear()
    try:
        assert cli.main(argv) == 0
    finally:
        get_settings.cache_clear()
    (call,) = calls
    return call


@pytest.mark.parametrize(
    ("argv", "env", "root"),
    [
        ([], None, ""),
        (["--root-path", "/attention"], None, "/attention"),
        (["serve", "--root-path", "/attention"], None, "/attention"),
        ([], "/from-env", "/from-env"),
        (["--root-path", "/flag"], "/from-env", "/flag"),  # the flag wins
        (["--root-path", ""], "/from-env", ""),  # an empty flag serves at the root
    ],
)
def test_the_root_path_reaches_uvicorn(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    argv: list[str], env: str | None, root: str,
) -> None:  # fmt: skip
    assert serve(monkeypatch, argv, env)["root_path"] == root
    out = capsys.readouterr().out
    if root:  # nobody opens the server itself: the proxy's address has the prefix
        assert f"for a proxy that strips {root}" in out
        assert f"https://your-host{root}/" in out
    else:
        assert "open http://127.0.0.1:8000" in out


@pytest.mark.parametrize("value", ["attention", "/attention/"])
def test_a_bad_flag_exits_2_saying_why(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.build_parser().parse_args(["--root-path", value])
    assert exited.value.code == 2
    assert "argument --root-path: must" in capsys.readouterr().err


def test_a_bad_variable_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("uvicorn.run", lambda *a, **kw: pytest.fail("the server started"))
    monkeypatch.setenv("ATTENTION_LAB_ROOT_PATH", "attention/")
    get_settings.cache_clear()
    try:
        assert cli.main([]) == 2
    finally:
        get_settings.cache_clear()
    err = capsys.readouterr().err
    assert err.startswith("attention-lab: bad setting ATTENTION_LAB_ROOT_PATH='attention/'")
    assert "must start with '/'" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("scope", "root", "inside"),
    [
        ({"path": "/labs"}, "", "/labs"),
        ({"path": "/attention/labs", "root_path": "/attention"}, "/attention", "/labs"),
        ({"path": "/attention", "root_path": "/attention"}, "/attention", "/"),
        ({"path": "/attentionx/labs", "root_path": "/attention"}, "/attention", "/attentionx/labs"),
        # inside the /static mount Starlette keeps the app's root in app_root_path
        ({"path": "/a/static/x.css", "root_path": "/a/static", "app_root_path": "/a"}, "/a",
         "/static/x.css"),
    ],
)  # fmt: skip
def test_the_mount_helpers(scope: dict[str, Any], root: str, inside: str) -> None:
    assert root_path(scope) == root
    assert path_in_app(scope) == inside
    assert site_path(scope, "/labs") == root + "/labs"


# ---- deploy/: the examples agree with each other and with the app


def test_the_nginx_example_strips_the_prefix_it_names() -> None:
    conf = (ROOT / "deploy" / "nginx" / "attention-lab.conf").read_text()
    (prefix,) = set(re.findall(r"^location (/\w+)/ \{", conf, re.MULTILINE))
    check_root_path(prefix)
    # proxy_pass with a path ("/") replaces the matched location: the prefix is stripped.
    assert re.search(r"^\s+proxy_pass http://127\.0\.0\.1:8000/;", conf, re.MULTILINE)
    assert f"location = {prefix} {{\n    return 308 {prefix}/;" in conf
    assert f"ATTENTION_LAB_ROOT_PATH={prefix}" in conf
    assert f"ATTENTION_LAB_PUBLIC_URL=https://uni.example.edu{prefix}" in conf
    assert "client_max_body_size 40m;" in conf  # the app's own body limit
    assert conf.count("{") == conf.count("}")


def ingresses(path: Path) -> dict[str, dict[str, Any]]:
    """Each Ingress of a manifest by its name."""
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d]
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == "Ingress"}


def test_the_subpath_ingress_replaces_the_root_one_and_strips_its_prefix() -> None:
    subpath = ingresses(ROOT / "deploy" / "ingress-subpath.yaml")
    kubernetes = (ROOT / "deploy" / "kubernetes.yaml").read_text()
    main = {d["kind"]: d for d in yaml.safe_load_all(kubernetes) if d}
    assert subpath.keys() == ingresses(ROOT / "deploy" / "kubernetes.yaml").keys()  # replaces
    ingress = subpath["attention-lab"]
    notes = ingress["metadata"]["annotations"]
    prefix = notes["nginx.ingress.kubernetes.io/x-forwarded-prefix"]
    check_root_path(prefix)
    ((path,),) = [rule["http"]["paths"] for rule in ingress["spec"]["rules"]]
    assert path["path"] == f"{prefix}(/|$)(.*)"
    assert notes["nginx.ingress.kubernetes.io/rewrite-target"] == "/$2"
    assert path["backend"]["service"]["name"] == main["Service"]["metadata"]["name"]
    pattern = re.compile(path["path"])
    for public, seen in [(f"{prefix}/labs", "labs"), (prefix, ""), (f"{prefix}/", "")]:
        match = pattern.fullmatch(public)
        assert match is not None, public
        assert match.group(2) == seen
    assert f"# - name: ATTENTION_LAB_ROOT_PATH\n            #   value: {prefix}" in kubernetes


def test_the_subpath_streams_reach_the_pods_without_the_prefix_and_unbuffered() -> None:
    subpath = ingresses(ROOT / "deploy" / "ingress-subpath.yaml")
    prefix = subpath["attention-lab"]["metadata"]["annotations"][
        "nginx.ingress.kubernetes.io/x-forwarded-prefix"]  # fmt: skip
    streams = subpath["attention-lab-streams"]
    notes = streams["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/proxy-buffering"] == "off"
    assert notes["nginx.ingress.kubernetes.io/x-forwarded-prefix"] == prefix
    assert notes["nginx.ingress.kubernetes.io/rewrite-target"] == "$1"
    ((path,),) = [rule["http"]["paths"] for rule in streams["spec"]["rules"]]
    pattern = re.compile(path["path"])
    for public, seen in [(f"{prefix}/api/v1/experiments", "/api/v1/experiments"),
                         (f"{prefix}/api/v1/experiments/x", "/api/v1/experiments/x")]:  # fmt: skip
        match = pattern.fullmatch(public)
        assert match is not None, public
        assert match.group(1) == seen
    assert pattern.fullmatch(f"{prefix}/api/v1/attention") is None
