"""The database layer on a real PostgreSQL server, started by this module: the migrations
applied on a fresh database (and by four openers at once, each step once), short links
stored, deduplicated and read back, 30 threads creating at once, and the HTTP routes with
``ATTENTION_LAB_DATABASE_URL`` pointing at it.

The server is Debian's PostgreSQL (``apt-get install postgresql``; .ci/run installs it):
``initdb`` into a temporary folder and ``pg_ctl start`` on a free loopback port, as the
``postgres`` user when the tests run as root (PostgreSQL refuses to run as root). Skipped,
saying why, only when no PostgreSQL binaries are on this machine.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect, text

from app.main import create_app
from app.settings import Settings
from app.store import migrations, short_links
from app.store.database import close_database, database_url, make_engine, open_database

pytestmark = pytest.mark.slow


def _bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A PostgreSQL server of this module's own; yields the URL of its database."""
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl): apt-get install -y postgresql")
    # Directly under /tmp: pytest's own temporary folders are root's alone (0700), which
    # the postgres user could not enter.
    root = Path(tempfile.mkdtemp(prefix="attention-lab-postgres-"))
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    user: str | None = None
    if os.geteuid() == 0:  # PostgreSQL will not run as root
        user = "postgres"
        try:
            account = pwd.getpwnam(user)
        except KeyError:
            pytest.skip("running as root and there is no postgres user to run PostgreSQL as")
        for path in (root, sockets):
            os.chown(path, account.pw_uid, account.pw_gid)
    port = _free_port()

    def run(*args: str) -> None:
        done = subprocess.run(args, capture_output=True, text=True, user=user, timeout=120)
        assert done.returncode == 0, f"{args[0]} failed:\n{done.stdout}{done.stderr}"

    run(initdb, "-D", str(data), "-U", "lab", "--auth=trust", "-E", "UTF8", "--no-sync")
    log = root / "server.log"
    options = f"-h 127.0.0.1 -p {port} -k {sockets} -F"
    run(pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "start")
    try:
        yield f"postgresql://lab@127.0.0.1:{port}/postgres"
    finally:
        run(pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fresh(postgres: str) -> str:
    """A URL of a new, empty database on the server."""
    engine = make_engine(database_url(Settings(database_url=postgres)))
    name = f"lab_{os.urandom(4).hex()}"
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
        c.execute(text(f"CREATE DATABASE {name}"))
    engine.dispose()
    return postgres.rsplit("/", 1)[0] + f"/{name}"


def test_a_fresh_database_is_migrated_once(fresh: str) -> None:
    settings = Settings(database_url=fresh)
    db = open_database(settings)
    assert db.dialect == "postgresql"
    assert db.version == migrations.NEWEST
    with db.engine.connect() as c:
        assert set(inspect(c).get_table_names()) == {"schema_migrations", "short_links"}
        assert migrations.applied(c) == {m.version for m in migrations.MIGRATIONS}
    again = open_database(settings)  # reopened: nothing to apply, nothing applied twice
    with again.engine.connect() as c:
        rows = c.execute(migrations.schema.schema_migrations.select()).all()
    assert [r.version for r in rows] == [1]
    db.engine.dispose()
    again.engine.dispose()


def test_four_openers_at_once_apply_each_step_once(fresh: str) -> None:
    engines = [make_engine(database_url(Settings(database_url=fresh))) for _ in range(4)]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            migrations.migrate(engines[i])
        except BaseException as exc:  # collected: a thread's failure must fail the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with engines[0].connect() as c:
        assert [r.version for r in c.execute(migrations.schema.schema_migrations.select())] == [1]
    for engine in engines:
        engine.dispose()


def test_short_links_are_stored_once_and_read_back(fresh: str) -> None:
    db = open_database(Settings(database_url=fresh))
    one = short_links.put(db, "s", "preset=causal&fig=7")
    assert one == "6XWjfxVoBIdbQL9C"  # the same id as on SQLite: the hash, not the database
    assert short_links.put(db, "s", "preset=causal&fig=7") == one
    assert short_links.get(db, "s", one) == "preset=causal&fig=7"
    assert short_links.get(db, "l", one) is None
    got: list[str] = []
    threads = [
        threading.Thread(target=lambda i=i: got.append(short_links.put(db, "s", f"x={i % 5}")))
        for i in range(30)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 30
    assert len(set(got)) == 5
    db.engine.dispose()


def test_the_routes_on_postgresql(fresh: str) -> None:
    app = create_app(Settings(database_url=fresh))
    client = TestClient(app)
    made = client.post("/api/v1/short-links", json={"state": "preset=causal&fig=7"})
    assert made.status_code == 201, made.text
    link: dict[str, Any] = made.json()
    opened = client.get(link["path"], follow_redirects=False)
    assert opened.headers["location"] == "http://testserver/?preset=causal&fig=7#fig-7"
    assert client.get("/s/AAAAAAAAAAAAAAAA", follow_redirects=False).status_code == 404
    close_database(app.state)


def test_an_unreachable_database_is_a_503_naming_it(postgres: str) -> None:
    gone = postgres.replace(postgres.split(":")[-1].split("/")[0], str(_free_port()))
    client = TestClient(create_app(Settings(database_url=gone)))
    r = client.post("/api/v1/short-links", json={"state": "preset=causal"})
    assert r.status_code == 503
    assert r.json()["detail"][0]["field"] == "database"
    assert "lab@" not in r.text  # the URL (which may hold a password) is never told
