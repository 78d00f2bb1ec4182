"""How a benchmark script runs: the options every script spells the same way, and bad input as one
line with exit status 2, never a traceback."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable

__all__ = ["run_script", "benchmark_parser", "parse_benchmark_args"]


def run_script(main: Callable[[], None]) -> None:
    """Run ``main``; a :class:`~graphhop.core.GraphhopError` (a missing ``--split test`` file, a bad
    option, a split that chose things asked for as the report split) prints ``error: ...`` and exits 2."""
    from graphhop.core import GraphhopError

    try:
        main()
    except GraphhopError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


def benchmark_parser(doc: str | None, data: bool = True, threads: int | None = 1, seed: int | None = None,
                     **parser_options) -> argparse.ArgumentParser:
    """An argument parser (described by ``doc``'s first paragraph) with the shared options: ``--data`` (the
    benchmark data root, default ``$GRAPHHOP_DATA``; required by :func:`parse_benchmark_args`), ``--threads``
    (torch, FAISS and onnxruntime threads; default ``threads``, None: all cores) and ``--seed`` (when given)."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0], **parser_options)
    if data:
        env = os.environ.get("GRAPHHOP_DATA")
        ap.add_argument("--data", type=Path, default=Path(env) if env else None, help="benchmark data root (default: $GRAPHHOP_DATA)")
    ap.add_argument("--threads", type=int, default=threads, help="torch / FAISS / onnxruntime threads (default: %(default)s)")
    if seed is not None:
        ap.add_argument("--seed", type=int, default=seed, help="random seed (default: %(default)s)")
    return ap


def parse_benchmark_args(ap: argparse.ArgumentParser, argv: list[str] | None = None,
                         need_data: bool = True) -> argparse.Namespace:
    """Parse, stop in one line when the data root is needed and missing, and set the thread count."""
    from graphhop.models.encoder import set_threads

    args = ap.parse_args(argv)
    if need_data and "data" in vars(args) and args.data is None:
        ap.error("set GRAPHHOP_DATA or pass --data")
    set_threads(args.threads)
    return args
