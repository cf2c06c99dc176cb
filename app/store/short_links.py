"""Short links: a page state or a lesson stored by its content hash.

The id of a content is the first 12 bytes of SHA-256(kind, newline, content) in base64url:
16 characters, 96 bits. The same content always gets the same id (stored once however
often it is shortened: deduplicated), and a row is never changed once written (immutable),
so a link, once given out, opens the same thing for ever. The whole digest is kept beside
the content: two contents whose ids agree but whose digests differ (a collision of the cut
hash, some 2^48 tries away) are refused with ``CollisionError``, never served for each
other.

Concurrent creators of one content race harmlessly: the insert does nothing on a
conflicting id (``ON CONFLICT DO NOTHING``, on SQLite and PostgreSQL alike) and every one
then reads the one row back. Sizes and rates are the caller's to bound (the route's plan
and check); this module stores what it is given.
"""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import Connection, select
from sqlalchemy.dialects import postgresql, sqlite

from app.store.database import Database
from app.store.schema import ID_CHARS, short_links

Kind = Literal["s", "l"]  # s: a main-page state (a query string); l: a lesson (its JSON)
ID_BYTES = ID_CHARS * 3 // 4
ID_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{{ID_CHARS}}}")


class CollisionError(Exception):
    """Two contents share a short id: the second is refused (see the module docstring)."""


def content_digest(kind: Kind, content: str) -> bytes:
    """SHA-256 of the kind and the content's UTF-8 bytes: the kind is part of what is
    hashed, so a state and a lesson never share an id."""
    return hashlib.sha256(kind.encode() + b"\n" + content.encode()).digest()


def short_id(digest: bytes) -> str:
    """The id of a content: its digest's first ``ID_BYTES`` bytes in base64url."""
    return base64.urlsafe_b64encode(digest[:ID_BYTES]).decode("ascii")


def is_short_id(text: str) -> bool:
    """True for text that could be an id (16 base64url characters), before any query."""
    return ID_PATTERN.fullmatch(text) is not None


def _insert_new(connection: Connection, row: dict[str, object]) -> None:
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(short_links).values(**row)
    connection.execute(statement.on_conflict_do_nothing(index_elements=["id"]))


def put(db: Database, kind: Kind, content: str) -> str:
    """Store ``content`` (once) and return its id; ``CollisionError`` if its id is taken
    by another content."""
    digest = content_digest(kind, content)
    link = short_id(digest)
    row = {"id": link, "kind": kind, "digest": digest, "content": content,
           "size": len(content.encode()), "created_at": datetime.now(UTC)}  # fmt: skip
    with db.engine.begin() as connection:
        _insert_new(connection, row)
        kept = connection.execute(
            select(short_links.c.kind, short_links.c.digest).where(short_links.c.id == link)
        ).one()
    if kept.kind != kind or bytes(kept.digest) != digest:
        raise CollisionError(f"the short id {link} already names another content")
    return link


def get(db: Database, kind: Kind, link: str) -> str | None:
    """The content stored under ``link`` as a ``kind``, or None."""
    if not is_short_id(link):
        return None
    with db.engine.connect() as connection:
        found = connection.execute(
            select(short_links.c.content).where(
                short_links.c.id == link, short_links.c.kind == kind
            )
        ).scalar_one_or_none()
    return found
