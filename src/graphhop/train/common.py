"""Pieces shared by the training loops: AdamW with linear warm-up, one epoch of steps, and the
fine-tuning loop of the span models (GoldEn's query generator, the span reader)."""

from __future__ import annotations

import copy
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import torch

from graphhop.core import InputError

__all__ = ["freeze_lower_layers", "adamw_with_warmup", "run_epoch", "save_model_dir", "TrainResult", "FitOptions", "fine_tune"]


def freeze_lower_layers(bert: torch.nn.Module, train_layers: int) -> None:
    """Train only the top ``train_layers`` transformer layers of ``bert`` (a BERT-like module with ``embeddings``
    and ``encoder.layer``): its embeddings and lower layers frozen, the top ones trainable; the rest of the module
    (a pooler) is left as it is."""
    layers = bert.encoder.layer
    first = len(layers) - max(0, min(train_layers, len(layers)))
    for p in bert.embeddings.parameters():
        p.requires_grad = False
    for i, layer in enumerate(layers):
        for p in layer.parameters():
            p.requires_grad = i >= first


def adamw_with_warmup(
    model: torch.nn.Module, lr: float, weight_decay: float, warmup: float, total_steps: int
) -> tuple[torch.optim.Optimizer, Any]:
    """AdamW (no decay on biases and LayerNorm) with a linear warm-up over ``warmup`` of the steps,
    then linear decay to 0."""
    from transformers import get_linear_schedule_with_warmup

    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    decay = [p for n, p in named if not n.endswith("bias") and "LayerNorm" not in n]
    no_decay = [p for n, p in named if n.endswith("bias") or "LayerNorm" in n]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}], lr=lr)
    sched = get_linear_schedule_with_warmup(opt, max(1, int(warmup * total_steps)), max(1, total_steps))
    return opt, sched


def run_epoch(
    model: torch.nn.Module,
    loss_fn: Callable[[list], torch.Tensor],
    train: Sequence,
    order: list[int],
    batch_size: int,
    opt: torch.optim.Optimizer,
    sched: Any,
    steps_done: int,
    total_steps: int,
    rng: random.Random,
    bar: Any,
    epoch: int,
    deadline: float | None = None,
) -> tuple[int, float, bool]:
    """One pass over ``train`` after shuffling ``order`` in place (kept across epochs, so runs
    reproduce); stops at ``total_steps`` or the ``deadline``.

    Returns ``(steps_done, mean training loss, stopped_by_deadline)``; gradients are clipped to 1.0.
    """
    model.train()
    rng.shuffle(order)
    running, n_batches, stopped = 0.0, 0, False
    for i in range(0, len(order), batch_size):
        if steps_done >= total_steps:
            break
        if deadline is not None and time.perf_counter() > deadline:
            stopped = True
            break
        loss = loss_fn([train[j] for j in order[i : i + batch_size]])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        steps_done += 1
        running += float(loss.detach())
        n_batches += 1
        bar.update(1)
        bar.set_postfix(epoch=epoch, loss=f"{running / n_batches:.3f}")
    model.eval()
    return steps_done, running / max(1, n_batches), stopped


def save_model_dir(save: Callable[[Any], None], out: str | Path, card: dict[str, Any]) -> Path:
    """Write a model directory atomically: ``save(tmp)`` writes the model into a temporary sibling, then its
    ``graphhop_card.json``; the sibling replaces ``out`` (only an earlier graphhop model is ever replaced)."""
    import json

    from graphhop.io import atomic_dir

    with atomic_dir(out, overwrite=True, replace_if=("graphhop_card.json",)) as tmp:
        save(tmp)
        (tmp / "graphhop_card.json").write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    return Path(out)


@dataclass
class TrainResult:
    """What a run did: optimizer steps, seconds, per-epoch history, the best epoch (0 = before training)
    and its dev metrics, and whether the time limit stopped it."""

    steps: int
    seconds: float
    history: list[dict[str, Any]] = field(default_factory=list)
    best_epoch: int = 0
    best: dict[str, float] = field(default_factory=dict)
    stopped_early: bool = False


