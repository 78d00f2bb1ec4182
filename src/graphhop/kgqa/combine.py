"""A learned final order of the reranker's ``k`` chains: a listwise softmax over per-chain features.

The chain reranker (:mod:`graphhop.kgqa.rerank`) reorders the path scorer's best ``k`` paths by the fixed
``head score + w x logit``. :class:`ChainCombiner` replaces that sum by a linear score over features of each
chain that the pipeline already computes (:data:`FEATURES`, :func:`chain_features`): the head score and its
rank, the cross-encoder logit and its rank, the hop count, a relation walked straight back
(:func:`~graphhop.kgqa.pipeline.walks_back`), the relations the question names that the chain covers and the
steps it takes that none names (:func:`~graphhop.kgqa.cover.named_relations`), numeric ends, the number of ends,
and the answer-type fit of the ends for the asked noun (:class:`~graphhop.kgqa.end_type.EndTyper`). Its weights
are fitted (:func:`fit_combiner`) by a listwise softmax (conditional logit) with an L2 penalty over lists of
(features, gold rows: any of them first counts as right), the features standardized; with a ``margin`` (in the
card) the learned order replaces the fixed sum only when its first chain beats the sum's first by that much. They
are saved as a small JSON file (``combine.json`` beside a reranker's weights, read with ``-o rerank_combine=on``,
or any path); ``benchmarks/kgqa_combine_folds.py`` fits them out of fold (docs/RESULTS.md, issue 12, session 17).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

__all__ = ["FEATURES", "COMBINE_FILE", "chain_features", "ChainCombiner", "fit_combiner", "first_is_gold", "list_ranks"]

#: The combiner file's name beside a reranker's weights.
COMBINE_FILE = "combine.json"
#: The per-chain features, in column order.
FEATURES = ("head", "head_rank", "logit", "logit_rank", "hops", "walks_back", "covered", "unnamed",
            "numeric", "log_ends", "type_fit")


def _ranks(values: np.ndarray) -> np.ndarray:
    """0 for the largest value, 1 for the next, ... (ties: the given order)."""
    order = sorted(range(len(values)), key=lambda i: (-values[i], i))
    out = np.empty(len(values))
    out[order] = np.arange(len(values))
    return out


def chain_features(kgqa: Any, text: str, paths: Sequence[Any], logits: np.ndarray) -> np.ndarray:
    """The ``(len(paths), len(FEATURES))`` feature matrix of a reading's best paths (head order) and their
    cross-encoder ``logits`` (see the module docstring)."""
    from graphhop.kgqa.cover import named_relations
    from graphhop.kgqa.end_type import asked_noun
    from graphhop.kgqa.pipeline import walks_back

    words = kgqa.relation_words
    asked = named_relations(words, text)[0]
    noun = asked_noun(text) if kgqa.typer is not None else None
    head = np.asarray([p.score for p in paths], dtype=np.float64)
    rows = []
    for p in paths:
        rows.append([len(p.steps), float(walks_back(p.steps)),
                     float(words.covered(asked, p.steps)) if asked else 0.0,
                     float(words.unnamed(asked, p.steps)) if asked else 0.0,
                     float(kgqa.is_numeric(p)), float(np.log1p(len(p.ends))),
                     kgqa.typer.fit(noun, p.ends.tolist()) if noun else 0.0])
    z = np.asarray(logits, dtype=np.float64)
    front = np.stack([head, _ranks(head), z, _ranks(z)], axis=1)
    return np.concatenate([front, np.asarray(rows, dtype=np.float64).reshape(len(paths), -1)], axis=1)


@dataclass
class ChainCombiner:
    """Linear weights over standardized :data:`FEATURES`; a chain's score is ``((x - mean) / std) . weights``."""

    weights: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    card: dict[str, Any]

    def scores(self, features: np.ndarray) -> np.ndarray:
        """The combined score of each row of ``features``; when its first chain beats the one head score + ``w`` x
        logit puts first by less than ``margin`` (the card's; default 0, ``w`` default 0.5), that sum instead
        (the fixed order is kept unless the learned one is sure)."""
        learned = ((features - self.mean) / self.std) @ self.weights
        margin = float(self.card.get("margin", 0.0))
        if margin <= 0:
            return learned
        fixed = features[:, FEATURES.index("head")] + float(self.card.get("w", 0.5)) * features[:, FEATURES.index("logit")]
        return fixed if learned.max() - learned[int(np.argmax(fixed))] < margin else learned

    def save(self, path: str | Path) -> None:
        """Write the weights and the card as JSON."""
        data = {"features": list(FEATURES), "weights": self.weights.tolist(), "mean": self.mean.tolist(),
                "std": self.std.tolist(), **self.card}
        Path(path).write_text(json.dumps(data, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "ChainCombiner":
        """A combiner saved by :meth:`save` (its features must be :data:`FEATURES`)."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: combiner features {data['features']} are not {list(FEATURES)}")
        card = {k: v for k, v in data.items() if k not in ("features", "weights", "mean", "std")}
        return cls(np.asarray(data["weights"]), np.asarray(data["mean"]), np.asarray(data["std"]), card)


Lists = Sequence[tuple[np.ndarray, "int | Sequence[int]"]]


def _golds(gold: int | Sequence[int]) -> list[int]:
    return [int(gold)] if np.ndim(gold) == 0 else [int(g) for g in gold]


def _loss(theta: np.ndarray, lists: Lists, l2: float) -> tuple[float, np.ndarray]:
    """Mean listwise softmax loss of each list's gold rows (the log of their summed probability) plus ``l2`` x
    |theta|^2, and its gradient."""
    total, grad = 0.0, np.zeros_like(theta)
    for x, gold in lists:
        g = _golds(gold)
        s = x @ theta
        p = np.exp(s - s.max())
        p /= p.sum()
        mass = max(float(p[g].sum()), 1e-300)
        total -= np.log(mass)
        grad += p @ x - (p[g] / mass) @ x[g]
    n = max(1, len(lists))
    return total / n + l2 * float(theta @ theta), grad / n + 2 * l2 * theta


def fit_combiner(lists: Lists, l2: float = 0.01, **card: Any) -> ChainCombiner:
    """Fit the weights on ``lists`` of (feature matrix, gold row or rows: any of them first is right) by L-BFGS
    (``card``: kept in the file)."""
    from scipy.optimize import minimize

    stacked = np.concatenate([x for x, _ in lists])
    mean, std = stacked.mean(axis=0), stacked.std(axis=0)
    std[std < 1e-9] = 1.0
    scaled = [((x - mean) / std, g) for x, g in lists]
    got = minimize(_loss, np.zeros(len(FEATURES)), args=(scaled, l2), jac=True, method="L-BFGS-B")
    return ChainCombiner(got.x, mean, std, {"l2": l2, "lists": len(lists), "loss": round(float(got.fun), 4), **card})


def first_is_gold(scores: np.ndarray, gold: int | Sequence[int]) -> bool:
    """Whether the row ordered first by ``scores`` (ties: the given order) is one of the gold rows."""
    return int(np.argmax(np.asarray(scores, dtype=np.float64))) in _golds(gold)


def list_ranks(scores: np.ndarray, gold: int) -> int:
    """The gold row's rank (0 = first) when rows are ordered by ``scores`` (ties: the given order)."""
    return int(_ranks(np.asarray(scores, dtype=np.float64))[gold])
