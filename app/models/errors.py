"""What can go wrong with a model, each error saying what to do about it.

``UnknownModelError`` (no such id), ``NotInstalledError`` (its files are missing: the message and
``install`` give the exact command), ``WeightsMismatchError`` (a file is not the one pinned by
sha256) and ``ModelInputError`` (a text or a layer/head out of range, naming the field as
the API spells it). The API turns them into 404 and 422 answers.
"""

from __future__ import annotations


class ModelError(Exception):
    """Base of the model errors: ``str(error)`` is a sentence for a person."""


class UnknownModelError(ModelError, LookupError):
    """No model has this id."""

    def __init__(self, model_id: str, known: tuple[str, ...]) -> None:
        super().__init__(f"no model {model_id!r}; known: {', '.join(known)}")
        self.model_id = model_id


class NotInstalledError(ModelError, LookupError):
    """The model's files are not on this machine; ``install`` is the command to get them."""

    def __init__(self, name: str, model_id: str, install: str | None) -> None:
        how = f"install it with: {install}" if install else "its files are missing"
        super().__init__(f"{name} ({model_id}) is not installed; {how}")
        self.model_id = model_id
        self.install = install


class WeightsMismatchError(ModelError):
    """A model file whose sha256 is not the pinned one: refused, never loaded."""


class ModelInputError(ModelError, ValueError):
    """A request the model cannot take; ``field`` names it (``text``, ``layer``, ``head``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
