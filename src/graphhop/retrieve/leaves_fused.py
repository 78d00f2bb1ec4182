"""The leaf head's greedy selection with the leaf cross-encoder's probability in its score and its stop.

:class:`~graphhop.retrieve.leaves.LeafRetriever` picks one leaf a step by its head's probability (features of
vectors and word overlaps) and stops when the best one is below the head's threshold; the cross-encoder of
:mod:`graphhop.train.leaf_reranker` reads the query and the sentence together but, used alone as a set rule
(:class:`~graphhop.retrieve.leaves_rerank.LeafReranker`), it keeps at most 3 leaves and loses on larger trees.
:class:`FusedLeafRetriever` keeps the head's conditioned greedy steps and, at every step, rescores the head's top
``depth`` candidates by ``(1 - mix) * head probability + mix * cross-encoder probability`` (the other candidates
keep ``(1 - mix) * head probability``); the best is added unless that score is below ``threshold`` (so the
cross-encoder's probability is part of the learned stop), ``max_leaves`` at most. ``mix = 0`` is the head alone.

The rule (depth, mix, threshold, cap) is chosen on the selection carve of train
(:func:`graphhop.train.leaf_reranker.choose_fusion`; the head and the cross-encoder are trained on the other
train trees) and stored beside the cross-encoder, one file per index encoder (:func:`fusion_path`). Each
(query, sentence) pair is scored once per retriever (a cache), so a greedy run costs about one cross-encoder
pass over ``depth`` sentences plus a few per later step.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import Hit, InputError, Ranking
from graphhop.retrieve.leaves import LeafRetriever, leaf_features
from graphhop.retrieve.leaves_rerank import load_selection, selection_path

__all__ = ["FusedLeafRetriever", "fusion_path", "load_fusion", "DEFAULT_FUSION"]

#: The rule used where none was chosen for the index's encoder (warned about): the head alone.
DEFAULT_FUSION = {"depth": 10, "mix": 0.0, "threshold": None, "max_leaves": None}


def fusion_path(model_dir: str | Path, index: Any) -> Path:
    """Where the fusion rule chosen for ``index``'s encoder is stored, beside the cross-encoder."""
    return selection_path(model_dir, index, "fusion")


def load_fusion(model_dir: str | Path, index: Any) -> dict[str, Any] | None:
    """The fusion rule chosen on the carve for ``index``'s encoder (None when it was never chosen)."""
    return load_selection(model_dir, index, "fusion")


class FusedLeafRetriever(LeafRetriever):
    """:class:`LeafRetriever` whose step score and stop mix in the leaf cross-encoder (see the module doc).
    Arguments left None come from the rule chosen for ``index``'s encoder beside ``reranker_dir``."""

    name = "leaves-fused"

    def __init__(self, index: Any, reranker_dir: str | Path, head: Any = None, depth: int | None = None,
                 mix: float | None = None, threshold: float | None = None, max_leaves: int | None = None,
                 pool: int = 30, search: Any = None, batch_size: int = 64) -> None:
        from graphhop.models.cross_encoder import load_sequence_classifier

        model_dir = Path(reranker_dir)
        if not (model_dir / "graphhop_card.json").exists():
            raise InputError(f"{model_dir}: no leaf reranker there (see `graphhop train leaf-reranker`)")
        rule = load_fusion(model_dir, index)
        if rule is None and None in (depth, mix):
            warnings.warn(f"no fusion rule chosen for encoder {index.model} beside {model_dir} (run `graphhop train "
                          f"leaf-reranker`): the head alone", stacklevel=2)
        self.rule = rule or DEFAULT_FUSION
        pick = (lambda key, given: self.rule.get(key) if given is None else given)
        super().__init__(index, head, pool, pick("threshold", threshold), pick("max_leaves", max_leaves), "greedy",
                         search)
        self.depth, self.mix = int(pick("depth", depth)), float(pick("mix", mix))
        self.model_dir, self.batch_size = model_dir, batch_size
        card = json.loads((model_dir / "graphhop_card.json").read_text(encoding="utf-8"))
        self.max_length = int(card.get("recipe", {}).get("max_length", 96))
        self.model, self.tokenizer = load_sequence_classifier(model_dir)
        self.cache: dict[tuple[str, int], float] = {}

    def cross_probs(self, query: str, rows: list[int]) -> np.ndarray:
        """The cross-encoder's probability of each corpus row for ``query`` (scored once, then cached)."""
        self.score_pairs([(query, r) for r in rows])
        return np.array([self.cache[(query, r)] for r in rows], dtype=np.float32)

    def select_states(self, states: Sequence[dict[str, Any]]) -> list[tuple[list[Hit], Ranking]]:
        """:meth:`LeafRetriever.select_states`, the first step's top ``depth`` of every query scored in one pass first."""
        if self.mix > 0.0:
            s, pairs = self.search_engine, []
            for state in states:
                rows, path_vec = s.candidates(state, [])
                probs = self.head.prob(leaf_features(s, state, rows, [], path_vec, self.head.prior))
                pairs += [(state["query"], rows[i]) for i in np.argsort(-probs, kind="stable")[: self.depth]]
            self.score_pairs(pairs)
        return super().select_states(states)

    def score_pairs(self, pairs: Sequence[tuple[str, int]]) -> None:
        """Score the (query, corpus row) ``pairs`` not cached yet, in batches of similar length, into the cache."""
        from graphhop.models.cross_encoder import score_pairs

        docs = self.search_engine.index.docs.docs
        todo = sorted({p for p in pairs if p not in self.cache}, key=lambda p: (len(p[0]) + len(docs[p[1]].text), p))
        logits = score_pairs(self.model, self.tokenizer, [q for q, _ in todo], [docs[r].text for _, r in todo],
                             self.batch_size, self.max_length)
        self.cache.update({p: 1.0 / (1.0 + math.exp(-z)) for p, z in zip(todo, logits)})

    def rescore(self, state: dict[str, Any], rows: list[int], probs: np.ndarray) -> np.ndarray:
        """The head's top ``depth``: ``(1 - mix) * head + mix * cross-encoder``; the rest ``(1 - mix) * head``."""
        if self.mix <= 0.0:
            return probs
        top = np.argsort(-probs, kind="stable")[: self.depth]
        fused = (1.0 - self.mix) * probs
        fused[top] += self.mix * self.cross_probs(state["query"], [rows[i] for i in top])
        return fused
