"""How a benchmark script runs: bad input is one line and exit status 2, never a traceback."""

from __future__ import annotations

import sys
from typing import Callable

__all__ = ["run_script"]


def run_script(main: Callable[[], None]) -> None:
    """Run ``main``; a :class:`~graphhop.core.GraphhopError` (a missing ``--split test`` file, a bad
    option, a split that chose things asked for as the report split) prints ``error: ...`` and exits 2."""
    from graphhop.core import GraphhopError

    try:
        main()
    except GraphhopError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
