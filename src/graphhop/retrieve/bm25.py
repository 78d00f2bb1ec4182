"""BM25 retrieval over a knowledge index (tantivy, best-fields multi-match)."""

from __future__ import annotations

from typing import Sequence

from graphhop.core import Ranking
from graphhop.index.directory import KnowledgeIndex
from graphhop.kb.verbalize import normalize_question

__all__ = ["BM25Retriever"]


class BM25Retriever:
    """Sparse retriever. Queries are normalized like facts (underscores, brackets) by default."""

    name = "bm25"

    def __init__(self, index: KnowledgeIndex, normalize: bool = True) -> None:
        self.index = index
        self.normalize = normalize
        self._sparse = index.sparse

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` documents per query by BM25; ties broken by KB order."""
        texts = [normalize_question(q) if self.normalize else q for q in queries]
        docs = self.index.docs.docs
        return [[docs[pos].hit(score) for pos, score in hits] for hits in self._sparse.search(texts, k)]
