"""Training SSG (:mod:`graphhop.retrieve.ssg`) on builder gold graphs, in CPU minutes.

Pairs follow the NeuralDB release: for every gold chain (root-to-sink path) and every prefix of it,
the state ``query [SEP] prefix facts`` has as positives the next evidence of every chain sharing that
prefix, and ``<eos>`` once the chain is complete; every other pool sentence (and ``<eos>`` before the
end) is a negative. The frozen encoder's vectors are cached, so an epoch is one pass of the adapters.
The epoch is chosen by the loss on a selection set, then the threshold and the number of actions
taken per state by its mean evidence-set F1 (the selection set is never a reported split).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch

from graphhop.core import InputError
from graphhop.retrieve.ssg import SSGConfig, SSGModel, save_ssg, sets_to_graph, state_text, support_sets

__all__ = ["SSGState", "ssg_states", "ssg_loss", "train_ssg", "select_ssg", "ssg_graph"]


@dataclass
class SSGState:
    """One teacher-forced state: its text, the pool vectors, the positive pool indices, ``<eos>`` positive?"""

    text: str
    vectors: np.ndarray
    positives: frozenset[int]
    eos: bool


def ssg_states(ex: Any, sep: str = " [SEP] ") -> list[SSGState]:
    """Every state of ``ex``'s gold chains (a :class:`~graphhop.train.bgr_data.BGRExample`)."""
    pos = {d: i for i, d in enumerate(ex.pool.ids)}
    chains = [[pos[n] for n in c if n in pos] for c in ex.gold.chains()]
    chains = [c for c in chains if c]
    nxt: dict[tuple[int, ...], set[int]] = {}
    done: set[tuple[int, ...]] = set()
    for c in chains:
        for k in range(len(c)):
            nxt.setdefault(tuple(c[:k]), set()).add(c[k])
        done.add(tuple(c))
    states = []
    for prefix in sorted(set(nxt) | done, key=lambda p: (len(p), p)):
        text = state_text(ex.query, [ex.pool.texts[i] for i in prefix], sep)
        states.append(SSGState(text, ex.pool.vectors, frozenset(nxt.get(prefix, ())), prefix in done))
    return states


def ssg_loss(model: SSGModel, states: Sequence[SSGState], state_vecs: np.ndarray, pos_weight: float = 5.0) -> torch.Tensor:
    """Binary cross-entropy over every (state, action) pair of a batch (pools padded and masked)."""
    pmax = max(len(s.vectors) for s in states)
    d = state_vecs.shape[1]
    acts = np.zeros((len(states), pmax, d), dtype=np.float32)
    labels = np.zeros((len(states), pmax + 1), dtype=np.float32)
    mask = np.zeros((len(states), pmax + 1), dtype=np.float32)
    for i, s in enumerate(states):
        p = len(s.vectors)
        acts[i, :p] = s.vectors
        mask[i, :p] = 1.0
        mask[i, pmax] = 1.0
        labels[i, list(s.positives)] = 1.0
        labels[i, pmax] = float(s.eos)
    logits = model.logits(torch.from_numpy(np.asarray(state_vecs, dtype=np.float32)), torch.from_numpy(acts))
    y, m = torch.from_numpy(labels), torch.from_numpy(mask)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="none",
                                                                pos_weight=torch.tensor(pos_weight))
    return (loss * m).sum() / m.sum()


def _batches(n: int, size: int, rng: random.Random) -> list[list[int]]:
    order = list(range(n))
    rng.shuffle(order)
    return [order[i : i + size] for i in range(0, n, size)]


def ssg_graph(model: SSGModel, ex: Any, encode: Callable[[list[str]], np.ndarray], cfg: SSGConfig | None = None) -> Any:
    """SSG's evidence graph for one :class:`~graphhop.train.bgr_data.BGRExample` (closed pool)."""
    sets = support_sets(model, ex.query, ex.pool.texts, ex.pool.vectors, encode, cfg)
    return sets_to_graph(ex.question, [c for c, _ in sets], ex.pool.ids, ex.pool.texts, ex.pool.facts)


def select_ssg(model: SSGModel, examples: Sequence[Any], encode: Callable[[list[str]], np.ndarray],
               thresholds: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8), branches: Sequence[int] = (1, 2, 3)) -> dict[str, Any]:
    """Threshold and actions per state with the best mean evidence-set F1 on ``examples`` (ties: first)."""
    from dataclasses import replace

    from graphhop.metrics.graph import set_scores

    grid = []
    for b in branches:
        for t in thresholds:
            cfg = replace(model.cfg, threshold=t, max_branch=b)
            f1 = float(np.mean([set_scores(ssg_graph(model, ex, encode, cfg).evidence_ids, ex.gold.evidence_ids).f1
                                for ex in examples]))
            grid.append({"threshold": t, "max_branch": b, "f1": round(f1, 4)})
    best = max(grid, key=lambda r: r["f1"])
    model.cfg.threshold, model.cfg.max_branch = best["threshold"], best["max_branch"]
    return {"threshold": best["threshold"], "max_branch": best["max_branch"], "grid": grid}


def train_ssg(train: Sequence[Any], select: Sequence[Any], out: str | Path | None, encode: Callable[[list[str]], np.ndarray],
              cfg: SSGConfig | None = None, epochs: int = 30, batch_size: int = 64, lr: float = 1e-3,
              pos_weight: float = 5.0, max_minutes: float = 5.0, seed: int = 13,
              log: Callable[[str], None] | None = None) -> tuple[SSGModel, dict[str, Any]]:
    """Train on ``train``'s gold chains; epoch by ``select`` loss, then threshold/branching by ``select``
    F1; ``max_steps`` = the longest training chain. Saved to ``out`` (when given); returns model and card."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    cfg = cfg or SSGConfig()
    tr = [s for ex in train for s in ssg_states(ex, cfg.sep)]
    sel = [s for ex in select for s in ssg_states(ex, cfg.sep)]
    if not tr or not sel:
        raise InputError("SSG needs training and selection questions with gold evidence in their pools")
    cfg.max_steps = max(ex.gold.depth() for ex in train)
    cfg.input_dim = int(np.asarray(train[0].pool.vectors).shape[1])
    model = SSGModel(cfg)
    tr_vecs, sel_vecs = encode([s.text for s in tr]), encode([s.text for s in sel])
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    t0, best, history = time.perf_counter(), (float("inf"), 0, None), []
    for epoch in range(1, epochs + 1):
        model.train()
        for idx in _batches(len(tr), batch_size, rng):
            opt.zero_grad()
            loss = ssg_loss(model, [tr[i] for i in idx], tr_vecs[idx], pos_weight)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            sel_loss = float(ssg_loss(model, sel, sel_vecs, pos_weight))
        history.append({"epoch": epoch, "select_loss": round(sel_loss, 4)})
        if log:
            log(f"ssg epoch {epoch}: select loss {sel_loss:.4f}")
        if sel_loss < best[0]:
            best = (sel_loss, epoch, {k: v.detach().clone() for k, v in model.state_dict().items()})
        if time.perf_counter() - t0 > 60 * max_minutes:
            break
    model.load_state_dict(best[2])
    train_s = round(time.perf_counter() - t0, 1)
    selection = select_ssg(model, select, encode)
    card = {"train_states": len(tr), "select_states": len(sel), "train_questions": len(train),
            "best_epoch": best[1], "history": history, "train_seconds": train_s, "selection": selection}
    if out is not None:
        save_ssg(model, out, card)
    return model, card
