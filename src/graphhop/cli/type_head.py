"""``graphhop train type-head``: retrain the type head (:mod:`graphhop.train.type_head`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.core import InputError
from graphhop.kgqa.type_head import DEFAULT_TYPE_WEIGHTS

__all__ = ["train_type_head_cli"]


def train_type_head_cli(
    out: Path = typer.Option(DEFAULT_TYPE_WEIGHTS, "--out", help="Folder to write head.npz + config.json into "
                             "(default: the shipped head, replaced)."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    epochs: int = typer.Option(10, help="Epochs; the one best on the held-out selection KBs is kept."),
    width: int = typer.Option(96, help="Width of the noun, relation and name codes."),
    act: str = typer.Option("relu", help="Codes: relu (shipped) or linear (a low-rank bilinear form)."),
    lr: float = typer.Option(2e-3, help="AdamW learning rate."),
    weight_decay: float = typer.Option(1e-4, "--weight-decay", help="AdamW weight decay."),
    dropout: float = typer.Option(0.2, help="Dropout on the noun code."),
    limit: int = typer.Option(1500, help="Entities per benchmark KB (even stride)."),
    seed: int = typer.Option(0, help="Random seed."),
    threads: Optional[int] = typer.Option(1, help="Torch CPU threads."),
) -> None:
    """Train the type head on the training KBs' relation roles and three hand-written schemas; the epoch is
    chosen on held-out KBs (WorldCup2014, the perfumery schema); MetaQA and the vineyards schema are never read
    for a choice (``benchmarks/type_head_eval.py`` reports them). A few CPU minutes on one thread."""
    from graphhop.datasets.kgqa import data_root
    from graphhop.models.encoder import set_threads
    from graphhop.train.type_head import train_type_head

    if min(epochs, width, limit) <= 0 or not 0.0 <= dropout < 1.0 or lr <= 0:
        raise InputError("--epochs, --width, --limit and --lr must be positive and --dropout in [0, 1)")
    if act not in ("linear", "relu"):
        raise InputError(f"--act must be linear or relu (got {act!r})")
    set_threads(threads)
    card = train_type_head(out, epochs=epochs, width=width, act=act, lr=lr, weight_decay=weight_decay, dropout=dropout,
                           limit=limit, seed=seed, root=data_root(data))
    card.pop("history")
    typer.echo(json.dumps({"out": str(out), **card}, indent=1))
