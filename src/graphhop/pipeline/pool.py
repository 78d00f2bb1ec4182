"""Closed-pool set baselines as registered pipelines: ``pool-random``, ``pool-bm25``, ``pool-dense``, ``pool-mdr``.

Each runs over one question's candidate pool as a tiny :class:`~graphhop.index.memory.MemoryIndex`
(:func:`graphhop.eval.bgr.pool_index`) and returns the pool's top ``k`` evidence ids in order
(:meth:`PoolBaseline.topk`). ``k`` is an option: the gold set size ("oracle k", labelled so in every
table) or a k chosen on a selection split (:func:`graphhop.eval.bgr.choose_ks`).

>>> pipe = build_pipeline("pool-bm25", pool_index(ex), k=3, bm25=PoolBM25(collection))
>>> pipe.topk(ex.query)                          # -> the 3 best pool ids
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphhop.core import InputError, Stage
from graphhop.pipeline.registry import register

__all__ = ["POOL_BASELINES", "PoolBaseline"]

#: The set baselines over a pool (registered as ``pool-<name>``).
POOL_BASELINES = ("random", "bm25", "dense", "mdr")

#: The options a pool pipeline takes (``k`` is required).
OPTIONS = ("k", "bm25", "seed", "key", "beam")


class PoolBaseline(Stage):
    """One set baseline over a pool index: :meth:`topk` -> the top ``k`` pool ids.

    ``random``: ``k`` ids drawn with seed ``f"{seed}|{key}"``; ``bm25``: ``bm25``'s ranking (a
    :class:`~graphhop.retrieve.baselines.PoolBM25`: collection statistics) restricted to the pool;
    ``dense``: the index's dense retriever (a cached question vector when given); ``mdr``: MDR's best
    chain of ``min(k, pool size)`` hops (``beam``).
    """

    def __init__(self, method: str, index: Any, k: int, bm25: Any = None, seed: int = 13, key: str = "",
                 beam: int = 3) -> None:
        if method not in POOL_BASELINES:
            raise InputError(f"unknown pool baseline {method!r}; choose one of {', '.join(POOL_BASELINES)}")
        if k < 1:
            raise InputError(f"pool-{method}: k must be positive (got {k})")
        if method == "bm25" and bm25 is None:
            raise InputError("pool-bm25 needs bm25= (a PoolBM25 over the collection)")
        self.name, self.method, self.index, self.k = f"pool-{method}", method, index, k
        self.bm25, self.seed, self.key, self.beam = bm25, seed, key, beam
        docs = index.docs.docs
        self.ids, self.texts = [d.id for d in docs], [d.text for d in docs]

    def topk(self, query: str, vector: np.ndarray | None = None) -> list[str]:
        """The pool's top ``k`` ids for ``query`` (``vector``: its cached encoder vector, for dense)."""
        from graphhop.retrieve.dense import DenseRetriever

        if self.method == "random":
            from graphhop.retrieve.baselines import random_topk

            return random_topk(self.ids, self.k, f"{self.seed}|{self.key}")
        if self.method == "bm25":
            return self.bm25.topk(query, self.ids, self.texts, self.k)
        dense = DenseRetriever(self.index)
        if self.method == "dense":
            hits = (dense.search_vectors(vector[None, :], self.k) if vector is not None else dense.search([query], self.k))[0]
            return [h.id for h in hits]
        from graphhop.retrieve.mdr import MDRRetriever

        chain = MDRRetriever(dense, hops=min(self.k, len(self.ids)), beam=self.beam).retrieve_chains([query])[0][0]
        return list(chain.ids)


def _factory(method: str):
    def factory(index: Any, **options: Any) -> PoolBaseline:
        given = {k: v for k, v in options.items() if v is not None}
        unknown = sorted(set(given) - set(OPTIONS))
        if unknown:
            raise InputError(f"pipeline pool-{method} does not take option {unknown[0]!r} (it takes {', '.join(OPTIONS)})")
        return PoolBaseline(method, index, **given)

    return factory


for _m in POOL_BASELINES:
    register(f"pool-{_m}", _factory(_m), kinds=("pool",), help=f"{_m} over one question's candidate pool (a MemoryIndex): the top k pool ids "
             "(k: the gold set size = oracle k, or chosen on a selection split).")
