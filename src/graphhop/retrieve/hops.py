"""Hop-wise fact retrieval: the question's facts, then each frontier entity's, chained into evidence graphs.

A retriever (any :class:`~graphhop.core.Retriever`, the method under test) runs at every hop;
:func:`graphhop.read.graphs.build_evidence_graph` chains what it found.
"""

from __future__ import annotations

from typing import Any, Sequence

from graphhop.core import Triple
from graphhop.graph import EvidenceGraph
from graphhop.kb.verbalize import clean_entity
from graphhop.read.facts import question_starts
from graphhop.read.graphs import build_evidence_graph

__all__ = ["retrieve_evidence"]


def retrieve_evidence(
    retriever: Any,
    docs: Any,
    questions: Sequence[str],
    k: int = 20,
    hops: int = 3,
    beam: int = 8,
    per_entity: int = 10,
    topic_entities: Sequence[Sequence[str] | None] | None = None,
    loops: bool = False,
) -> list[EvidenceGraph]:
    """Hop-wise fact retrieval, then :func:`build_evidence_graph`, for a batch of questions.

    Hop 1 retrieves the question's top ``k`` facts. Each later hop takes up to ``beam`` *frontier*
    entities (reached by chains from the question's entities but not yet expanded; shorter chains
    and better-ranked facts first) and retrieves for each the top facts of ``question + entity
    name`` that hold the entity (``per_entity`` kept of ``3 * per_entity`` searched). ``docs`` is a
    :class:`~graphhop.index.directory.DocStore` of fact documents. The retriever is the method under
    test at every hop. ``loops`` lets chains revisit entities (see :func:`build_evidence_graph`).
    """
    topics = list(topic_entities) if topic_entities is not None else [None] * len(questions)
    first = retriever.search(list(questions), k)
    pools: list[dict[str, Triple]] = []
    for ranking in first:
        pool: dict[str, Triple] = {}
        for h in ranking:
            doc = docs[h.id]
            if doc.fact is not None:
                pool.setdefault(h.id, doc.fact.triple)
        pools.append(pool)
    expanded: list[set[str]] = [set() for _ in questions]
    for _ in range(2, hops + 1):
        queries: list[tuple[int, str]] = []
        for i, (q, pool) in enumerate(zip(questions, pools)):
            ents = {e for h, _, t in pool.values() for e in (h, t)}
            starts = question_starts(q, ents, topics[i])
            frontier = _frontier(pool, starts, hops)
            picked = [e for e in frontier if e not in expanded[i]][:beam]
            expanded[i].update(picked)
            expanded[i].update(starts)
            queries += [(i, e) for e in picked]
        if not queries:
            break
        hits = retriever.search([f"{questions[i]} {clean_entity(e)}" for i, e in queries], 3 * per_entity)
        for (i, e), ranking in zip(queries, hits):
            kept = 0
            for h in ranking:
                doc = docs[h.id]
                if doc.fact is None or e not in (doc.fact.head, doc.fact.tail):
                    continue
                pools[i].setdefault(h.id, doc.fact.triple)
                kept += 1
                if kept >= per_entity:
                    break
    return [
        build_evidence_graph(q, list(pool.items()), {eid: docs[eid].text for eid in pool}, topics[i], max_hops=hops,
                             loops=loops)
        for i, (q, pool) in enumerate(zip(questions, pools))
    ]


def _frontier(pool: dict[str, Triple], starts: Sequence[str], hops: int) -> list[str]:
    """Entities reachable from ``starts`` through the pool's facts, nearest first (then pool order)."""
    incident: dict[str, list[str]] = {}
    for eid, (h, _, t) in pool.items():
        incident.setdefault(h, []).append(eid)
        incident.setdefault(t, []).append(eid)
    seen = dict.fromkeys(starts)
    layer = list(seen)
    out: list[str] = []
    for _ in range(hops - 1):
        nxt = []
        for e in layer:
            for eid in incident.get(e, []):
                h, _, t = pool[eid]
                other = t if h == e else h
                if other not in seen:
                    seen[other] = None
                    nxt.append(other)
                    out.append(other)
        layer = nxt
    return out
