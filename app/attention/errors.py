"""The engine's one error: an input that cannot be computed with, naming its field."""

from __future__ import annotations


class InputError(ValueError):
    """An input that cannot be computed with; ``field`` names it as the API spells it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
