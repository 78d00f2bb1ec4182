"""A Milvus collection as the dense (and BM25) part of a knowledge index, through pymilvus.

One row per document: ``pos`` (its position in ``docs.jsonl``, the primary key), ``vector`` (the
same normalized vector FAISS stores, inner-product metric) and ``text`` with Milvus' built-in BM25
function filling a sparse ``bm25`` field, so Milvus serves full-text search too. Searches return
``(scores, positions)`` / ``(position, score)`` pairs exactly like :class:`~graphhop.index.dense.DenseIndex`
and :class:`~graphhop.index.sparse.SparseIndex`, so retrievers map positions to documents the same way.

The ``uri`` decides where the collection lives; nothing else changes:

* ``./kb.db`` — milvus-lite, embedded in the process (tests, a laptop);
* ``http://milvus-host:19530`` (plus ``token`` for a secured cluster) — a Milvus server or cluster.

milvus-lite ranks BM25 correctly but reports the BM25 distance negated; scores are returned here
as positive BM25 values whichever server answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.index.dense import normalize

__all__ = ["MilvusTarget", "MilvusIndex", "collection_name"]

_MAX_TEXT = 8192


def collection_name(name: str) -> str:
    """A valid Milvus collection name from any string (letters, digits, underscores; leading letter)."""
    clean = re.sub(r"[^0-9A-Za-z_]", "_", name)
    return clean if clean[:1].isalpha() else f"gh_{clean}"


@dataclass(frozen=True)
class MilvusTarget:
    """Where a collection lives: ``uri`` (milvus-lite ``.db`` file or server URL), its name, options."""

    uri: str
    collection: str
    token: str | None = None
    index_type: str = "FLAT"  # FLAT (exact, like FAISS flat) or HNSW
    bm25: bool = True

    def to_dict(self) -> dict[str, object]:
        """What the manifest records (never the token)."""
        return {"uri": self.uri, "collection": self.collection, "index_type": self.index_type, "bm25": self.bm25}

    def client(self):
        """A pymilvus client for this URI."""
        try:
            from pymilvus import MilvusClient
        except ImportError:  # pragma: no cover - pinned in the scale/test extras
            raise InputError("the Milvus backend needs pymilvus (pip install 'graphhop[scale]')") from None
        try:
            return MilvusClient(self.uri, token=self.token or "")
        except Exception as exc:  # connection errors differ between milvus-lite and a server
            raise InputError(f"cannot reach Milvus at {self.uri}: {str(exc).splitlines()[0]}") from None


class MilvusIndex:
    """One Milvus collection holding a knowledge index's vectors (and texts for BM25)."""

    def __init__(self, client, target: MilvusTarget) -> None:
        self.client = client
        self.target = target

    @classmethod
    def create(cls, target: MilvusTarget, dim: int, keep: bool = False) -> "MilvusIndex":
        """Create the collection (replacing one of the same name unless ``keep``, for resumed builds)."""
        from pymilvus import DataType, Function, FunctionType

        client = target.client()
        name = target.collection
        if client.has_collection(name):
            if keep:
                return cls(client, target)
            client.drop_collection(name)
        schema = client.create_schema(auto_id=False)
        schema.add_field("pos", DataType.INT64, is_primary=True)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
        schema.add_field("text", DataType.VARCHAR, max_length=_MAX_TEXT, enable_analyzer=target.bm25)
        params = client.prepare_index_params()
        params.add_index(field_name="vector", index_type=target.index_type, metric_type="IP",
                         **({"params": {"M": 32, "efConstruction": 80}} if target.index_type == "HNSW" else {}))
        if target.bm25:
            schema.add_field("bm25", DataType.SPARSE_FLOAT_VECTOR)
            schema.add_function(Function(name="bm25_fn", function_type=FunctionType.BM25,
                                         input_field_names=["text"], output_field_names=["bm25"]))
            params.add_index(field_name="bm25", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        client.create_collection(name, schema=schema, index_params=params)
        return cls(client, target)

    @classmethod
    def open(cls, target: MilvusTarget) -> "MilvusIndex":
        """Open an existing collection (one-line error when it is missing)."""
        client = target.client()
        if not client.has_collection(target.collection):
            raise InputError(f"Milvus at {target.uri} has no collection {target.collection!r}; rebuild with --milvus-uri")
        client.load_collection(target.collection)
        return cls(client, target)

    def __len__(self) -> int:
        stats = self.client.get_collection_stats(self.target.collection)
        return int(stats.get("row_count", 0))

    def add(self, start: int, vectors: np.ndarray, texts: Sequence[str]) -> None:
        """Upsert rows ``start .. start+len-1`` (idempotent, so a resumed build may resend a chunk)."""
        v = normalize(vectors)
        rows = [{"pos": start + i, "vector": v[i].tolist(), "text": t[:_MAX_TEXT]} for i, t in enumerate(texts)]
        for i in range(0, len(rows), 1000):
            self.client.upsert(self.target.collection, rows[i : i + 1000])

    def flush(self) -> None:
        """Make every upserted row searchable."""
        self.client.flush(self.target.collection)
        self.client.load_collection(self.target.collection)

    def search(self, vectors: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, positions)``, each ``(n_queries, k)``, -1 where fewer than ``k`` rows exist."""
        n = len(vectors)
        scores, positions = np.zeros((n, k), np.float32), np.full((n, k), -1, np.int64)
        if n == 0 or k <= 0:
            return scores, positions
        params = {"metric_type": "IP", **({"params": {"ef": max(k, 128)}} if self.target.index_type == "HNSW" else {})}
        res = self.client.search(self.target.collection, data=normalize(vectors).tolist(), anns_field="vector", limit=k,
                                 search_params=params, output_fields=["pos"])
        for i, hits in enumerate(res):
            for j, hit in enumerate(hits[:k]):
                positions[i, j] = int(hit["pos"] if "pos" in hit else hit["id"])
                scores[i, j] = float(hit["distance"])
        return scores, positions

    def search_text(self, queries: Sequence[str], k: int = 10) -> list[list[tuple[int, float]]]:
        """Milvus BM25 full-text search: top ``k`` ``(position, score)`` per query, best first."""
        if not self.target.bm25:
            raise InputError(f"Milvus collection {self.target.collection!r} was built without BM25")
        out: list[list[tuple[int, float]]] = []
        for text in queries:
            if not text.strip() or k <= 0:
                out.append([])
                continue
            (hits,) = self.client.search(self.target.collection, data=[text], anns_field="bm25", limit=k,
                                         search_params={"metric_type": "BM25"}, output_fields=["pos"])
            out.append([(int(h["pos"] if "pos" in h else h["id"]), abs(float(h["distance"]))) for h in hits])
        return out
