"""``graphhop train retriever`` and ``graphhop train reranker`` (DiFaR / DiFaR² on CPU).

Command functions only: :mod:`graphhop.cli` registers them under ``graphhop train``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

__all__ = ["train_retriever", "train_reranker"]

_DATASETS_HELP = (
    "Comma-separated datasets to train on: pq-2h, pq-3h, pql-2h, pql-3h, wc-p1, wc-p2, wc-c (their train split) "
    "and metaqa-1h/2h/3h (MetaQA dev after its first 1000 questions per hop; the first 1000 are kept for evaluation)."
)


def _config(**kw):
    from graphhop.train.difar import TrainConfig

    return TrainConfig(**kw)


def _load(datasets: str, data: Optional[Path], limit: Optional[int], holdout: int, max_positives: int, seed: int):
    from graphhop.train.data import load_train_data

    names = [d.strip() for d in datasets.split(",") if d.strip()]
    if not names:
        raise typer.BadParameter("give at least one dataset", param_hint="--datasets")
    train, val = load_train_data(names, data, limit=limit, holdout_percent=holdout, max_positives=max_positives, seed=seed)
    typer.echo(f"training questions {len(train.examples)} ({train.pairs()} pairs), held-out {len(val.examples)}; KBs: {', '.join(train.groups)}", err=True)
    return names, train, val


def _run(kind: str, out: Path, names, train, val, cfg, as_json: bool) -> None:
    from graphhop.core import GraphhopError
    from graphhop.train import difar

    fn = difar.train_retriever if kind == "retriever" else difar.train_reranker
    try:
        card = fn(train, val, out, cfg, datasets=names, progress=True, log=lambda m: typer.echo(m, err=True))
    except GraphhopError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    summary = {"out": str(out), "steps": card["steps"], "best_epoch": card["best_epoch"], "best_val": card["best_val"], "finished": card["finished"]}
    typer.echo(json.dumps(summary, indent=None if as_json else 1))


# Options that `train retriever` and `train reranker` share (typer reads them as defaults).
_OPT_OUT = typer.Option(..., "--out", "-o", help="Model directory to write (best checkpoint + graphhop_card.json); <out>.ckpt holds the resumable state.")
_OPT_DATASETS = typer.Option(..., "--datasets", help=_DATASETS_HELP)
_OPT_DATA = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA).")
_OPT_WARMUP = typer.Option(0.1, "--warmup", help="Warm-up, as a fraction of all steps.")
_OPT_LIMIT = typer.Option(None, "--limit", help="Use at most N training questions per dataset (seeded shuffle).")
_OPT_HOLDOUT = typer.Option(10, "--holdout", help="Percent of training questions held out for per-epoch evaluation and best-checkpoint choice.")
_OPT_VAL_LIMIT = typer.Option(300, "--val-limit", help="Evaluate on at most N held-out questions per epoch.")
_OPT_MAX_STEPS = typer.Option(None, "--max-steps", help="Stop after N optimizer steps in total.")
_OPT_MAX_MINUTES = typer.Option(None, "--max-minutes", help="Stop (evaluate, checkpoint) after N minutes; rerun to resume.")
_OPT_POOL_SIZE = typer.Option(20000, "--pool-size", help="KBs larger than this are ranked within a pool of N facts for mining/evaluation.")
_OPT_THREADS = typer.Option(2, "--threads", help="torch CPU threads (use 1 on a busy machine: oversubscribed threads made steps ~10x slower here).")
_OPT_SEED = typer.Option(0, "--seed", help="Random seed (data order, negatives).")
_OPT_AS_JSON = typer.Option(False, "--json", help="Print the summary as one JSON line.")

def train_retriever(
    out: Path = _OPT_OUT,
    datasets: str = _OPT_DATASETS,
    data: Optional[Path] = _OPT_DATA,
    model: Optional[str] = typer.Option(None, "--model", help="Initial bi-encoder (default: bundled all-MiniLM-L6-v2)."),
    epochs: int = typer.Option(2, "--epochs", help="Passes over the training pairs."),
    batch_size: int = typer.Option(32, "--batch-size", help="Pairs per batch (in-batch negatives = batch size - 1)."),
    lr: float = typer.Option(2e-5, "--lr", help="AdamW learning rate (linear warm-up, then linear decay)."),
    warmup: float = _OPT_WARMUP,
    hard_negatives: int = typer.Option(1, "--hard-negatives", help="Mined hard negatives added per pair (0 = in-batch only)."),
    mine_k: int = typer.Option(20, "--mine-k", help="Hard negatives are drawn from the current model's top-K non-gold facts."),
    remine_every: int = typer.Option(1, "--remine-every", help="Re-mine hard negatives with the current model every N epochs (0 = never)."),
    scale: float = typer.Option(20.0, "--scale", help="Similarity scale (inverse temperature) of the contrastive loss."),
    max_length: int = typer.Option(64, "--max-length", help="Max tokens per question or fact."),
    limit: Optional[int] = _OPT_LIMIT,
    max_positives: int = typer.Option(8, "--max-positives", help="Training pairs per question at most (all gold facts stay excluded from negatives)."),
    holdout: int = _OPT_HOLDOUT,
    val_limit: int = _OPT_VAL_LIMIT,
    max_steps: Optional[int] = _OPT_MAX_STEPS,
    max_minutes: Optional[float] = _OPT_MAX_MINUTES,
    pool_size: int = _OPT_POOL_SIZE,
    threads: int = _OPT_THREADS,
    seed: int = _OPT_SEED,
    as_json: bool = _OPT_AS_JSON,
) -> None:
    """Fine-tune the DiFaR bi-encoder on (question, gold fact) pairs with in-batch + hard negatives.

    Rerunning the same command after an interruption resumes from <out>.ckpt. Use the result with
    `graphhop eval DATASET --model OUT` (the KB is re-encoded with the new model, once, and cached).
    """
    names, train, val = _load(datasets, data, limit, holdout, max_positives, seed)
    cfg = _config(
        model=model, epochs=epochs, batch_size=batch_size, lr=lr, warmup=warmup, hard_negatives=hard_negatives, random_negatives=0,
        mine_k=mine_k, remine_every=remine_every, scale=scale, max_length=max_length, max_steps=max_steps, max_minutes=max_minutes,
        pool_size=pool_size, threads=threads, seed=seed, val_limit=val_limit,
    )
    _run("retriever", out, names, train, val, cfg, as_json)


def train_reranker(
    out: Path = _OPT_OUT,
    datasets: str = _OPT_DATASETS,
    data: Optional[Path] = _OPT_DATA,
    model: Optional[str] = typer.Option(None, "--model", help="Cross-encoder backbone: HF name or directory (default: bundled MiniLM + a fresh one-logit head)."),
    miner: Optional[str] = typer.Option(None, "--miner", help="Bi-encoder whose top-K gives the hard negatives and validation candidates (default: MiniLM; or a `train retriever` output)."),
    epochs: int = typer.Option(2, "--epochs", help="Passes over the training questions."),
    batch_size: int = typer.Option(32, "--batch-size", help="(question, fact) pairs per batch."),
    lr: float = typer.Option(3e-5, "--lr", help="AdamW learning rate (linear warm-up, then linear decay)."),
    warmup: float = _OPT_WARMUP,
    hard_negatives: int = typer.Option(3, "--hard-negatives", help="Hard negatives per question: the highest-ranked non-gold facts."),
    random_negatives: int = typer.Option(1, "--random-negatives", help="Random non-gold facts per question."),
    mine_k: int = typer.Option(20, "--mine-k", help="Size of the miner's pool of non-gold candidates per question."),
    remine_every: int = typer.Option(1, "--remine-every", help="Every N epochs, re-rank the pool with the current reranker and take its top non-gold facts (0 = never)."),
    eval_k: int = typer.Option(20, "--eval-k", help="Validation reranks the miner's top-K per held-out question."),
    max_length: int = typer.Option(96, "--max-length", help="Max tokens per (question, fact) pair."),
    limit: Optional[int] = _OPT_LIMIT,
    max_positives: int = typer.Option(8, "--max-positives", help="Positive pairs per question at most (all gold facts stay excluded from negatives)."),
    holdout: int = _OPT_HOLDOUT,
    val_limit: int = _OPT_VAL_LIMIT,
    max_steps: Optional[int] = _OPT_MAX_STEPS,
    max_minutes: Optional[float] = _OPT_MAX_MINUTES,
    pool_size: int = _OPT_POOL_SIZE,
    threads: int = _OPT_THREADS,
    seed: int = _OPT_SEED,
    as_json: bool = _OPT_AS_JSON,
) -> None:
    """Train a DiFaR² cross-encoder reranker with BCE on gold facts vs. the retriever's most confusing facts.

    Rerunning the same command after an interruption resumes from <out>.ckpt. Use the result with
    `graphhop eval DATASET --rerank OUT --rerank-k 100`.
    """
    names, train, val = _load(datasets, data, limit, holdout, max_positives, seed)
    cfg = _config(
        model=model, miner=miner, epochs=epochs, batch_size=batch_size, lr=lr, warmup=warmup, hard_negatives=hard_negatives,
        random_negatives=random_negatives, mine_k=mine_k, remine_every=remine_every, eval_k=eval_k, max_length=max_length,
        max_steps=max_steps, max_minutes=max_minutes, pool_size=pool_size, threads=threads, seed=seed, val_limit=val_limit,
    )
    _run("reranker", out, names, train, val, cfg, as_json)
