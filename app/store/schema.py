"""The tables, as SQLAlchemy Core ``Table`` objects: what the queries of this package
read and write. The migrations (``app.store.migrations``) create them; a table's
definition here is its newest version.

``short_links``: one row per stored content, keyed by its short id (``app.store.short_links``):
``kind`` (``s`` a page state, ``l`` a lesson), ``digest`` (the whole SHA-256 the id is cut
from, so a collision of the cut id is caught, never served), ``content`` (the state's query
string, or the lesson's canonical JSON), its size in bytes and when it was first stored.
"""

from __future__ import annotations

from sqlalchemy import (
    CheckConstraint,
    Column,
    DateTime,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

ID_CHARS = 16  # base64url characters of a short id: 96 bits of the digest

short_links = Table(
    "short_links",
    metadata,
    Column("id", String(ID_CHARS), primary_key=True),
    Column("kind", String(1), nullable=False),
    Column("digest", LargeBinary(32), nullable=False),
    Column("content", Text, nullable=False),
    Column("size", Integer, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    CheckConstraint("kind IN ('s', 'l')", name="short_links_kind"),
)

schema_migrations = Table(
    "schema_migrations",
    metadata,
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("name", String(200), nullable=False),
    Column("applied_at", DateTime(timezone=True), nullable=False),
)
