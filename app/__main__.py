"""``python -m app``: the same entry point as the ``attention-lab`` console script."""

from app.cli import main

raise SystemExit(main())
