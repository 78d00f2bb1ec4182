"""Batch encoding with Ray Data (``graphhop index --engine ray``): an actor pool over each chunk.

Every chunk of documents becomes a Ray dataset of ``(pos, text)`` rows; ``map_batches`` runs an
encoder actor (the model loaded once per actor, one thread each) over it, and the vectors come back
to the driver in document order, where they are checkpointed and added to the same FAISS index as a
local build. Locally ``ray.init(num_cpus=...)`` starts a private Ray; on a cluster pass its address
(``ray://head:10001``, or ``auto`` on a cluster node) — nothing else changes. Each chunk starts a
fresh actor pool, so use large chunks (``--chunk``) on a cluster.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["RayEncoder"]


class _EncodeActor:
    """One Ray actor: loads the backend once, encodes batches of ``text`` into ``vector`` rows."""

    def __init__(self, backend: str, model: str | None, batch_size: int, max_length: int | None) -> None:
        from graphhop.models.backends import load_backend, set_threads

        set_threads(1)
        self.encoder = load_backend(backend, model, max_length)
        self.batch_size = batch_size

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        vecs = self.encoder.encode([str(t) for t in batch["text"]], batch_size=self.batch_size)
        return {"pos": batch["pos"], "vector": np.asarray(vecs, dtype=np.float32)}


class RayEncoder:
    """``encode(texts) -> vectors`` through a Ray Data actor pool of ``actors`` encoders."""

    def __init__(self, backend: str, model: str | None, batch_size: int = 128, max_length: int | None = None,
                 address: str | None = None, num_cpus: int = 2, actors: int = 2) -> None:
        import ray

        from graphhop.models.backends import load_backend

        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                ray.init(address=address, **kwargs)
            else:
                ray.init(num_cpus=num_cpus, **kwargs)
        self.args = (backend, model, batch_size, max_length)
        self.batch_size = batch_size
        self.actors = actors
        self.dim = int(load_backend(backend, model, max_length).get_embedding_dimension())

    def encode(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` in input order."""
        import ray

        rows = [{"pos": i, "text": t} for i, t in enumerate(texts)]
        per_actor = max(1, -(-len(rows) // self.actors))
        ds = ray.data.from_items(rows, override_num_blocks=min(len(rows), self.actors * 4) or 1)
        out = ds.map_batches(_EncodeActor, fn_constructor_args=self.args, batch_size=min(per_actor, self.batch_size * 8),
                             concurrency=self.actors, num_cpus=1, batch_format="numpy")
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for batch in out.iter_batches(batch_format="numpy", batch_size=None):
            vectors[np.asarray(batch["pos"], dtype=np.int64)] = np.stack(batch["vector"])
        return vectors
