"""Evidence-set baselines for graph retrieval (Graph-hop paper, Table 3).

All take ``k`` (the paper's protocol: ``k`` = the gold set size, an oracle size) and return the
top-``k`` evidence ids over a candidate pool; :func:`ids_to_graph` turns a list into an evidence
graph so graph metrics can be computed:

* ``chain``: question -> id1 -> id2 -> ... in rank (or hop) order;
* ``star``: question -> each id.

Methods: :func:`random_topk` (seeded uniform sample) and :class:`PoolBM25` (the index's BM25 over the
whole document collection, restricted to the pool; ties broken by pool order). Dense and MDR over a
pool are the index retrievers over the pool as an in-memory index
(:func:`graphhop.eval.bgr.pool_retriever`).

GoldEn over a pool (:class:`PoolSearch`, :func:`golden_chain`): the pool is a tiny in-memory index
(:class:`~graphhop.index.memory.MemoryIndex`) searched by BM25 with the collection's statistics, and
the hop loop is :class:`~graphhop.retrieve.golden.GoldEnRetriever`'s, the one that runs over a whole
index; hop ``h`` contributes its best unused hit. Builder sentences have no titles, so GoldEn's
title-match rerank has nothing to act on here.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from graphhop.core import Hit, Ranking, Stage
from graphhop.graph import EvidenceGraph

if TYPE_CHECKING:
    from graphhop.retrieve.golden import QueryGenerator

__all__ = ["tokenize", "PoolBM25", "PoolSearch", "random_topk", "golden_chain", "ids_to_graph"]

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an the of is was in to and or for on by with what who which where when how does did do 's s".split())


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens without a few stop words (underscores split words)."""
    return [t for t in _TOKEN.findall(text.lower().replace("_", " ")) if t not in _STOP]


class PoolBM25:
    """BM25 for candidate pools: the index's own BM25 (tantivy, :class:`~graphhop.index.memory.MemoryIndex`)
    over the whole ``collection`` (the textual DB), each ranking restricted to a pool — a full index
    restricted to the pool, with the collection's document statistics."""

    def __init__(self, collection: Iterable[str]) -> None:
        from graphhop.index.directory import Document
        from graphhop.index.memory import MemoryIndex
        from graphhop.retrieve.bm25 import BM25Retriever

        self.texts = list(dict.fromkeys(collection))
        self.retriever = BM25Retriever(MemoryIndex([Document(str(i), t) for i, t in enumerate(self.texts)], dense=False))

    def scores(self, query: str) -> dict[str, float]:
        """Every matching collection text's BM25 score for ``query`` (texts without a query term are absent)."""
        ranking = self.retriever.search([query], len(self.texts))[0]
        return {self.texts[int(h.id)]: h.score for h in ranking}

    def topk(self, query: str, ids: Sequence[str], texts: Sequence[str], k: int) -> list[str]:
        """Top ``k`` pool ids (stable: ties, zero scores included, keep pool order)."""
        s = self.scores(query)
        order = sorted(range(len(ids)), key=lambda i: (-s.get(texts[i], 0.0), i))
        return [ids[i] for i in order[:k]]


class PoolSearch(Stage):
    """GoldEn's search over one question's pool: :class:`PoolBM25` restricted to the pool's passages.

    It has what GoldEn's oracle and hop loop use of :class:`~graphhop.retrieve.golden.GoldEnSearch`:
    ``search(queries, k)``, ``candidates`` and ``index`` (the pool as a
    :class:`~graphhop.index.memory.MemoryIndex`: its documents by id)."""

    def __init__(self, bm25: PoolBM25, ids: Sequence[str], texts: Sequence[str], candidates: int = 50) -> None:
        from graphhop.index.memory import MemoryIndex

        self.ids, self.texts = list(ids), list(texts)
        self.candidates = candidates
        self.bm25 = bm25
        self.index = MemoryIndex.from_texts(self.ids, self.texts, sparse=None, dense=False)

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Pool ranking per query, best first (ties: pool order); zero-score passages are not hits."""
        out = []
        for query in queries:
            s = self.bm25.scores(query)
            hits = [(s[t], i) for i, t in enumerate(self.texts) if s.get(t, 0.0) > 0]
            out.append([Hit(self.ids[i], float(sc), self.texts[i]) for sc, i in sorted(hits, key=lambda x: (-x[0], x[1]))[:k]])
        return out


def golden_chain(question: str, search: Any, generator: "QueryGenerator", hops: int, per_hop: int = 5,
                 max_words: int = 50) -> list[str]:
    """GoldEn's hop loop (:meth:`~graphhop.retrieve.golden.GoldEnRetriever.retrieve`, ``hops`` fixed
    hops) over ``search`` (a :class:`PoolSearch`, or a :class:`~graphhop.retrieve.golden.GoldEnSearch`
    over a whole index), as a chain: each hop contributes its best hit not yet taken; returns the ids
    in hop order (fewer when a query retrieves nothing new)."""
    from graphhop.retrieve.golden import GoldEnRetriever

    if hops < 1:
        return []
    loop = GoldEnRetriever(search, generator, max_hops=hops, per_hop=per_hop, max_words=max_words)
    chain: list[str] = []
    for record in loop.retrieve([question], hops + per_hop)[0].hops:
        new = next((h.id for h in record.hits if h.id not in chain), None)
        if new is not None:
            chain.append(new)
    return chain


def random_topk(ids: Sequence[str], k: int, seed: int | str = 13) -> list[str]:
    """``k`` ids drawn uniformly without replacement (seeded)."""
    rng = random.Random(seed)
    return rng.sample(list(ids), min(k, len(ids)))


def ids_to_graph(question: str, ids: Sequence[str], texts: dict[str, str] | None = None, shape: str = "chain",
                 facts: dict[str, list] | None = None) -> EvidenceGraph:
    """An evidence graph from an ordered id list: a ``chain`` or a ``star`` under the question."""
    g = EvidenceGraph(question)
    prev = g.root
    for eid in dict.fromkeys(ids):
        g.add_evidence(eid, (texts or {}).get(eid, ""), (facts or {}).get(eid, []))
        g.add_edge(prev if shape == "chain" else g.root, eid)
        prev = eid
    return g
