"""app.export.numpy_scripts is the one "Copy as NumPy" generator: every script a lab
figure names is written there, and nothing there is unnamed."""

from __future__ import annotations

from app.export.numpy_scripts.labs import SCRIPTS, has_script
from app.figures.labs import LABS


def test_every_named_numpy_script_is_written_by_the_one_generator() -> None:
    named = {f.numpy for lab in LABS for f in lab.figures if f.numpy is not None}
    assert named == set(SCRIPTS)
    assert all(has_script(f) for lab in LABS for f in lab.figures if f.numpy is not None)
