"""The database layer (app/store) and what short links are checked against (app/inputs/
short_link.py, app/http/rate.py): content hashing, deduplication, immutability, collisions,
the migrations on a fresh SQLite file (and two openers at once), the state grammar and the
rate per client. PostgreSQL: tests/slow/test_store_postgres.py."""

from __future__ import annotations

import base64
import hashlib
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, inspect

from app.http.rate import MAX_CLIENTS, Rate
from app.inputs.errors import FieldError
from app.inputs.limits import CostError
from app.inputs.link import encode_body
from app.inputs.short_link import check_state
from app.presets import RUNNING_EXAMPLE
from app.settings import Settings
from app.store import migrations, short_links
from app.store.database import Database, database_for, database_url, make_engine, open_database
from app.store.schema import short_links as table


@pytest.fixture
def db() -> Database:
    return open_database(Settings(database_url="sqlite://"))


def test_an_id_is_the_first_96_bits_of_the_sha256_of_kind_and_content() -> None:
    digest = hashlib.sha256(b"s\npreset=causal&fig=7").digest()
    expected = base64.urlsafe_b64encode(digest[:12]).decode()
    assert short_links.short_id(short_links.content_digest("s", "preset=causal&fig=7")) == expected
    assert expected == "6XWjfxVoBIdbQL9C"  # pinned: a link given out must never change
    assert len(expected) == 16
    assert short_links.is_short_id(expected)


def test_the_same_content_is_stored_once_and_kinds_never_share_an_id(db: Database) -> None:
    one = short_links.put(db, "s", "preset=causal")
    assert short_links.put(db, "s", "preset=causal") == one
    other = short_links.put(db, "s", "preset=causal&fig=7")
    assert other != one
    lesson = short_links.put(db, "l", "preset=causal")  # the same text as a lesson
    assert lesson != one
    with db.engine.connect() as c:
        assert c.execute(table.select()).all().__len__() == 3
    assert short_links.get(db, "s", one) == "preset=causal"
    assert short_links.get(db, "l", one) is None  # a state's id does not open a lesson
    assert short_links.get(db, "s", "AAAAAAAAAAAAAAAA") is None
    assert short_links.get(db, "s", "not an id") is None


def test_unicode_content_is_kept_exactly_and_sized_in_bytes(db: Database) -> None:
    text = "model=minilm&text=caf%C3%A9 — ‹a›"
    link = short_links.put(db, "s", text)
    assert short_links.get(db, "s", link) == text
    with db.engine.connect() as c:
        assert c.execute(table.select()).one().size == len(text.encode())


def test_a_collision_of_the_cut_id_is_refused_never_served(db: Database) -> None:
    content = "preset=causal"
    link = short_links.short_id(short_links.content_digest("s", content))
    with db.engine.begin() as c:  # another content that happens to have the same id
        c.execute(insert(table).values(id=link, kind="s", digest=b"\x00" * 32, content="x",
                                       size=1, created_at=datetime.now(UTC)))  # fmt: skip
    with pytest.raises(short_links.CollisionError, match=link):
        short_links.put(db, "s", content)
    assert short_links.get(db, "s", link) == "x"  # the stored one is unchanged


