"""FAISS dense indexes over L2-normalized vectors (inner product = cosine).

* ``flat``: exact (``IndexFlatIP``).
* ``hnsw-sq``: DiFaR's approximate index, an HNSW graph with ``m`` links per node over 8-bit
  scalar-quantized vectors (``IndexHNSWSQ``). ``ef_search`` is raised to ``k`` at search time when
  smaller, since HNSW cannot return more than ``ef_search`` results.
* ``ivf-pq``: an inverted file of ``nlist`` spherical k-means cells whose vectors are 4-bit product
  codes scanned with SIMD (``IndexIVFPQFastScan``, ``pq_m`` sub-quantizers, codes of the residual to the
  cell centroid), then
  an exact re-rank of the ``max(k_factor * k, 256)`` best candidates on fp16 copies of the vectors
  (``IndexRefine`` + ``IndexScalarQuantizer(QT_fp16)``; ``refine="sq8"`` keeps 8-bit copies instead,
  for wide vectors). ``nprobe`` cells are scanned per query. ``nlist`` 0 picks a power of two near
  ``4 * sqrt(count)``; the quantizers are trained on the first ``train_size`` vectors added (or on
  :meth:`DenseIndex.train`'s sample when called first).

Bytes per vector: flat ``4d``; hnsw-sq ``d + 8m``-ish; ivf-pq ``pq_m / 2 + 8 + 2d`` (fp16 re-rank).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import faiss
import numpy as np

from graphhop.core import InputError

__all__ = ["DenseOptions", "DenseIndex", "DENSE_KINDS", "auto_nlist"]

DENSE_KINDS = ("flat", "hnsw-sq", "ivf-pq")
SHORTLIST_MIN = 256  # candidates re-ranked at least, whatever k
REFINES = {"fp16": faiss.ScalarQuantizer.QT_fp16, "sq8": faiss.ScalarQuantizer.QT_8bit}


#: Marks a :class:`DenseOptions` field only the ``ivf-pq`` kind reads (left out of other kinds' cache keys).
_IVF_ONLY = {"kind": "ivf-pq"}


@dataclass(frozen=True)
class DenseOptions:
    """Index options (persisted in the manifest); fields not used by a kind are ignored by it."""

    kind: str = "hnsw-sq"
    m: int = 32
    ef_construction: int = 80
    ef_search: int = 128
    nlist: int = field(default=0, metadata=_IVF_ONLY)
    nprobe: int = field(default=64, metadata=_IVF_ONLY)
    pq_m: int = field(default=0, metadata=_IVF_ONLY)
    k_factor: int = field(default=2, metadata=_IVF_ONLY)
    refine: str = field(default="fp16", metadata=_IVF_ONLY)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def cache_key(self) -> dict[str, object]:
        """The options that identify a build of this kind, for cache keys: ivf-pq's own fields only for
        ivf-pq, so indexes cached before those fields existed stay valid."""
        return {k: v for k, v in asdict(self).items() if self.kind == "ivf-pq" or k not in IVF_FIELDS}

    @classmethod
    def from_dict(cls, d: dict) -> "DenseOptions":
        defaults = cls(str(d["kind"]))
        return cls(**{k: type(getattr(defaults, k))(d[k]) if k in d else getattr(defaults, k) for k in asdict(defaults)})


#: The fields only the ``ivf-pq`` kind reads.
IVF_FIELDS = tuple(f.name for f in fields(DenseOptions) if f.metadata == _IVF_ONLY)


def auto_nlist(count: int) -> int:
    """Cells for ``count`` vectors: the power of two nearest ``4 * sqrt(count)``, with >= 39 vectors per cell."""
    power = int(round(np.log2(max(1.0, 4 * np.sqrt(max(count, 1))))))
    while power > 0 and 2**power * 39 > count:
        power -= 1
    return 2**power


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalization into a contiguous float32 array."""
    v = np.ascontiguousarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


