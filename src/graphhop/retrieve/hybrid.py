"""Reciprocal-rank fusion of any retrievers (Cormack et al., 2009)."""

from __future__ import annotations

from typing import Sequence

from graphhop.core import Hit, Ranking, Retriever

__all__ = ["rrf", "HybridRetriever"]


def rrf(rankings: Sequence[Ranking], k: int, c: int = 60) -> Ranking:
    """Fuse rankings of one query: ``score(d) = sum_r 1 / (c + rank_r(d))`` with ranks from 1.

    Ties are broken by the best rank the document had in any input, then by the earlier input.
    """
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    first: dict[str, Hit] = {}
    for source, ranking in enumerate(rankings):
        for rank, hit in enumerate(ranking, start=1):
            first.setdefault(hit.id, hit)
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (c + rank)
            key = (rank, source)
            if hit.id not in best or key < best[hit.id]:
                best[hit.id] = key
    ordered = sorted(scores, key=lambda d: (-scores[d], best[d]))
    return [first[d]._replace(score=scores[d]) for d in ordered[:k]]


class HybridRetriever:
    """Fuses the top ``depth`` of each retriever with :func:`rrf` (``c=60`` as in the RRF paper)."""

    name = "hybrid"

    def __init__(self, retrievers: Sequence[Retriever], depth: int = 1000, c: int = 60) -> None:
        if len(retrievers) < 2:
            raise ValueError("hybrid retrieval needs at least two retrievers")
        self.retrievers = list(retrievers)
        self.depth = depth
        self.c = c

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` fused documents per query."""
        depth = max(self.depth, k)
        per_source = [r.search(queries, depth) for r in self.retrievers]
        return [rrf([src[i] for src in per_source], k, self.c) for i in range(len(queries))]
