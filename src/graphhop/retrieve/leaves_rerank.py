"""Leaf sets by a cross-encoder: a first stage's top ``depth`` sentences rescored by the leaf reranker.

:class:`LeafReranker` takes the first stage's ranking of the whole WorldTree index (dense top ``depth`` of
the query: the fine-tuned leaf encoder's index where it is cached), scores each (query, sentence) pair
with the cross-encoder of :mod:`graphhop.train.leaf_reranker` (probability = sigmoid of its logit) and
keeps the best sentence by ``mix * probability + (1 - mix) * first-stage cosine``, then the next ones while
that score is at least ``threshold`` (or, with a ``relative`` rule, at least the best one's minus ``threshold``),
``max_leaves`` at most. The rule (depth, mix, threshold, cap) is chosen on the selection carve of train
(:func:`graphhop.train.leaf_reranker.choose_set` over :func:`cut_set`) and stored beside the model, one file per index encoder.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any, Sequence

from graphhop.core import Hit, InputError, Ranking, Stage

__all__ = ["LeafReranker", "selection_path", "load_selection", "fuse", "cut_set", "DEFAULT_RULE"]

#: The rule used where none was chosen for the index's encoder (warned about).
DEFAULT_RULE = {"depth": 20, "threshold": 0.5, "max_leaves": 5, "mix": 1.0}


def fuse(scored: Sequence[tuple[str, float, int, float]], mix: float = 1.0,
         depth: int | None = None) -> list[tuple[str, float, int]]:
    """``(id, score, first-stage rank)`` best first, from ``(id, probability, first-stage rank, first-stage score)``
    of the first ``depth`` (all by default): score = ``mix * probability + (1 - mix) * first-stage score``, ties
    by the first-stage rank."""
    return sorted(((s[0], mix * s[1] + (1 - mix) * s[3], s[2]) for s in scored if depth is None or s[2] < depth),
                  key=lambda s: (-s[1], s[2]))


def cut_set(scored: Sequence[tuple[str, float, int, float]], depth: int, threshold: float, cap: int,
            mix: float = 1.0, relative: bool = False) -> list[str]:
    """The leaf set: among the first ``depth`` of the first stage, by the :func:`fuse` score, the best one, then
    the next ones while that score is at least ``threshold`` (``relative``: at least the best one's score minus
    ``threshold``), ``cap`` at most."""
    ranked = fuse(scored, mix, depth)
    floor = ranked[0][1] - threshold if relative and ranked else threshold
    return [s[0] for s in ranked[:1]] + [s[0] for s in ranked[1:cap] if s[1] >= floor]


def selection_path(model_dir: str | Path, index: Any, kind: str = "selection") -> Path:
    """Where the rule chosen for ``index``'s encoder is stored, beside the reranker (``kind``: ``selection`` for
    :class:`LeafReranker`'s set rule, ``fusion`` for :class:`~graphhop.retrieve.leaves_fused.FusedLeafRetriever`'s)."""
    return Path(model_dir) / f"{kind}-{Path(str(index.model or 'base')).name}.json"


def load_selection(model_dir: str | Path, index: Any, kind: str = "selection") -> dict[str, Any] | None:
    """The rule of ``kind`` chosen on the carve for ``index``'s encoder (None when it was never chosen)."""
    path = selection_path(model_dir, index, kind)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


