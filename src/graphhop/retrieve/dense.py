"""DiFaR: direct fact retrieval by nearest neighbours of the question among verbalized facts."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from graphhop.core import GraphhopError, Ranking, Stage
from graphhop.index.directory import KnowledgeIndex
from graphhop.kb.verbalize import normalize_question
from graphhop.models.encoder import canonical_model_name, load_encoder

__all__ = ["DenseRetriever"]


class DenseRetriever(Stage):
    """Bi-encoder retrieval with the index's FAISS index.

    ``model`` defaults to the model the index was built with; another model is refused, since its
    vectors would not be comparable (rebuild the index with that model instead).
    """

    name = "dense"

    def __init__(
        self,
        index: KnowledgeIndex,
        model: str | None = None,
        normalize: bool = True,
        batch_size: int = 64,
        ef_search: int | None = None,
    ) -> None:
        built_with = index.model
        if built_with is None:
            raise GraphhopError(f"{index.path}: built without a dense index (rebuild with --dense flat|hnsw-sq)")
        if model is not None and canonical_model_name(model) != built_with:
            raise GraphhopError(
                f"{index.path}: dense index built with model {built_with!r}, not {canonical_model_name(model)!r}; "
                "rebuild the index with --model to use another encoder"
            )
        self.index = index
        meta = index.manifest["dense"]
        name = None if built_with == canonical_model_name(None) else built_with
        backend = meta.get("backend", "torch")
        if backend == "torch":
            self.encoder = load_encoder(name)
        else:  # questions are encoded by the backend that encoded the documents (same vector space)
            from graphhop.models.backends import load_backend

            # a length fitted to the documents is not imposed on questions; one the user set is
            self.encoder = load_backend(backend, name, None if meta.get("max_length_fit") else meta.get("max_length"))
        dim = index.dense.dim
        enc_dim = self.encoder.get_embedding_dimension() if hasattr(self.encoder, "get_embedding_dimension") else self.encoder.get_sentence_embedding_dimension()
        if enc_dim != dim:
            raise GraphhopError(f"{index.path}: index dimension {dim} does not match the encoder's {enc_dim}")
        if ef_search is not None:
            index.set_ef_search(ef_search)
        self.normalize = normalize
        self.batch_size = batch_size

    def encode_queries(self, queries: Sequence[str]) -> np.ndarray:
        """Question vectors (float32, unnormalized; the index normalizes)."""
        texts = [normalize_question(q) if self.normalize else q for q in queries]
        return np.asarray(self.encoder.encode(list(texts), batch_size=self.batch_size, convert_to_numpy=True))

    def search_vectors(self, vectors: np.ndarray, k: int = 10) -> list[Ranking]:
        """Search with precomputed question vectors."""
        docs = self.index.docs.docs
        scores, positions = self.index.dense.search(vectors, k)
        out: list[Ranking] = []
        for row_s, row_p in zip(scores, positions):
            out.append([docs[int(p)].hit(s) for s, p in zip(row_s, row_p) if p >= 0])
        return out

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` documents per query by inner product of normalized embeddings."""
        if not queries:
            return []
        return self.search_vectors(self.encode_queries(queries), k)
