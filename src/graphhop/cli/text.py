"""``graphhop train span-head``: retrain the span reader head that ships with graphhop (registered by :mod:`graphhop.cli.train`).

The work is in
:mod:`graphhop.train.span_head`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.core import InputError

__all__ = ["train_span_head"]


def train_span_head(
    out: Path = typer.Option(..., "--out", "-o", help="Head directory to write (head.pt + model_card.json, atomic)."),
    builder: list[Path] = typer.Option([], "--builder", help="Builder dataset folders (train.jsonl + dev.jsonl); repeatable."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root for the MuSiQue/HotpotQA samples (default: $GRAPHHOP_DATA)."),
    train_limit: int = typer.Option(500, help="Training questions per builder dataset (file order)."),
    dev_limit: int = typer.Option(50, help="Selection questions per builder dataset (their dev part)."),
    epochs: int = typer.Option(15, help="Epochs over the cached encoder states (best selection EM kept)."),
    max_minutes: float = typer.Option(25.0, help="Wall-clock budget for the head's training."),
    threads: Optional[int] = typer.Option(None, help="torch CPU threads."),
    seed: int = typer.Option(0, help="Seed."),
) -> None:
    """Train the span head over the frozen bundled MiniLM (what `ask` uses over passage indexes)."""
    import os

    from graphhop.models.encoder import set_threads
    from graphhop.train.span_head import run_training

    set_threads(threads)
    root = data or (Path(os.environ["GRAPHHOP_DATA"]) if os.environ.get("GRAPHHOP_DATA") else None)
    if root is None and not builder:
        raise InputError("no training data: give --builder folders and/or --data (or set GRAPHHOP_DATA)")
    for folder in builder:
        if not (folder / "train.jsonl").exists():
            raise InputError(f"{folder}: no train.jsonl (expected a `graphhop build-dataset` folder)")
    card = run_training(out, root or Path("/nonexistent"), builder, train_limit=train_limit, dev_limit=dev_limit,
                        epochs=epochs, max_minutes=max_minutes, seed=seed)
    typer.echo(json.dumps({k: v for k, v in card.items() if k != "history"}, indent=1))
