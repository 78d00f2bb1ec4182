"""Batch encoding on Ray (``graphhop index --engine ray``): one actor pool for the whole build.

``RayEncoder`` starts ``actors`` encoder actors once (each loads the backend once, one thread) and
keeps them in a :class:`ray.util.ActorPool` for every chunk of the stream: a chunk is cut into
batches, the pool hands each batch to the next idle actor, and the vectors come back to the driver
in document order, where they are checkpointed and added to the same FAISS index as a local build.
(Before, each chunk built a Ray Data ``map_batches`` pipeline and so a fresh pool, ~70 s of start-up
per chunk on this machine.) Locally ``ray.init(num_cpus=...)`` starts a private Ray; on a cluster
pass its address (``ray://head:10001``, or ``auto`` on a cluster node) — nothing else changes.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["RayEncoder", "EncodeActor"]


class EncodeActor:
    """One encoder actor: loads the backend once, encodes lists of texts into float32 rows."""

    def __init__(self, backend: str, model: str | None, batch_size: int, max_length: int | None) -> None:
        from graphhop.models.backends import load_backend, set_threads

        set_threads(1)
        self.encoder = load_backend(backend, model, max_length)
        self.batch_size = batch_size
        self.batches = 0

    def encode(self, texts: list[str]) -> tuple[int, np.ndarray]:
        """``(this actor's process id, vectors)`` of ``texts``, in order."""
        self.batches += 1
        vecs = self.encoder.encode([str(t) for t in texts], batch_size=self.batch_size)
        return os.getpid(), np.asarray(vecs, dtype=np.float32)

    def served(self) -> int:
        """How many batches this actor has encoded."""
        return self.batches


class RayEncoder:
    """``encode(texts) -> vectors`` through one pool of ``actors`` Ray encoder actors, reused by every call."""

    def __init__(self, backend: str, model: str | None, batch_size: int = 128, max_length: int | None = None,
                 address: str | None = None, num_cpus: int = 2, actors: int = 2) -> None:
        import ray
        from ray.util import ActorPool

        from graphhop.models.backends import load_backend

        if not ray.is_initialized():
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if address:
                ray.init(address=address, **kwargs)
            else:
                ray.init(num_cpus=num_cpus, **kwargs)
        self.batch_size = batch_size
        remote = ray.remote(num_cpus=1)(EncodeActor)
        self.actors = [remote.remote(backend, model, batch_size, max_length) for _ in range(max(1, actors))]
        self.pool = ActorPool(self.actors)
        self.workers: set[int] = set()  # process ids that returned vectors (one per actor when the pool is reused)
        self.dim = int(load_backend(backend, model, max_length).get_embedding_dimension())

    def encode(self, texts: list[str]) -> np.ndarray:
        """Vectors of ``texts`` in input order, encoded by the pool's actors."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        step = max(1, min(self.batch_size * 8, -(-len(texts) // len(self.actors))))
        batches = [texts[i : i + step] for i in range(0, len(texts), step)]
        parts = []
        for pid, vecs in self.pool.map(lambda actor, batch: actor.encode.remote(batch), batches):
            self.workers.add(pid)
            parts.append(vecs)
        return np.concatenate(parts).astype(np.float32, copy=False)

    def served(self) -> list[int]:
        """Batches encoded by each actor of the pool."""
        import ray

        return ray.get([a.served.remote() for a in self.actors])
