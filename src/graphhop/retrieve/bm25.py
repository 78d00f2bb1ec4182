"""BM25 retrieval over a knowledge index (tantivy, best-fields multi-match)."""

from __future__ import annotations

from typing import Sequence

from graphhop.core import Ranking, Stage
from graphhop.index.directory import KnowledgeIndex
from graphhop.kb.verbalize import normalize_question

__all__ = ["BM25Retriever", "BM25sRetriever"]


class BM25Retriever(Stage):
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


class BM25sRetriever:
    """Reference BM25: the bm25s library (Lucene BM25, k1 1.5, b 0.75, English stop words, its own
    ``\\w\\w+`` tokens, no stemming) over the same documents, ties broken by KB order like
    :class:`BM25Retriever`. In memory; used to check parity, not as a default."""

    name = "bm25s"

    def __init__(self, index: KnowledgeIndex, normalize: bool = True, k1: float = 1.5, b: float = 0.75) -> None:
        import bm25s
        import numpy as np

        self._np = np
        self._bm25s = bm25s
        self.index = index
        self.normalize = normalize
        self._model = bm25s.BM25(k1=k1, b=b, method="lucene")
        corpus = [f"{d.title} {d.sparse_text}".strip() for d in index.docs.docs]
        self._model.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False)

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` documents per query (every document scored; stable sort: ties by KB order)."""
        np, docs, out = self._np, self.index.docs.docs, []
        texts = [normalize_question(q) if self.normalize else q for q in queries]
        tokenized = self._bm25s.tokenize(texts, stopwords="en", show_progress=False, return_ids=False)
        for tokens in tokenized:
            scores = self._model.get_scores(tokens) if tokens else np.zeros(len(docs))
            order = np.argsort(-scores, kind="stable")[:k]
            out.append([docs[i].hit(float(scores[i])) for i in order if scores[i] > 0])
        return out
