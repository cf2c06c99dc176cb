"""What each lab figure costs at its largest admissible state, beside its price (the table
in ``app/inputs/lab_cost.py``). Prints figures; it is not a timed test.

    python benchmarks/lab_costs.py [--repeats 3] [lab/figure ...]

For every figure without an experiment (experiments are priced by their own cost model):
its controls set to their largest values, the median time to build and encode it, the
answer's bytes, the process's peak RSS so far, and the price's cells and bytes. Run it on a
quiet machine; the first build of a figure includes its imports and is left out.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from typing import Any

from app.figures.labs import LABS
from app.figures.labs.base import state_query
from app.figures.labs.controls import Control
from app.figures.to_plotly import with_export
from app.http.lab_state import build_one
from app.inputs.lab_cost import figure_price
from app.settings import Settings
from app.wire import json_block


def largest(c: Control) -> Any:
    """The control's value that makes the most work: the top of its range or list."""
    if c.kind in ("steps", "choice"):
        values = [v for v, _ in c.choices]
        try:
            return max(values, key=float)
        except (TypeError, ValueError):
            return values[-1]
    if c.kind in ("int", "number"):
        return c.hi
    if c.kind == "toggle":
        return True
    if c.kind == "multi":
        return tuple(v for v, _ in c.choices)
    return c.default


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("only", nargs="*", help="lab/figure names (default: every figure)")
    args = parser.parse_args()
    settings = Settings()
    for lab in LABS:
        for fig in lab.figures:
            if fig.runs is not None or (args.only and f"{lab.id}/{fig.name}" not in args.only):
                continue
            values = {c.name: largest(c) for c in fig.controls}
            params = state_query(lab, {fig.name: values})

            def build() -> int:
                built = build_one(lab, fig, params, "light", settings)  # noqa: B023
                return len(json_block(with_export(built, "light")))

            build()  # imports, caches
            times, size = [], 0
            for _ in range(args.repeats):
                start = time.perf_counter()
                size = build()
                times.append(time.perf_counter() - start)
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            price = figure_price(lab.id, fig.name, fig.settle(values) if fig.settle else values)
            print(f"{lab.id}/{fig.name}: {statistics.median(times) * 1000:.0f} ms, "
                  f"{size:,} bytes, peak RSS {rss:.0f} MB; priced {price.cost.cells:,} cells, "
                  f"{price.cost.response_bytes:,} bytes  ({params})")  # fmt: skip


if __name__ == "__main__":
    main()
