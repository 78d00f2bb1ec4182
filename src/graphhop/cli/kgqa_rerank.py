"""``graphhop train kgqa-reranker``: retrain the chain reranker (:mod:`graphhop.kgqa.rerank_train`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.core import InputError

__all__ = ["train_kgqa_reranker"]


def train_kgqa_reranker(
    folders: list[Path] = typer.Argument(..., help="Hand-written KB folders (kb.tsv + questions.jsonl with gold facts) to train on."),
    out: Optional[Path] = typer.Option(None, "--out", help="Folder for top.npz + config.json (default: the shipped reranker, replaced)."),
    per_set: int = typer.Option(30, "--per-set", help="Benchmark training questions per set (train parts; MetaQA: the fit half of dev), even stride; 0: none."),
    list_k: int = typer.Option(10, "--list-k", help="Candidate chains per question (the pipeline's best, the gold one swapped in)."),
    epochs: int = typer.Option(3, "--epochs"),
    lr: float = typer.Option(2e-4, "--lr"),
    layers: int = typer.Option(1, "--layers", help="Top transformer layers trained (and shipped, one file per layer, each under 5 MB)."),
    k: int = typer.Option(8, "--k", help="Paths the shipped reranker reorders (saved in its config)."),
    w: float = typer.Option(0.5, "--w", help="The logit's weight beside the head score (saved in its config)."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    seed: int = typer.Option(0, "--seed"),
    threads: Optional[int] = typer.Option(1, "--threads", help="Torch CPU threads."),
) -> None:
    """Fine-tune the bundled MiniLM as a cross-encoder of (masked question, chain) on the pipeline's candidate chains;
    saves only the trained top layers (float16). About ten CPU minutes on one thread with the defaults."""
    from graphhop.kgqa.rerank import rerank_folder
    from graphhop.kgqa.rerank_train import train_chain_reranker
    from graphhop.models.encoder import set_threads

    if min(epochs, list_k, layers, k) < 1 or per_set < 0 or lr <= 0 or w < 0:
        raise InputError("--epochs, --list-k, --layers and --k must be at least 1, --per-set and --w not negative, --lr positive")
    set_threads(threads)
    target = out or rerank_folder(None)
    card = train_chain_reranker(target, folders, per_set=per_set, list_k=list_k, root=data, epochs=epochs, lr=lr,
                                layers=layers, seed=seed, k=k, w=w, log=lambda m: typer.echo(m, err=True))
    typer.echo(json.dumps({"out": str(target), **card}, indent=1))
