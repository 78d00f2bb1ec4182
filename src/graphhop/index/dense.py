"""FAISS dense indexes over L2-normalized vectors (inner product = cosine).

``flat`` is exact (``IndexFlatIP``); ``hnsw-sq`` is DiFaR's approximate index: HNSW graph with
``M`` links per node over 8-bit scalar-quantized vectors (``IndexHNSWSQ``). ``ef_search`` is raised
to ``k`` at search time when smaller, since HNSW cannot return more than ``ef_search`` results.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

__all__ = ["DenseOptions", "DenseIndex", "DENSE_KINDS"]

DENSE_KINDS = ("flat", "hnsw-sq")


@dataclass(frozen=True)
class DenseOptions:
    """Index options (persisted in the manifest)."""

    kind: str = "hnsw-sq"
    m: int = 32
    ef_construction: int = 80
    ef_search: int = 128

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "m": self.m, "ef_construction": self.ef_construction, "ef_search": self.ef_search}

    @classmethod
    def from_dict(cls, d: dict) -> "DenseOptions":
        return cls(str(d["kind"]), int(d.get("m", 32)), int(d.get("ef_construction", 80)), int(d.get("ef_search", 128)))


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalization into a contiguous float32 array."""
    v = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


class DenseIndex:
    """A FAISS index whose row ``i`` is document position ``i``."""

    def __init__(self, index: faiss.Index, options: DenseOptions) -> None:
        self.index = index
        self.options = options

    @classmethod
    def create(cls, dim: int, options: DenseOptions = DenseOptions()) -> "DenseIndex":
        """An empty index of dimension ``dim``."""
        if options.kind == "flat":
            index = faiss.IndexFlatIP(dim)
        elif options.kind == "hnsw-sq":
            index = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit, options.m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = options.ef_construction
            index.hnsw.efSearch = options.ef_search
        else:
            raise ValueError(f"unknown dense index kind {options.kind!r}; choose one of {', '.join(DENSE_KINDS)}")
        return cls(index, options)

    @property
    def dim(self) -> int:
        return self.index.d

    def __len__(self) -> int:
        return self.index.ntotal

    def add(self, vectors: np.ndarray) -> None:
        """Add vectors (normalized here); an untrained scalar quantizer is trained on the first batch."""
        v = normalize(vectors)
        if not self.index.is_trained:
            self.index.train(v)
        self.index.add(v)

    def search(self, vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, positions)``, each ``(n_queries, k)``; missing results have position -1."""
        k = min(k, len(self))
        if k <= 0:
            n = len(vectors)
            return np.zeros((n, 0), np.float32), np.zeros((n, 0), np.int64)
        if self.options.kind == "hnsw-sq":
            params = faiss.SearchParametersHNSW(efSearch=max(self.options.ef_search, k))
            return self.index.search(normalize(vectors), k, params=params)
        return self.index.search(normalize(vectors), k)

    def save(self, path: str | Path) -> None:
        """Write the index file."""
        faiss.write_index(self.index, str(path))

    @classmethod
    def load(cls, path: str | Path, options: DenseOptions) -> "DenseIndex":
        """Read an index file written by :meth:`save`."""
        return cls(faiss.read_index(str(path)), options)
