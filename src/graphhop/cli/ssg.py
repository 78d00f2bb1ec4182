"""``graphhop train ssg``: train NeuralDB's support-set generator on a builder dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.cli.common import builder_records

__all__ = ["train_ssg"]


def train_ssg(
    data: Path = typer.Argument(..., help="Builder dataset folder (train.jsonl)."),
    out: Path = typer.Option(..., "--out", "-o", help="Model dir to write (ssg.pt + model_card.json, atomic)."),
    train_limit: Optional[int] = typer.Option(1000, help="Use at most N training questions (after the held-out tenth)."),
    select_limit: int = typer.Option(100, help="Held-out training questions (every 10th) that choose epoch and threshold."),
    epochs: int = typer.Option(30, help="Maximum epochs."),
    max_minutes: float = typer.Option(4.0, help="Wall-clock budget for training."),
    cache: Path = typer.Option(Path("runs/bgr-cache"), help="Where encoder vectors are cached."),
    threads: int = typer.Option(2, help="Torch CPU threads."),
    seed: int = typer.Option(13, help="Seed."),
) -> None:
    """Train SSG (frozen MiniLM + adapters); every 10th training question chooses epoch and threshold."""
    from graphhop.models.encoder import set_threads
    from graphhop.train.bgr_data import EmbeddingCache, load_examples
    from graphhop.train.ssg import train_ssg as run

    set_threads(threads)
    recs = builder_records(data, "train")
    emb = EmbeddingCache(cache)
    train = load_examples([r for i, r in enumerate(recs) if i % 10 != 9], emb, train_limit, progress=True)
    select = load_examples(recs[9::10], emb, select_limit, progress=True)
    _, card = run(train, select, out, emb.encode, epochs=epochs, max_minutes=max_minutes, seed=seed,
                  log=lambda m: typer.echo(m, err=True))
    emb.save()
    typer.echo(json.dumps({"out": str(out), "train_seconds": card["train_seconds"], "best_epoch": card["best_epoch"],
                           "selection": {k: v for k, v in card["selection"].items() if k != "grid"}}, indent=1))
