"""Retrievers: one module per method, all on the :class:`graphhop.core.Retriever` protocol."""

from __future__ import annotations

from graphhop.core import InputError, Retriever
from graphhop.index.directory import KnowledgeIndex

__all__ = ["METHODS", "make_retriever"]

#: First-stage methods every knowledge index supports (given the parts it was built with).
METHODS = ("bm25", "dense", "hybrid")


def make_retriever(index: KnowledgeIndex, method: str, model: str | None = None, ef_search: int | None = None) -> Retriever:
    """Build the retriever ``method`` (``bm25``, ``dense`` or ``hybrid``) over ``index``."""
    from graphhop.retrieve.bm25 import BM25Retriever
    from graphhop.retrieve.dense import DenseRetriever
    from graphhop.pipeline.ops import Fuse

    if method == "bm25":
        return BM25Retriever(index)
    if method == "dense":
        return DenseRetriever(index, model=model, ef_search=ef_search)
    if method == "hybrid":
        return Fuse([BM25Retriever(index), DenseRetriever(index, model=model, ef_search=ef_search)], name="hybrid")
    if method in ("milvus-dense", "milvus-bm25"):  # the collection written by `graphhop index --milvus-uri`
        from graphhop.retrieve.milvus import MilvusRetriever

        return MilvusRetriever(index, method.split("-", 1)[1])
    if method == "two-tier":  # an index built with --backend static, re-scored by MiniLM
        from graphhop.retrieve.two_tier import TwoTierRetriever

        return TwoTierRetriever(index)
    raise InputError(f"unknown retrieval method {method!r}; choose one of {', '.join(METHODS)}, milvus-dense, milvus-bm25, "
                     "two-tier")
