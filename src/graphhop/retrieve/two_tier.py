"""Two-tier dense retrieval for huge KBs: a fast static-vector first stage, MiniLM over its top hits.

The index is built with the ``static`` encoder backend only (tens of times faster to build); at
query time the top ``depth`` candidates of the static search are re-scored by the cosine of a
second, stronger encoder (MiniLM by default). Candidate vectors of the second encoder are computed
on demand and kept in a bounded cache, so repeated facts are encoded once.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from graphhop.core import GraphhopError, Hit, Ranking
from graphhop.index.directory import KnowledgeIndex, dense_text
from graphhop.kb.verbalize import normalize_question

__all__ = ["TwoTierRetriever", "rescore"]


def rescore(query_vecs: np.ndarray, candidates: Sequence[Sequence[int]], doc_vecs: Any) -> list[list[tuple[int, float]]]:
    """Re-rank each query's candidate positions by cosine; ``doc_vecs(positions) -> (n, dim)`` vectors."""
    out = []
    for q, cands in zip(query_vecs, candidates):
        cands = [int(c) for c in cands if c >= 0]
        if not cands:
            out.append([])
            continue
        scores = doc_vecs(cands) @ q
        order = np.lexsort((np.arange(len(cands)), -scores))
        out.append([(cands[i], float(scores[i])) for i in order])
    return out


class TwoTierRetriever:
    """Static first stage (the index's dense part) re-scored by ``second`` over the top ``depth``."""

    name = "two-tier"

    def __init__(self, index: KnowledgeIndex, second: str = "torch", model: str | None = None, depth: int = 100,
                 cache_size: int = 200_000) -> None:
        from graphhop.models.backends import load_backend
        from graphhop.retrieve.dense import DenseRetriever

        if (index.manifest.get("dense") or {}).get("backend") != "static":
            raise GraphhopError(f"{index.path}: a two-tier search needs an index built with --backend static")
        self.first = DenseRetriever(index)
        self.index = index
        self.second = load_backend(second, model)
        self.depth = depth
        self._cache: OrderedDict[int, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    def _doc_vectors(self, positions: list[int]) -> np.ndarray:
        missing = [p for p in dict.fromkeys(positions) if p not in self._cache]
        if missing:
            docs = self.index.docs.docs
            vecs = self.second.encode([dense_text(docs[p]) for p in missing], batch_size=128)
            for p, v in zip(missing, np.asarray(vecs, dtype=np.float32)):
                self._cache[p] = v / (np.linalg.norm(v) or 1.0)
        for p in positions:
            self._cache.move_to_end(p)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return np.stack([self._cache[p] for p in positions])

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` of the first stage's top ``max(depth, k)``, ordered by the second encoder."""
        if not queries:
            return []
        first_vecs = self.first.encode_queries(queries)
        _, positions = self.index.dense.search(first_vecs, max(self.depth, k))
        q = np.asarray(self.second.encode([normalize_question(x) for x in queries], batch_size=64), dtype=np.float32)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        docs = self.index.docs.docs
        ranked = rescore(q, positions, self._doc_vectors)
        return [[Hit(docs[p].id, s) for p, s in r[:k]] for r in ranked]
