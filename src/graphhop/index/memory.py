"""A candidate pool as a tiny in-memory index, so every method runs the same code over a pool or a whole index.

:class:`MemoryIndex` is a :class:`~graphhop.index.directory.KnowledgeIndex` whose BM25 part is a
tantivy index in RAM (the same :class:`~graphhop.index.sparse.SparseIndex` code and options) and
whose dense part is an exact FAISS index (the same :class:`~graphhop.index.dense.DenseIndex`) over
given vectors or vectors encoded here. BM25, dense, MDR and GoldEn's search take it as they take an
index directory. Dense scores over a pool equal the full index's restricted to the pool; BM25's
document statistics (IDF, mean length) are the pool's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import Fact, InputError
from graphhop.index.dense import DenseIndex, DenseOptions
from graphhop.index.directory import INDEX_KIND, DocStore, Document, KnowledgeIndex, _dense_text
from graphhop.index.sparse import SparseIndex, SparseOptions

__all__ = ["MemoryIndex"]


class MemoryIndex(KnowledgeIndex):
    """``docs`` indexed in memory: BM25 (``sparse``, default options) and exact dense vectors.

    ``vectors`` (one row per document, e.g. cached encoder vectors) are used as they are; without
    them, ``encoder`` (or ``model``, a sentence-transformers name) encodes the documents' dense
    texts as :func:`~graphhop.index.directory.build_index` does. ``model`` names the encoder the
    vectors come from, so :class:`~graphhop.retrieve.dense.DenseRetriever` encodes questions alike.
    """

    def __init__(self, docs: Sequence[Document], *, sparse: SparseOptions | None = SparseOptions(),
                 vectors: np.ndarray | None = None, model: str | None = None, encoder: Any = None,
                 dense: bool = True) -> None:
        from graphhop.models.encoder import canonical_model_name

        docs = list(docs)
        if not docs:
            raise InputError("a memory index needs at least one document")
        manifest: dict[str, Any] = {"kind": INDEX_KIND, "count": len(docs), "sparse": None, "dense": None,
                                    "doc_type": "facts" if all(d.fact is not None for d in docs) else "passages"}
        super().__init__(Path("<memory>"), manifest, DocStore(docs))
        if sparse is not None:
            self._sparse = SparseIndex.build(None, ((d.title, d.sparse_text) for d in docs), sparse)
            manifest["sparse"] = {"options": sparse.to_dict()}
        if dense and (vectors is not None or encoder is not None or model is not None):
            if vectors is None:
                from graphhop.models.encoder import load_encoder

                encoder = encoder or load_encoder(model)
                vectors = encoder.encode([_dense_text(d) for d in docs], convert_to_numpy=True)
            vectors = np.asarray(vectors, dtype=np.float32)
            if vectors.shape[0] != len(docs):
                raise InputError(f"{vectors.shape[0]} vectors for {len(docs)} documents")
            self._dense = DenseIndex.create(int(vectors.shape[1]), DenseOptions("flat"))
            self._dense.add(vectors)
            manifest["dense"] = {"options": DenseOptions("flat").to_dict(), "model": canonical_model_name(model),
                                 "dim": int(vectors.shape[1])}

    @classmethod
    def from_texts(cls, ids: Sequence[str], texts: Sequence[str], facts: Sequence[Sequence[Sequence[str]]] | None = None,
                   **kwargs: Any) -> "MemoryIndex":
        """A pool of ``(id, text)`` candidates (``facts``: each candidate's triples; the first is its fact)."""
        docs = []
        for i, (doc_id, text) in enumerate(zip(ids, texts)):
            triples = facts[i] if facts is not None else []
            fact = Fact(*map(str, triples[0]), id=str(doc_id)) if len(triples) == 1 else None
            docs.append(Document(str(doc_id), str(text), "", fact))
        return cls(docs, **kwargs)
