"""Retrieval served by Milvus (``milvus-dense``, ``milvus-bm25``): the same rankings shape as FAISS/tantivy.

The index's manifest names the collection its build wrote (``graphhop index --milvus-uri``). Pass
``uri`` (and ``token``) to read the same collection from another place, e.g. a Milvus cluster it was
copied or built into: only the URI differs.
"""

from __future__ import annotations

from typing import Sequence

from graphhop.core import Hit, InputError, Ranking
from graphhop.index.directory import KnowledgeIndex
from graphhop.index.milvus import MilvusIndex, MilvusTarget
from graphhop.kb.verbalize import normalize_question

__all__ = ["MilvusRetriever", "milvus_target"]


def milvus_target(index: KnowledgeIndex, uri: str | None = None, token: str | None = None) -> MilvusTarget:
    """The collection an index's build wrote, optionally at another ``uri``."""
    meta = (index.manifest.get("dense") or {}).get("milvus")
    if not meta:
        raise InputError(f"{index.path}: built without a Milvus collection (rebuild with --milvus-uri URI)")
    return MilvusTarget(uri or meta["uri"], meta["collection"], token, meta.get("index_type", "FLAT"), meta.get("bm25", True))


class MilvusRetriever:
    """``mode="dense"``: the index's encoder + Milvus vector search; ``mode="bm25"``: Milvus full-text BM25."""

    def __init__(self, index: KnowledgeIndex, mode: str = "dense", uri: str | None = None, token: str | None = None) -> None:
        if mode not in ("dense", "bm25"):
            raise InputError(f"unknown Milvus mode {mode!r}; choose dense or bm25")
        self.name = f"milvus-{mode}"
        self.index = index
        self.mode = mode
        self.store = MilvusIndex.open(milvus_target(index, uri, token))
        self._encoder = None
        if mode == "dense":
            from graphhop.retrieve.dense import DenseRetriever

            self._encoder = DenseRetriever(index)  # the same question encoding as FAISS search

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` documents per query, best first."""
        if not queries:
            return []
        docs = self.index.docs.docs
        if self._encoder is not None:
            scores, positions = self.store.search(self._encoder.encode_queries(queries), k)
            return [[Hit(docs[int(p)].id, float(s)) for s, p in zip(rs, rp) if p >= 0] for rs, rp in zip(scores, positions)]
        hits = self.store.search_text([normalize_question(q) for q in queries], k)
        return [[Hit(docs[p].id, s) for p, s in row] for row in hits]