@pytest.mark.slow
def test_thirty_threads_storing_the_same_and_different_contents(tmp_path: Path) -> None:
    db = open_database(Settings(data_dir=tmp_path))
    got: dict[int, str] = {}

    def store(i: int) -> None:
        got[i] = short_links.put(db, "s", f"preset=causal&focus={i % 3}")

    threads = [threading.Thread(target=store, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 30
    assert len(set(got.values())) == 3
    with db.engine.connect() as c:
        assert len(c.execute(table.select()).all()) == 3


def test_a_fresh_sqlite_file_is_migrated_once_and_reopened_as_it_is(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "new" / "dir")
    url = database_url(settings)
    assert url.drivername == "sqlite+pysqlite"
    assert url.database == str(tmp_path / "new" / "dir" / "attention-lab.sqlite3")
    db = open_database(settings)
    assert db.version == migrations.NEWEST == 1
    link = short_links.put(db, "s", "preset=causal")
    db.engine.dispose()
    with sqlite3.connect(url.database or "") as raw:  # what is on disk, read without us
        versions = raw.execute("SELECT version, name FROM schema_migrations").fetchall()
        assert versions == [(1, migrations.MIGRATIONS[0].name)]
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    again = open_database(settings)
    with again.engine.connect() as c:
        assert migrations.applied(c) == {1}
        assert set(inspect(c).get_table_names()) == {"schema_migrations", "short_links"}
    assert short_links.get(again, "s", link) == "preset=causal"


def test_two_openers_of_one_new_file_at_once_apply_each_step_once(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    engines = [make_engine(database_url(settings)) for _ in range(4)]
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
        rows = c.execute(migrations.schema.schema_migrations.select()).all()
    assert [r.version for r in rows] == [1]


def test_postgresql_urls_get_the_psycopg_driver() -> None:
    url = database_url(Settings(database_url="postgresql://u:p@db.example/attention"))
    assert url.drivername == "postgresql+psycopg"
    assert url.password == "p"
    assert url.database == "attention"
    assert database_url(Settings(database_url="postgres://h/x")).drivername == "postgresql+psycopg"
    explicit = "postgresql+psycopg://h/x"
    assert database_url(Settings(database_url=explicit)).drivername == "postgresql+psycopg"


def test_the_database_is_opened_once_for_many_threads() -> None:
    class Holder:
        pass

    holder, settings = Holder(), Settings(database_url="sqlite://")
    seen: list[Database] = []
    threads = [threading.Thread(target=lambda: seen.append(database_for(holder, settings)))
               for _ in range(8)]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(d) for d in seen}) == 1


# ---- the state a short link may hold ----

SETTINGS = Settings(database_url="sqlite://", short_link_max_bytes=2000)


def test_page_states_are_kept_as_written() -> None:
    own = "s=" + encode_body(RUNNING_EXAMPLE) + "&focus=1"  # the page's own encoding
    for state in ("preset=causal&fig=7", "preset=causal&focus=2&theme=dark",
                  "model=tiny-decoder&text=abab&layer=1&head=2", own):  # fmt: skip
        assert check_state(state, SETTINGS) == state
    assert check_state("?preset=causal", SETTINGS) == "preset=causal"


@pytest.mark.parametrize(
    ("state", "says"),
    [
        ("", "empty"),
        ("preset=causal#fig-7", "URL query"),
        ("preset=causal fig", "URL query"),
        ("preset=%zz", "percent escape"),
        ("preset=%ff", "UTF-8"),
        ("preset=%00", "control"),
        ("pre%20set=1", "name"),
        ("<script>=1", "URL query"),
        ("preset=nope", "no preset"),
        ("s=AAAA", "s"),
        ("preset=causal&focus=NaN", "focus"),
        ("preset=causal&focus=-1", "focus"),
        ("preset=causal&focus=99999999999999999999", "focus"),
        ("&".join(f"a{i}=1" for i in range(65)), "more than 64"),
    ],
)
def test_hostile_states_are_refused_naming_state(state: str, says: str) -> None:
    with pytest.raises(FieldError) as caught:
        check_state(state, SETTINGS)
    assert caught.value.field == "state"
    assert says in caught.value.message


def test_a_state_over_the_setting_is_a_413_naming_state() -> None:
    with pytest.raises(CostError) as caught:
        check_state("preset=causal&x=" + "a" * 2000, SETTINGS)
    assert (caught.value.field, caught.value.status) == ("state", 413)
    assert "2,000" in caught.value.message


# ---- the rate per client ----


def test_a_client_gets_its_rate_then_waits_for_the_next_token() -> None:
    now = [100.0]
    rate = Rate(6, clock=lambda: now[0])  # one token every 10 s
    assert [rate.take("a") for _ in range(6)] == [0] * 6
    assert rate.take("a") == 10
    assert rate.take("b") == 0  # another client has its own bucket
    now[0] += 4.0
    assert rate.take("a") == 6  # 0.4 of a token back: 6 s to a whole one
    now[0] += 6.0
    assert rate.take("a") == 0
    now[0] += 3600
    assert [rate.take("a") for _ in range(7)] == [0] * 6 + [10]  # never more than the rate


def test_the_rate_remembers_a_bounded_number_of_clients() -> None:
    rate = Rate(1, clock=lambda: 0.0)
    for i in range(MAX_CLIENTS + 50):
        rate.take(f"10.0.{i}")
    assert len(rate.buckets) == MAX_CLIENTS
    assert rate.take("10.0.0") == 0  # forgotten first: starts again with a full bucket
