"""Pieces shared by the training loops: AdamW with linear warm-up, and one epoch of steps."""

from __future__ import annotations

import random
import time
from typing import Any, Callable, Sequence

import torch

__all__ = ["adamw_with_warmup", "run_epoch"]


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