def _ivf_pq(dim: int, options: DenseOptions) -> faiss.Index:
    if options.refine not in REFINES:
        raise InputError(f"unknown re-rank storage {options.refine!r}; choose one of {', '.join(REFINES)}")
    pq_m = options.pq_m or max(1, dim // 4)
    if dim % pq_m:
        raise InputError(f"pq_m {pq_m} must divide the vector dimension {dim}")
    quantizer = faiss.IndexFlatIP(dim)
    base = faiss.IndexIVFPQFastScan(quantizer, dim, options.nlist, pq_m, 4, faiss.METRIC_INNER_PRODUCT)
    base.by_residual = True  # codes of the residual to the cell centroid (for inner product: no per-cell table)
    base.cp.spherical = True
    base.cp.niter = 10
    base.own_fields = True
    quantizer.this.disown()
    refine = faiss.IndexScalarQuantizer(dim, REFINES[options.refine], faiss.METRIC_INNER_PRODUCT)
    index = faiss.IndexRefine(base, refine)
    index.own_fields = True
    base.this.disown()
    refine.this.disown()
    return index


class DenseIndex:
    """A FAISS index whose row ``i`` is document position ``i``."""

    def __init__(self, index: faiss.Index, options: DenseOptions) -> None:
        self.index = index
        self.options = options
        self._pending: list[np.ndarray] = []  # vectors held back until the quantizers are trained

    @classmethod
    def create(cls, dim: int, options: DenseOptions = DenseOptions(), count: int | None = None) -> "DenseIndex":
        """An empty index of dimension ``dim`` (``count``: how many vectors will come, for ``nlist`` 0)."""
        if options.kind == "flat":
            index = faiss.IndexFlatIP(dim)
        elif options.kind == "hnsw-sq":
            index = faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit, options.m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = options.ef_construction
            index.hnsw.efSearch = options.ef_search
        elif options.kind == "ivf-pq":
            if not options.nlist and not count:
                raise InputError("ivf-pq needs nlist or the number of vectors to choose it")
            options = replace(options, nlist=options.nlist or auto_nlist(int(count or 0)),
                              pq_m=options.pq_m or max(1, dim // 4))
            index = _ivf_pq(dim, options)
        else:
            raise InputError(f"unknown dense index kind {options.kind!r}; choose one of {', '.join(DENSE_KINDS)}")
        return cls(index, options)

    @property
    def dim(self) -> int:
        return self.index.d

    @property
    def train_size(self) -> int:
        """Vectors an IVF index waits for before training (39 per cell, at least 10,000)."""
        return max(10_000, 39 * self.options.nlist) if self.options.kind == "ivf-pq" else 1

    def __len__(self) -> int:
        return self.index.ntotal + sum(len(p) for p in self._pending)

    def train(self, sample: np.ndarray) -> None:
        """Train the quantizers on ``sample`` (e.g. an even-stride sample of all vectors)."""
        v = normalize(sample)
        if self.options.kind == "ivf-pq" and len(v) < 39 * 16:  # a tiny corpus: PQ's 16 centroids need rows
            v = np.tile(v, (-(-39 * 16 // max(1, len(v))), 1))
        self.index.train(v)

    def add(self, vectors: np.ndarray) -> None:
        """Add vectors (normalized here); an untrained index is trained first (on buffered vectors for IVF)."""
        v = normalize(vectors)
        if self.index.is_trained:
            self.index.add(v)
            return
        self._pending.append(v)
        if sum(len(p) for p in self._pending) >= self.train_size:
            self.flush()

    def flush(self) -> None:
        """Train on and add the vectors held back (a build smaller than ``train_size`` ends here)."""
        if not self._pending:
            return
        held = np.concatenate(self._pending)
        self._pending = []
        if not self.index.is_trained:
            self.train(held)
        self.index.add(held)

    def search_params(self, k: int) -> faiss.SearchParameters | None:
        """FAISS search parameters of this kind for top-``k``."""
        if self.options.kind == "hnsw-sq":
            return faiss.SearchParametersHNSW(efSearch=max(self.options.ef_search, k))
        if self.options.kind == "ivf-pq":
            ivf = faiss.SearchParametersIVF(nprobe=min(self.options.nprobe, self.options.nlist))
            k_factor = max(float(self.options.k_factor), SHORTLIST_MIN / max(1, k))  # small k: still 256 re-ranked
            return faiss.IndexRefineSearchParameters(k_factor=k_factor, base_index_params=ivf)
        return None

    def search(self, vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, positions)``, each ``(n_queries, k)``; missing results have position -1."""
        self.flush()
        k = min(k, len(self))
        if k <= 0:
            n = len(vectors)
            return np.zeros((n, 0), np.float32), np.zeros((n, 0), np.int64)
        params = self.search_params(k)
        if params is None:
            return self.index.search(normalize(vectors), k)
        return self.index.search(normalize(vectors), k, params=params)

    def with_options(self, **changes: object) -> "DenseIndex":
        """The same FAISS index searched with other options (``ef_search``, ``nprobe``, ``k_factor``)."""
        return DenseIndex(self.index, replace(self.options, **changes))

    def save(self, path: str | Path) -> None:
        """Write the index file."""
        self.flush()
        faiss.write_index(self.index, str(path))

    @classmethod
    def load(cls, path: str | Path, options: DenseOptions) -> "DenseIndex":
        """Read an index file written by :meth:`save`."""
        return cls(faiss.read_index(str(path)), options)
