"""Training the span reader: AdamW with linear warm-up and decay, a tqdm bar, a dev evaluation
(answer EM/F1, SQuAD-normalized, against the gold span text) before training and after every
epoch, and the best checkpoint (dev F1) saved atomically to ``out`` whenever dev improves
(without dev: the last epoch). ``max_minutes`` stops cleanly; the best checkpoint stays.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

from graphhop.metrics.qa import qa_scores
from graphhop.models.span import SpanExample
from graphhop.read.span import SpanReader
from graphhop.train.common import FitOptions, TrainResult, fine_tune

__all__ = ["evaluate_reader", "train_span_reader"]


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
    progress: bool = True,
    card: dict[str, Any] | None = None,
    **fit: Any,
) -> TrainResult:
    """Fine-tune ``reader`` in place with the :class:`~graphhop.train.common.FitOptions` ``fit``
    (default 2 epochs at lr 1e-4; the best state is restored at the end) and save it to ``out``
    whenever dev F1 improves (and once at the end if it never beat the untrained model)."""
    opts = FitOptions(**{"epochs": 2, "lr": 1e-4, **fit})
    meta = {**(card or {}), "epochs": opts.epochs, "batch_size": opts.batch_size, "lr": opts.lr, "warmup": opts.warmup,
            "seed": opts.seed, "train_examples": len(train), "dev_examples": len(dev)}

    def save(epoch: int, result: TrainResult) -> None:
        if out is not None:
            reader.save(out, {**meta, "steps": result.steps, "best_epoch": epoch, "metrics": result.best,
                              "history": result.history, "train_seconds": round(result.seconds, 1)})

    result = fine_tune(reader.selector.model, reader.selector.loss, train,
                       (lambda: evaluate_reader(reader, dev)) if dev else None, progress=progress,
                       desc="train span reader", evaluate_before=True,
                       on_best=lambda epoch, r: save(epoch, r) if epoch > 0 else None, **asdict(opts))
    if result.best_epoch == 0:  # dev never improved on the untrained model: still save
        save(0, result)
    return result