class LeafReranker(Stage):
    """First stage (dense over ``index``) >> the leaf cross-encoder >> a thresholded leaf set (module doc)."""

    name = "leaf-rerank"

    def __init__(self, index: Any, model_dir: str | Path, depth: int | None = None, threshold: float | None = None,
                 max_leaves: int | None = None, batch_size: int = 64, tail: int = 50, mix: float | None = None,
                 relative: bool | None = None) -> None:
        """Arguments left None come from the rule chosen for ``index``'s encoder (else :data:`DEFAULT_RULE`);
        ``relative``: whether ``threshold`` is below the best leaf's score (an explicit ``threshold`` without it
        is absolute, whatever the stored rule says)."""
        from graphhop.models.cross_encoder import load_sequence_classifier
        from graphhop.retrieve import make_retriever

        if not (Path(model_dir) / "graphhop_card.json").exists():
            raise InputError(f"{model_dir}: no leaf reranker there (see `graphhop train leaf-reranker`)")
        self.index, self.model_dir, self.batch_size, self.tail = index, Path(model_dir), batch_size, tail
        self.card = json.loads((self.model_dir / "graphhop_card.json").read_text(encoding="utf-8"))
        self.max_length = int(self.card.get("recipe", {}).get("max_length", 96))
        rule = load_selection(model_dir, index)
        if rule is None and None in (depth, threshold, max_leaves):
            warnings.warn(f"no leaf-set rule chosen for encoder {index.model} beside {model_dir} (run `graphhop train "
                          f"leaf-reranker`): using {DEFAULT_RULE}", stacklevel=2)
        self.rule = rule or DEFAULT_RULE
        self.depth = int(self.rule["depth"] if depth is None else depth)
        self.threshold = float(self.rule["threshold"] if threshold is None else threshold)
        self.max_leaves = int(self.rule["max_leaves"] if max_leaves is None else max_leaves)
        self.mix = float(self.rule.get("mix", 1.0) if mix is None else mix)
        if relative is None:
            relative = bool(self.rule.get("relative", False)) if threshold is None else False
        self.relative = bool(relative)
        self.model, self.tokenizer = load_sequence_classifier(model_dir)
        self.first = make_retriever(index, "dense")

    def first_stage(self, queries: Sequence[str]) -> list[Ranking]:
        """The first stage's ranking of each query, ``max(depth, tail)`` hits (only the top ``depth`` are rescored)."""
        return self.first.search(list(queries), max(self.depth, self.tail))

    def score(self, queries: Sequence[str], depth: int | None = None,
              rankings: Sequence[Ranking] | None = None) -> list[list[tuple[str, float, int, float]]]:
        """Per query: ``(sentence id, probability, first-stage rank, first-stage score)`` of its top ``depth``."""
        from graphhop.models.cross_encoder import score_pairs

        depth = depth or self.depth
        rankings = [r[:depth] for r in (rankings if rankings is not None else self.first.search(list(queries), depth))]
        qs = [q for q, r in zip(queries, rankings) for _ in r]
        texts = [self.index.docs[h.id].text for r in rankings for h in r]
        order = sorted(range(len(qs)), key=lambda i: len(qs[i]) + len(texts[i]))  # less padding per batch
        logits = score_pairs(self.model, self.tokenizer, [qs[i] for i in order], [texts[i] for i in order],
                             self.batch_size, self.max_length)
        probs = [0.0] * len(qs)
        for i, z in zip(order, logits):
            probs[i] = 1.0 / (1.0 + math.exp(-z))
        out, at = [], 0
        for r in rankings:
            out.append([(h.id, probs[at + k], k, float(h.score)) for k, h in enumerate(r)])
            at += len(r)
        return out

    def select(self, queries: Sequence[str]) -> list[tuple[list[Hit], Ranking]]:
        """Per query: (the leaf set, the ranking: the top ``depth`` reranked, then the first stage's next hits
        up to ``tail`` with score 0), best first, scores = probabilities."""
        queries = list(queries)
        rankings = self.first_stage(queries)
        out = []
        for scored, first in zip(self.score(queries, self.depth, rankings), rankings):
            fused = fuse(scored, self.mix)
            ranking = [Hit(d, p) for d, p, _ in fused] + [Hit(h.id, 0.0) for h in first[self.depth:]]
            chosen = set(cut_set(scored, self.depth, self.threshold, self.max_leaves, self.mix, self.relative))
            out.append(([h for h in ranking if h.id in chosen], ranking))
        return out

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """The reranked first stage, ``k`` hits per query."""
        return [ranking[:k] for _, ranking in self.select(queries)]

    def retrieve_graph(self, questions: Sequence[str]) -> list[Any]:
        """Per question, the leaf set as an evidence graph ``question -> leaf`` (node score = probability)."""
        from graphhop.retrieve.leaves import leaf_graphs

        questions = list(questions)
        return leaf_graphs(questions, [hits for hits, _ in self.select(questions)], self.index.docs)
