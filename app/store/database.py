"""Which database the app uses and its engine (``Database``), opened once per app.

``database_url(settings)`` is ``Settings.database_url`` when set (a ``postgresql://`` URL
is given the psycopg 3 driver, the one the project installs), else a SQLite file,
``attention-lab.sqlite3`` under ``Settings.data_dir`` (unset: ``default_data_dir()``, read
when the database is opened), made on first use. ``open_database``
builds the engine and applies the migrations; ``database_for(holder, settings)`` opens it
lazily, once, on an object the caller owns (the app's ``state``), so an app that never
stores anything never touches the disk.

SQLite is set up for a web server's threads: WAL journal (readers never wait for the
writer), a busy timeout (a writer waits for another rather than failing at once) and
foreign keys on. An in-memory URL (``sqlite://``, for tests) keeps one connection, shared
by the threads, or each thread would see its own empty database.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

from app.settings import Settings, default_data_dir
from app.store.migrations import migrate

SQLITE_FILE = "attention-lab.sqlite3"
BUSY_TIMEOUT_MS = 5000  # a writer waits this long for another writer's lock
_ATTRIBUTE = "attention_lab_database"
_opening = threading.Lock()


@dataclass(frozen=True)
class Database:
    """An engine with its schema migrated to the newest version."""

    engine: Engine
    version: int

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name


def database_url(settings: Settings) -> URL:
    """The URL to connect to (see the module docstring)."""
    if settings.database_url:
        url = make_url(settings.database_url)
        if url.drivername in ("postgresql", "postgres"):
            url = url.set(drivername="postgresql+psycopg")
        return url
    folder = settings.data_dir or default_data_dir()
    return URL.create("sqlite+pysqlite", database=str(Path(folder) / SQLITE_FILE))


def _in_memory(url: URL) -> bool:
    return url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:")


def _sqlite_pragmas(connection: Any, _: Any) -> None:
    cursor = connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.close()


def make_engine(url: URL) -> Engine:
    """An engine for ``url``: SQLite set up as the module docstring says, PostgreSQL with
    connections checked before use (a restarted server is not an error)."""
    if url.get_backend_name() == "sqlite":
        if _in_memory(url):
            engine = create_engine(
                url, poolclass=StaticPool, connect_args={"check_same_thread": False}
            )
        else:
            Path(url.database or "").parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def open_database(settings: Settings) -> Database:
    """The app's database, its migrations applied."""
    engine = make_engine(database_url(settings))
    return Database(engine, migrate(engine))


def database_for(holder: object, settings: Settings) -> Database:
    """The database kept on ``holder`` (the app's state), opened on first use, once even
    when several threads ask at the same time."""
    found: Database | None = getattr(holder, _ATTRIBUTE, None)
    if found is not None:
        return found
    with _opening:
        found = getattr(holder, _ATTRIBUTE, None)
        if found is None:
            found = open_database(settings)
            setattr(holder, _ATTRIBUTE, found)
    return found


def close_database(holder: object) -> None:
    """Close the connections of the database kept on ``holder``, if it was opened."""
    found: Database | None = getattr(holder, _ATTRIBUTE, None)
    if found is not None:
        found.engine.dispose()
        delattr(holder, _ATTRIBUTE)
