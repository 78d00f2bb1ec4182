"""DiFaR training runs: the loop both trainers share (:class:`TrainingRun`: epochs of steps under
step and time limits), resumable checkpoints, the best-model directory and its model card, the
optimizer and learning-rate schedule, and the wall-clock budget of a run.

Used by :mod:`graphhop.train.difar` (the retriever and reranker trainers).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from graphhop.core import GraphhopError
from graphhop.io import atomic_dir, atomic_write_text
from graphhop.train.data import TrainData

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.train.difar import TrainConfig

__all__ = ["CARD_NAME", "read_card", "TrainingRun", "fresh_state"]

CARD_NAME = "graphhop_card.json"
_STATE = "state.json"
_OPTIM = "trainer.pt"
_NEGS = "negatives.json"


def read_card(model_dir: str | Path) -> dict[str, Any]:
    """The model card JSON a training run wrote into its model directory."""
    path = Path(model_dir) / CARD_NAME
    if not path.is_file():
        raise GraphhopError(f"{model_dir}: no {CARD_NAME} (not a graphhop-trained model directory)")
    return json.loads(path.read_text())


def _ckpt_dir(out: Path) -> Path:
    return out.parent / f"{out.name}.ckpt"


def _save_checkpoint(out: Path, save_model: Callable[[Path], None], optimizer: Any, scheduler: Any, state: dict[str, Any], negatives: Any) -> None:
    import torch

    with atomic_dir(_ckpt_dir(out), overwrite=True, replace_if=(_STATE,)) as tmp:
        save_model(tmp / "model")
        torch.save({"optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, tmp / _OPTIM)
        (tmp / _NEGS).write_text(json.dumps(negatives))
        (tmp / _STATE).write_text(json.dumps(state, indent=1))


def _save_best(out: Path, save_model: Callable[[Path], None], card: dict[str, Any]) -> None:
    with atomic_dir(out, overwrite=True, replace_if=(CARD_NAME,)) as tmp:
        save_model(tmp)
        (tmp / CARD_NAME).write_text(json.dumps(card, indent=1))


def _load_checkpoint(out: Path) -> tuple[Path, dict[str, Any], Any, Any] | None:
    import torch

    ckpt = _ckpt_dir(out)
    if not (ckpt / _STATE).is_file():
        return None
    state = json.loads((ckpt / _STATE).read_text())
    trainer = torch.load(ckpt / _OPTIM, map_location="cpu", weights_only=False)
    negatives = json.loads((ckpt / _NEGS).read_text())
    return ckpt / "model", state, trainer, negatives


def _scheduler(optimizer: Any, warmup_steps: int, total_steps: int) -> Any:
    import torch

    def factor(step: int) -> float:
        if step < warmup_steps:
            return (step + 1) / max(1, warmup_steps)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def _optimizer(model: Any, cfg: TrainConfig) -> Any:
    import torch

    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if ("bias" in name or "LayerNorm" in name or "norm" in name.lower()) else decay).append(p)
    groups = [{"params": decay, "weight_decay": cfg.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=cfg.lr)


def _data_summary(train: TrainData, val: TrainData, datasets: Sequence[str] | None) -> dict[str, Any]:
    return {
        "datasets": list(datasets or []),
        "kbs": sorted({ex.group for ex in train.examples}),
        "train_questions": len(train.examples),
        "train_pairs": train.pairs(),
        "val_questions": len(val.examples),
        "val": "held-out part of the training questions (md5 of question text); dev split untouched",
    }


class _Clock:
    def __init__(self, max_minutes: float | None) -> None:
        self.start = time.monotonic()
        self.limit = max_minutes * 60 if max_minutes else None

    def over(self) -> bool:
        return self.limit is not None and time.monotonic() - self.start > self.limit

    def elapsed(self) -> float:
        return time.monotonic() - self.start


def _mean_tail(values: list[float], n: int) -> float | None:
    return float(np.mean(values[-n:])) if values else None


def _fmt(m: dict[str, float]) -> str:
    return " ".join(f"{k} {v:.3f}" for k, v in m.items() if isinstance(v, float))


def _card(kind: str, cfg: TrainConfig, train: TrainData, val: TrainData, datasets: Sequence[str] | None, state: dict[str, Any], base: str, clock: _Clock, finished: bool = False) -> dict[str, Any]:
    import torch

    history = state.get("history", [])
    best = next((h for h in history if h["epoch"] == state.get("best_epoch")), None)
    return {
        "kind": f"graphhop-difar-{kind}",
        "base_model": base,
        "miner": state.get("miner"),
        "data": _data_summary(train, val, datasets),
        "config": cfg.to_dict(),
        "steps": state.get("global_step", 0),
        "epochs_done": state.get("epoch", 0),
        "best_epoch": state.get("best_epoch"),
        "best_val": best,
        "history": history,
        "loss_first_last": [state["loss"][0], state["loss"][-1]] if state.get("loss") else None,
        "finished": finished,
        "seconds_this_session": round(clock.elapsed(), 1),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }


def _update_card(out: Path, card: dict[str, Any]) -> None:
    """Rewrite the card of the best model with the final history (atomic file replace); the
    best-model fields (``best_epoch``/``best_val``) describe the weights in ``out``."""
    path = out / CARD_NAME
    if not out.is_dir():
        return
    atomic_write_text(path, json.dumps(card, indent=1))


def _optimizer_step(loss, model, optimizer, scheduler, state: dict, batch_index: int, loss_log: list, bar) -> None:
    """Backward, clip to 1.0, step optimizer and schedule, and record the step in ``state``."""
    import torch

    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    state["global_step"] += 1
    state["batch"] = batch_index + 1
    loss_log.append(round(float(loss.detach()), 5))
    bar.update(1)
    bar.set_postfix(loss=f"{loss_log[-1]:.3f}")


def _limit_val(val: TrainData, limit: int | None) -> TrainData:
    return val.subset(val.examples[:limit]) if limit else val


def _set_threads(cfg: TrainConfig) -> None:
    import torch

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)


class TrainingRun:
    """What both trainers share: the epoch/batch loop under the step and time limits, a resumable
    checkpoint every ``save_every`` steps and after each epoch, the best checkpoint by validation
    Hits@1, and the model card."""

    def __init__(self, kind: str, train: TrainData, val: TrainData, out: str | Path, cfg: TrainConfig,
                 datasets: Sequence[str] | None, progress: bool, log: Callable[[str], None]) -> None:
        _set_threads(cfg)
        if not train.examples:
            raise GraphhopError("no training examples")
        self.kind, self.train, self.out, self.cfg = kind, train, Path(out), cfg
        self.val = _limit_val(val, cfg.val_limit)
        self.datasets, self.progress, self.log = datasets, progress, log
        self.clock = _Clock(cfg.max_minutes)
        #: ``(model dir, state, trainer state, saved negatives)`` of an interrupted run, or ``None``
        self.resumed = _load_checkpoint(self.out)
        self.model: Any = None
        self.save_model: Callable[[Path], None] = lambda path: None
        self.optimizer: Any = None
        self.scheduler: Any = None
        self.total = 0

    def prepare(self, model: Any, save_model: Callable[[Path], None], steps_per_epoch: int) -> tuple[dict[str, Any], Any] | None:
        """Set the model, its optimizer and schedule; on a resumed run restore them and return
        ``(state, saved negatives)``."""
        cfg = self.cfg
        self.model, self.save_model = model, save_model
        self.total = min(cfg.max_steps or 10**12, steps_per_epoch * cfg.epochs)
        self.optimizer = _optimizer(model, cfg)
        self.scheduler = _scheduler(self.optimizer, int(cfg.warmup * self.total), self.total)
        if not self.resumed:
            return None
        _, state, trainer, saved = self.resumed
        self.optimizer.load_state_dict(trainer["optimizer"])
        self.scheduler.load_state_dict(trainer["scheduler"])
        self.log(f"resuming from {_ckpt_dir(self.out)}: epoch {state['epoch'] + 1}, step {state['global_step']}")
        return state, saved

    def card(self, state: dict[str, Any], finished: bool = False) -> dict[str, Any]:
        """The model card of the run so far."""
        from graphhop.models.encoder import canonical_model_name

        return _card(self.kind, self.cfg, self.train, self.val, self.datasets, state,
                     canonical_model_name(self.cfg.model), self.clock, finished=finished)

    def loop(self, state: dict[str, Any], batches_of: Callable[[int, random.Random], list],
             loss_of: Callable[[list, random.Random], Any], end_of_epoch: Callable[[bool], tuple[dict[str, float], bool]],
             saved: Callable[[], Any]) -> dict[str, Any]:
        """Train from ``state`` on; returns the final card (also written to ``out``).

        Per epoch: ``batches_of(epoch, rng)``, ``loss_of(batch, rng)`` per step, then
        ``end_of_epoch(remine_due) -> (validation metrics, re-mined)``; ``saved()`` is what a
        checkpoint keeps besides the model (the negatives)."""
        from tqdm.auto import tqdm

        cfg = self.cfg
        stopped = False
        loss_log: list[float] = state.setdefault("loss", [])
        for epoch in range(state["epoch"], cfg.epochs):
            rng = random.Random(cfg.seed * 7919 + epoch)
            batches = batches_of(epoch, rng)
            bar = tqdm(total=len(batches), initial=state["batch"], desc=f"{self.kind} epoch {epoch + 1}/{cfg.epochs}",
                       unit="batch", disable=not self.progress)
            self.model.train()
            for b in range(state["batch"], len(batches)):
                if state["global_step"] >= self.total or self.clock.over():
                    stopped = True
                    break
                loss = loss_of(batches[b], rng)
                _optimizer_step(loss, self.model, self.optimizer, self.scheduler, state, b, loss_log, bar)
                if cfg.save_every and state["global_step"] % cfg.save_every == 0:
                    _save_checkpoint(self.out, self.save_model, self.optimizer, self.scheduler, state, saved())
            bar.close()
            partial = state["batch"] < len(batches)
            due = not partial and cfg.remine_every > 0 and (epoch + 1) % cfg.remine_every == 0 and epoch + 1 < cfg.epochs
            metrics, remined = end_of_epoch(due)
            if self._end_epoch(state, saved(), metrics, remined, epoch, len(batches), loss_log, partial, stopped):
                break
        card = self.card(state, finished=state["epoch"] >= cfg.epochs or state["global_step"] >= self.total)
        if (self.out / CARD_NAME).is_file():
            _update_card(self.out, card)
        return card

    def _end_epoch(self, state: dict[str, Any], negatives: Any, metrics: dict[str, float], remined: bool, epoch: int,
                   n_batches: int, loss_log: list, partial: bool, stopped: bool) -> bool:
        """End of an epoch (or of a partial one): history and log line, best checkpoint by validation
        Hits@1, resumable checkpoint; returns whether training stops (time or step limit)."""
        done = epoch + state["batch"] / max(1, n_batches)
        state["history"].append({"epoch": round(done, 3), "step": state["global_step"], "loss": _mean_tail(loss_log, n_batches), **metrics})
        self.log(f"epoch {done:.2f}: val {_fmt(metrics)}" + (" (re-mined negatives)" if remined else ""))
        if not partial:
            state["epoch"], state["batch"] = epoch + 1, 0
        if metrics["Hits@1"] > state["best"]:
            state["best"], state["best_epoch"] = metrics["Hits@1"], round(done, 3)
            _save_best(self.out, self.save_model, self.card(state))
        _save_checkpoint(self.out, self.save_model, self.optimizer, self.scheduler, state, negatives)
        if stopped or state["global_step"] >= self.total:
            if stopped and self.clock.over():
                self.log(f"time limit reached at step {state['global_step']}; rerun the same command to resume")
            return True
        return False


def fresh_state(metrics: dict[str, float], row: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    """The state of a run before its first step: validation ``metrics`` are epoch 0 (history row
    ``row`` + metrics) and the best so far; ``extra`` keys are kept in the state."""
    first = {"epoch": 0, "step": 0, **(row or {}), **metrics}
    return {"epoch": 0, "batch": 0, "global_step": 0, "best": metrics["Hits@1"], "best_epoch": 0, **extra, "history": [first]}
