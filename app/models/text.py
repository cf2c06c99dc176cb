"""A sentence checked against a model before it runs: not empty, within a length in
characters, readable by the model's tokenizer and within its token limit. The one rule,
shared by the model pages (``app.web.model_views.check_text``) and the lessons' model
steps (``app.lessons.model_state``); ``ModelInputError`` names the field."""

from __future__ import annotations

from app.models.base import Model
from app.models.errors import ModelInputError


def tokens_of(model: Model, text: str, max_chars: int, field: str = "text") -> list[str]:
    """The model's tokens of ``text``, or ``ModelInputError`` naming ``field`` and the limit."""
    if not text.strip():
        raise ModelInputError(field, "type a sentence (it is empty)")
    if len(text) > max_chars:
        raise ModelInputError(
            field, f"{len(text):,} characters is more than the limit of {max_chars:,}"
        )
    try:
        tokens = model.tokenize(text)
    except ModelInputError as exc:  # a character the model cannot read, too many tokens
        raise ModelInputError(field, exc.message) from None
    limit = model.spec.max_tokens
    if len(tokens) > limit:
        raise ModelInputError(
            field,
            f"the sentence makes {len(tokens)} tokens, more than this model's limit of "
            f"{limit} (special tokens included); shorten it",
        )
    return tokens
