"""The names of A1's items, which the one-query figures share. PURE."""

from __future__ import annotations

ITEMS = ("item 1", "item 2", "item 3")  # counted from 1, as everything a person reads
