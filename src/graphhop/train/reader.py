"""Training the span reader: AdamW with linear warm-up and decay, a tqdm bar, a dev evaluation
(answer EM/F1, SQuAD-normalized, against the gold span text) before training and after every
epoch, and the best checkpoint (dev F1) saved atomically to ``out`` whenever dev improves
(without dev: the last epoch). ``max_minutes`` stops cleanly; the best checkpoint stays.
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import torch

from graphhop.core import InputError
from graphhop.metrics.qa import qa_scores
from graphhop.models.span import SpanExample
from graphhop.read.span import SpanReader
from graphhop.train.common import adamw_with_warmup, run_epoch

__all__ = ["ReaderTrainResult", "evaluate_reader", "train_span_reader"]


@dataclass
class ReaderTrainResult:
    """Steps, seconds, per-epoch history, the best epoch (0 = before training) and its dev metrics."""

    steps: int
    seconds: float
    history: list[dict[str, Any]] = field(default_factory=list)
    best_epoch: int = 0
    best: dict[str, float] = field(default_factory=dict)
    stopped_early: bool = False


def evaluate_reader(reader: SpanReader, examples: Sequence[SpanExample], batch_size: int = 16) -> dict[str, float]:
    """EM and F1 of the predicted span text against each example's gold span text."""
    if not examples:
        return {"em": 0.0, "f1": 0.0, "n": 0}
    preds = reader.selector.predict([(e.first, e.second) for e in examples], max_answer_tokens=reader.max_answer_tokens,
                                    batch_size=batch_size)
    return qa_scores([p.text for p in preds], [[e.text] for e in examples])


def train_span_reader(
    reader: SpanReader,
    train: Sequence[SpanExample],
    dev: Sequence[SpanExample] = (),
    *,
    out: str | Path | None = None,
    epochs: int = 2,
    batch_size: int = 16,
    lr: float = 1e-4,
    warmup: float = 0.1,
    weight_decay: float = 0.01,
    max_steps: int | None = None,
    max_minutes: float | None = None,
    seed: int = 0,
    progress: bool = True,
    card: dict[str, Any] | None = None,
) -> ReaderTrainResult:
    """Fine-tune ``reader`` in place (the best state is restored at the end) and save it to ``out``."""
    from tqdm.auto import tqdm

    if not train:
        raise InputError("no training examples")
    if epochs < 1 or batch_size < 1:
        raise InputError(f"epochs and batch size must be positive (got {epochs}, {batch_size})")
    rng = random.Random(seed)
    torch.manual_seed(seed)
    model = reader.selector.model
    per_epoch = (len(train) + batch_size - 1) // batch_size
    total = per_epoch * epochs if max_steps is None else min(max_steps, per_epoch * epochs)
    opt, sched = adamw_with_warmup(model, lr, weight_decay, warmup, total)
    result = ReaderTrainResult(steps=0, seconds=0.0)
    t0 = time.perf_counter()
    deadline = t0 + max_minutes * 60 if max_minutes else None
    meta = dict(card or {})
    meta.update({"epochs": epochs, "batch_size": batch_size, "lr": lr, "warmup": warmup, "seed": seed,
                 "train_examples": len(train), "dev_examples": len(dev)})
    best_state: dict[str, torch.Tensor] | None = None
    best_f1 = -1.0

    def checkpoint(epoch: int, row: dict[str, Any]) -> None:
        nonlocal best_state, best_f1
        if dev and row.get("dev_f1", -1.0) <= best_f1:
            return
        best_f1 = row.get("dev_f1", best_f1)
        best_state = copy.deepcopy(model.state_dict())
        result.best_epoch = epoch
        result.best = {k: v for k, v in row.items() if k.startswith("dev_")}
        if out is not None and epoch > 0:
            reader.save(out, {**meta, "steps": result.steps, "best_epoch": epoch, "metrics": result.best,
                              "history": result.history, "train_seconds": round(time.perf_counter() - t0, 1)})

    if dev:
        row0 = {"epoch": 0, "steps": 0, **{f"dev_{k}": v for k, v in evaluate_reader(reader, dev).items() if k != "n"}}
        result.history.append(row0)
        checkpoint(0, row0)
    bar = tqdm(total=total, desc="train span reader", unit="step", disable=not progress)
    order = list(range(len(train)))
    for epoch in range(1, epochs + 1):
        if result.steps >= total or result.stopped_early:
            break
        result.steps, train_loss, result.stopped_early = run_epoch(
            model, reader.selector.loss, train, order, batch_size, opt, sched, result.steps, total, rng, bar, epoch, deadline
        )
        row: dict[str, Any] = {"epoch": epoch, "steps": result.steps, "train_loss": train_loss}
        if dev:
            row.update({f"dev_{k}": v for k, v in evaluate_reader(reader, dev).items() if k != "n"})
        result.history.append(row)
        bar.write(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
        checkpoint(epoch, row)
    bar.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    result.seconds = time.perf_counter() - t0
    if out is not None and result.best_epoch == 0:  # dev never improved on the untrained model: still save
        reader.save(out, {**meta, "steps": result.steps, "best_epoch": 0, "metrics": result.best, "history": result.history,
                          "train_seconds": round(result.seconds, 1)})
    return result
