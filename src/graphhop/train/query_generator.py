"""Training GoldEn's query generator: a span selector fitted to the oracle queries.

Training data comes from :func:`graphhop.retrieve.golden_oracle.oracle_trajectory`: one example per hop
(``first = "hop N"``, ``second`` = the hop's context, span = the oracle query), plus one *stop*
example per question (the context after the last gold hop, null span) that teaches the learned stop
criterion. Hops whose oracle query never retrieves its target (in the top 50) are left out.

The loop (:func:`graphhop.train.common.fine_tune`, shared with the span reader) is AdamW with linear
warm-up and decay, a tqdm progress bar, an evaluation on dev after
every epoch (span exact match / token F1 against the oracle spans, null accuracy), and the best
epoch (dev F1) kept and saved.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

from graphhop.core import InputError
from graphhop.datasets.textqa import TextQAExample
from graphhop.metrics.qa import token_f1
from graphhop.models.span import SpanExample, SpanSelector
from graphhop.retrieve.golden import GoldEnSearch, hop_prompt
from graphhop.retrieve.golden_oracle import oracle_trajectory
from graphhop.train.common import FitOptions, TrainResult, fine_tune

__all__ = ["OracleStats", "query_examples", "trajectory_examples", "evaluate_spans", "TrainResult", "train_span_selector"]


@dataclass
class OracleStats:
    """How the oracle fared while building examples: hops, hops found in the top 5, skipped hops."""

    questions: int = 0
    hops: int = 0
    found_top5: int = 0
    skipped: int = 0
    stop_examples: int = 0

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def query_examples(
    examples: Sequence[TextQAExample], search: GoldEnSearch, stats: OracleStats | None = None, **options: Any
) -> list[SpanExample]:
    """Span-selector examples from the oracle trajectories of ``examples`` over ``search``'s index;
    ``options`` are :func:`trajectory_examples`'s (``per_hop``, ``max_words``, ``stop_examples``, ``select``)."""
    stats = stats if stats is not None else OracleStats()
    return [span for ex in examples
            for span in trajectory_examples(ex.id, ex.question, search, ex.gold, ex.ordered, stats=stats, **options)]


def trajectory_examples(qid: str, question: str, search: GoldEnSearch, gold: Sequence[str], ordered: bool = False,
                        stop_examples: bool = True, stats: OracleStats | None = None, **oracle: Any) -> list[SpanExample]:
    """Span-selector examples of one question's oracle trajectory over ``search`` (any object with
    GoldEnSearch's ``search``/``candidates``/``index.docs``, e.g. a candidate pool); ``oracle`` are
    :func:`~graphhop.retrieve.golden_oracle.oracle_trajectory`'s options (``per_hop``, ``max_words``, ``select``)."""
    stats = stats if stats is not None else OracleStats()
    stats.questions += 1
    out: list[SpanExample] = []
    for hop in oracle_trajectory(search, question, gold, ordered=ordered, stop_hop=stop_examples, **oracle):
        hid = f"{qid}#hop{hop.hop}"
        if hop.query is None:
            out.append(SpanExample(hop_prompt(hop.hop), hop.context, None, None, hid))
            stats.stop_examples += 1
            continue
        stats.hops += 1
        stats.found_top5 += int(hop.query.found)
        if hop.query.rank is None:
            stats.skipped += 1
            continue
        out.append(SpanExample(hop_prompt(hop.hop), hop.context, hop.query.start, hop.query.end, hid))
    return out


def evaluate_spans(selector: SpanSelector, examples: Sequence[SpanExample], batch_size: int = 16) -> dict[str, float]:
    """``exact`` and ``f1`` of predicted vs gold spans (a null prediction is the empty string), and
    ``null_acc``: how often "null or not" is right. Means over all examples."""
    if not examples:
        return {"exact": 0.0, "f1": 0.0, "null_acc": 0.0}
    preds = selector.predict([(e.first, e.second) for e in examples], batch_size=batch_size)
    exact = f1 = null_ok = 0.0
    for ex, p in zip(examples, preds):
        pred = "" if p.is_null else p.text
        gold = ex.text
        if not gold or not pred:
            score = float(gold == pred)
            exact += score
            f1 += score
        else:
            exact += float(pred.strip().lower() == gold.strip().lower())
            f1 += token_f1(pred, gold)
        null_ok += float((not pred) == (not gold))
    n = len(examples)
    return {"exact": exact / n, "f1": f1 / n, "null_acc": null_ok / n}


def train_span_selector(
    selector: SpanSelector,
    train: Sequence[SpanExample],
    dev: Sequence[SpanExample] = (),
    *,
    progress: bool = True,
    out: str | Path | None = None,
    card: dict[str, Any] | None = None,
    **fit: Any,
) -> TrainResult:
    """Fine-tune ``selector`` in place with the :class:`~graphhop.train.common.FitOptions` ``fit``;
    with dev examples the best epoch (dev F1) is restored at the end (without dev: the last). With
    ``out`` the result is saved there, its card holding data, steps and metrics."""
    if not train:
        raise InputError("no training examples (did the oracle find any query?)")
    opts = FitOptions(**fit)
    result = fine_tune(selector.model, selector.loss, train, (lambda: evaluate_spans(selector, dev)) if dev else None,
                       progress=progress, desc="train span selector", **asdict(opts))
    if out is not None:
        selector.save(out, {**(card or {}), "steps": result.steps, "epochs": opts.epochs, "batch_size": opts.batch_size,
                            "lr": opts.lr, "warmup": opts.warmup, "seed": opts.seed, "train_examples": len(train),
                            "dev_examples": len(dev), "best_epoch": result.best_epoch, "metrics": result.best,
                            "history": result.history, "train_seconds": round(result.seconds, 1)})
    return result
