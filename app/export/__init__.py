"""Exports of a computation: every stage as JSON, as CSV files in a zip, as a NumPy script
(``numpy_scripts``: every "Copy as NumPy" the app writes), and one figure as a
self-contained HTML file.

``stage_matrices`` lists the matrices once (names, labels, values); each format renders
that list, so JSON, CSV and the snippet always agree on names and order.
"""

from app.export.stages import StageMatrix, stage_matrices

__all__ = ["StageMatrix", "stage_matrices"]