@dataclass
class FitOptions:
    """How :func:`fine_tune` trains: ``epochs`` passes (or ``max_steps`` / ``max_minutes``) of
    ``batch_size`` examples, AdamW at ``lr`` with ``weight_decay``, linear warm-up over ``warmup`` of
    the steps, and the ``seed`` of the data order."""

    epochs: int = 3
    batch_size: int = 16
    lr: float = 5e-5
    warmup: float = 0.1
    weight_decay: float = 0.01
    max_steps: int | None = None
    max_minutes: float | None = None
    seed: int = 0


def fine_tune(
    model: torch.nn.Module,
    loss_fn: Callable[[list], torch.Tensor],
    train: Sequence,
    evaluate: Callable[[], dict[str, float]] | None = None,
    *,
    progress: bool = True,
    desc: str = "train",
    evaluate_before: bool = False,
    on_best: Callable[[int, TrainResult], None] | None = None,
    **fit: Any,
) -> TrainResult:
    """Fine-tune ``model`` in place with the :class:`FitOptions` ``fit``: AdamW with warm-up, the
    epochs, ``evaluate()`` (dev metrics with an ``f1`` key) after every epoch — and before training
    with ``evaluate_before`` — and the best epoch by dev F1 restored at the end (without
    ``evaluate``: the last). ``on_best(epoch, result)`` is called whenever the best epoch changes."""
    from tqdm.auto import tqdm

    opts = FitOptions(**fit)
    epochs, batch_size, max_steps = opts.epochs, opts.batch_size, opts.max_steps
    if not train:
        raise InputError("no training examples")
    if epochs < 1 or batch_size < 1:
        raise InputError(f"epochs and batch size must be positive (got {epochs}, {batch_size})")
    rng = random.Random(opts.seed)
    torch.manual_seed(opts.seed)
    per_epoch = (len(train) + batch_size - 1) // batch_size
    total = per_epoch * epochs if max_steps is None else min(max_steps, per_epoch * epochs)
    opt, sched = adamw_with_warmup(model, opts.lr, opts.weight_decay, opts.warmup, total)
    result = TrainResult(steps=0, seconds=0.0)
    t0 = time.perf_counter()
    deadline = t0 + opts.max_minutes * 60 if opts.max_minutes else None
    best_state: dict[str, torch.Tensor] | None = None
    best_f1 = float("-inf")

    def finish_epoch(epoch: int, row: dict[str, Any]) -> None:
        nonlocal best_state, best_f1
        if evaluate is not None:
            row.update({f"dev_{k}": v for k, v in evaluate().items() if k != "n"})
        result.history.append(row)
        if evaluate is not None:
            if row["dev_f1"] <= best_f1:
                return
            best_f1 = row["dev_f1"]
            best_state = copy.deepcopy(model.state_dict())
        result.best_epoch = epoch
        result.best = {k: v for k, v in row.items() if k.startswith("dev_")}
        result.seconds = time.perf_counter() - t0
        if on_best is not None:
            on_best(epoch, result)

    if evaluate is not None and evaluate_before:
        finish_epoch(0, {"epoch": 0, "steps": 0})
    bar = tqdm(total=total, desc=desc, unit="step", disable=not progress)
    order = list(range(len(train)))
    for epoch in range(1, epochs + 1):
        if result.steps >= total or result.stopped_early:
            break
        result.steps, train_loss, result.stopped_early = run_epoch(
            model, loss_fn, train, order, batch_size, opt, sched, result.steps, total, rng, bar, epoch, deadline)
        finish_epoch(epoch, {"epoch": epoch, "steps": result.steps, "train_loss": train_loss})
        bar.write(" ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.history[-1].items()))
    bar.close()
    if best_state is not None:
        model.load_state_dict(best_state)
    model.eval()
    result.seconds = time.perf_counter() - t0
    return result
