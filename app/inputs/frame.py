"""What an embed's frame asks for, beside the state: a fixed ``height`` and ``autoplay``.

Both figure embeds (``/embed/{figure}``) and lab embeds (``/embed/labs/{id}/{figure}``)
read them here, so the two accept the same words and refuse the same mistakes:

    height     whole CSS pixels, MIN_HEIGHT … MAX_HEIGHT: the embed's document is that
               tall and scrolls inside (for platforms that strip the host's script, so the
               iframe's height cannot follow the height message). Absent: auto height.
    autoplay   1: a player (Figure 3, lab B1) starts playing once on load; 0 or absent:
               it shows its resting frame and waits for a click.

A bad value raises ``FieldError`` naming the parameter (the routes answer 400).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from app.inputs.errors import FieldError
from app.inputs.query import is_whole, shown

MIN_HEIGHT = 200
MAX_HEIGHT = 4000


@dataclass(frozen=True)
class FrameOptions:
    """``height`` in CSS px (None: auto) and whether a player starts by itself."""

    height: int | None = None
    autoplay: bool = False


def frame_options(params: Mapping[str, str]) -> FrameOptions:
    """The frame options present in ``params`` (a URL's query), checked."""
    autoplay = params.get("autoplay", "0")
    if autoplay not in ("0", "1"):
        raise FieldError(
            "autoplay", f"autoplay must be 1 (play on load) or 0 (wait), got {shown(autoplay)!r}"
        )
    raw = params.get("height")
    if raw is None:
        return FrameOptions(None, autoplay == "1")
    if not is_whole(raw) or not MIN_HEIGHT <= int(raw) <= MAX_HEIGHT:
        raise FieldError(
            "height",
            f"height must be a whole number of CSS pixels from {MIN_HEIGHT} to {MAX_HEIGHT}, "
            f"got {shown(raw)!r}",
        )
    return FrameOptions(int(raw), autoplay == "1")
