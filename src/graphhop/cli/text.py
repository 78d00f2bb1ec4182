"""``graphhop train span-head`` / ``edge-reader`` / ``text-reranker``: retrain the span reader head that ships with
graphhop, train the walk's opt-in edge reader, or the walk's chain reranker (registered by :mod:`graphhop.cli.train`).

The work is in :mod:`graphhop.train.span_head`, :mod:`graphhop.train.edge_reader` and
:mod:`graphhop.train.text_reranker`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.core import InputError

__all__ = ["train_span_head", "train_edge_reader", "train_text_reranker"]


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


def train_edge_reader(
    out: Path = typer.Option(Path("runs/edge-reader/model"), "--out", "-o",
                             help="Directory for the trained top layers (float16 .npz shards + config.json)."),
    sets: list[Path] = typer.Option([], "--set", help="Passage-set folders (passages.jsonl + questions.jsonl with answers "
                                    "and gold_passages); repeatable. Never a regression suite."),
    work: Path = typer.Option(Path("runs/edge-reader"), "--work", help="Where the sets' indexes are built or reused."),
    synthetic: int = typer.Option(600, help="Synthetic paraphrase questions (graphhop.train.edge_paraphrase)."),
    epochs: int = typer.Option(1, help="Epochs."),
    lr: float = typer.Option(1e-4, help="Peak learning rate (AdamW, linear warm-up and decay)."),
    train_layers: int = typer.Option(2, help="Top transformer layers trained (with the pooler and head)."),
    threads: Optional[int] = typer.Option(1, help="torch CPU threads."),
    log: Optional[Path] = typer.Option(None, "--log", help="Append a progress line every 20 training steps here."),
) -> None:
    """Train the walk's edge reader (a MiniLM cross-encoder, top layers only; ``train/edge_reader.py``)."""
    from graphhop.models.encoder import set_threads
    from graphhop.train.edge_reader import recipe_with, train_edge_reader as train
    from graphhop.train.leaf_reranker import line_log

    set_threads(threads)
    _selection_sets(sets)
    card = train(sets, out, work, synthetic, recipe_with(epochs=epochs, train_layers=train_layers, lr=lr), log=line_log(log))
    typer.echo(json.dumps(card, indent=1))


def _selection_sets(sets: list[Path]) -> None:
    """One line naming the first folder that is not a selection passage set."""
    for folder in sets:
        if "regression" in folder.parts or not (folder / "questions.jsonl").exists():
            raise InputError(f"{folder}: not a selection passage set (questions.jsonl; never tests/regression)")


def train_text_reranker(
    out: Path = typer.Option(Path("runs/text-reranker/model"), "--out", "-o",
                             help="Directory for the trained top layers (float16 top.npz + config.json)."),
    sets: list[Path] = typer.Option([], "--set", help="Passage-set folders (passages.jsonl + questions.jsonl with answers "
                                    "and gold_passages); repeatable. Never a regression suite."),
    work: Path = typer.Option(Path("runs/text-reranker"), "--work",
                              help="Where the sets' indexes and the walk's recorded reads are built or reused."),
    epochs: int = typer.Option(2, help="Epochs."),
    lr: float = typer.Option(2e-4, help="Peak learning rate (AdamW, linear warm-up and decay)."),
    layers: int = typer.Option(1, help="Top transformer layers trained (with the pooler and head)."),
    k: int = typer.Option(8, help="The walk's best readings reordered (stored in the model's config)."),
    w: float = typer.Option(0.5, help="The logit's weight beside the walk's margin (stored in the model's config)."),
    threads: Optional[int] = typer.Option(1, help="torch CPU threads."),
) -> None:
    """Train the walk's chain reranker (a MiniLM cross-encoder over the walk's own candidate chains;
    ``train/text_reranker.py``)."""
    from graphhop.models.encoder import set_threads
    from graphhop.train.text_reranker import train_text_reranker as train

    set_threads(threads)
    if not sets:
        raise InputError("no training sets: give --set folders (tests/pipeline/data/<name>)")
    _selection_sets(sets)
    card = train(sets, out, work, log=lambda line: typer.echo(line, err=True), epochs=epochs, lr=lr, layers=layers,
                 k=k, w=w)
    typer.echo(json.dumps(card, indent=1))
