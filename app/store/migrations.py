"""Versioned migrations: the schema of ``app.store.schema`` built step by step, each step
applied once, in order, and recorded in the table ``schema_migrations``.

Why not Alembic: the app ships no migration scripts folder, ``alembic.ini`` or command to
run before it starts; a server (or each of its workers, or each replica) migrates its
database itself when it first opens it, so a new deployment needs no extra step. The steps
are a short tuple of functions written with SQLAlchemy Core (``Table.create``, ``DDL``):
the same code for SQLite and PostgreSQL, each step in its own transaction with its row in
``schema_migrations`` (both databases have transactional DDL, so a step is all or nothing).

Workers that start together: on PostgreSQL a transaction-scoped advisory lock lets one
migrate while the others wait; on SQLite the first writer holds the database lock and a
second one, once it gets the lock, finds the step's table there already, rolls back and
reads the versions again. Either way every step is applied exactly once.

A new step: append ``Migration(n + 1, "what it does", function)``; never edit or reorder
one that has shipped (a database that applied it would not apply the edit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, insert, inspect, select
from sqlalchemy.exc import DBAPIError

from app.store import schema

# Any constant: the key of PostgreSQL's advisory lock that serialises migrations.
_LOCK_KEY = 0x41_74_74_6E  # "Attn"
_TRIES = 5


@dataclass(frozen=True)
class Migration:
    """Step ``version``: ``apply`` makes the schema of that version from the one before."""

    version: int
    name: str
    apply: Callable[[Connection], None]


def _short_links(connection: Connection) -> None:
    schema.short_links.create(connection)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "short links: page states and lessons by content hash", _short_links),
)
NEWEST = MIGRATIONS[-1].version


def applied(connection: Connection) -> set[int]:
    """The versions recorded in ``schema_migrations`` (none before the first migration)."""
    if not inspect(connection).has_table(schema.schema_migrations.name):
        return set()
    return set(connection.scalars(select(schema.schema_migrations.c.version)))


def _lock(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})")


def _step(engine: Engine, migration: Migration) -> None:
    with engine.begin() as connection:
        _lock(connection)
        if migration.version in applied(connection):
            return  # another worker applied it while this one waited
        schema.schema_migrations.create(connection, checkfirst=True)
        migration.apply(connection)
        connection.execute(
            insert(schema.schema_migrations).values(
                version=migration.version, name=migration.name, applied_at=datetime.now(UTC)
            )
        )


def migrate(engine: Engine) -> int:
    """Apply every step not yet applied; returns the schema's version (``NEWEST``)."""
    for migration in MIGRATIONS:
        for attempt in range(_TRIES):
            try:
                _step(engine, migration)
                break
            except DBAPIError:
                # Lost a race on SQLite (another process made the table first): read the
                # versions again; anything else fails the same way every time and is raised.
                with engine.connect() as connection:
                    if migration.version in applied(connection):
                        break
                if attempt == _TRIES - 1:
                    raise
    return NEWEST
