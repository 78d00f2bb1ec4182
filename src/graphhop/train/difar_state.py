"""DiFaR training bookkeeping: resumable checkpoints, the best-model directory and its model card,
the optimizer and learning-rate schedule, and the wall-clock budget of a run.

Used by :mod:`graphhop.train.difar` (the retriever and reranker trainers).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from graphhop.core import GraphhopError
from graphhop.io import atomic_dir, atomic_write_text
from graphhop.train.data import TrainData

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.train.difar import TrainConfig

__all__ = ["CARD_NAME", "read_card"]

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
