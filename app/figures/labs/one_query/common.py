"""The names of A1's items, which the one-query figures share. PURE."""

from __future__ import annotations

ITEMS = ("item 0", "item 1", "item 2")
