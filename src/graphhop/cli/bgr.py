"""``graphhop eval-bgr``: score BGR and the baselines on a builder dataset split."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.cli.common import builder_records

__all__ = ["eval_bgr", "register"]


def register(app: typer.Typer) -> None:
    """Add ``eval-bgr`` to ``app``."""
    app.command("eval-bgr")(eval_bgr)


def eval_bgr(
    model: Path = typer.Argument(..., help="Model dir written by `graphhop train bgr`."),
    data: Path = typer.Argument(..., help="Builder dataset folder or JSONL file."),
    split: str = typer.Option("dev", help="Split to score (a folder's <split>.jsonl)."),
    limit: Optional[int] = typer.Option(None, help="Score the first N questions."),
    methods: str = typer.Option("random,bm25,dense,mdr,bgr-forward,bgr-backward,bgr-bidirectional",
                                help="Comma-separated methods (baselines use k = gold set size)."),
    cache: Path = typer.Option(Path("runs/bgr-cache"), help="Where encoder vectors are cached."),
    as_json: bool = typer.Option(False, "--json", help="Print the full JSON (per type and per depth)."),
    threads: int = typer.Option(2, help="Torch CPU threads."),
) -> None:
    """Score BGR and the baselines: evidence-set EM/P/R/F1, GM, GS, GED per graph type and depth."""
    from graphhop.models.locate import check_model

    check_model(model, "model", needs=("bgr.pt",))
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.retrieve.graphhop import load_model
    from graphhop.train.bgr import EmbeddingCache, evaluate_methods, load_examples

    set_threads(threads)
    bgr, card = load_model(model)
    emb = EmbeddingCache(cache, bgr.cfg.encoder)
    recs = builder_records(data, split)
    examples = load_examples(recs, emb, limit, progress=True)
    bm25 = PoolBM25(dict.fromkeys(e["text"] for r in recs for e in r["evidence"]))
    rows = evaluate_methods(bgr, examples, [m.strip() for m in methods.split(",") if m.strip()], bm25,
                            lambda t: emb.encode(t), progress=True)
    emb.save()
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    typer.echo("| method | n | EM | P | R | F1 | GM | GS | GED |")
    typer.echo("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, r in rows.items():
        a = r["by_type"]["all"]
        typer.echo(f"| {m} | {a['n']} | " + " | ".join(f"{a[k]:.3f}" for k in ("em", "precision", "recall", "f1", "gm", "gs", "ged")) + " |")
