"""In-memory adjacency over facts: :class:`TripleStore` (dicts, for path search in dataset building)
and :class:`KGStore` (integer arrays with CSR adjacency, for hop expansion over a whole KB)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

import numpy as np

from graphhop.core import Fact
from graphhop.kb.verbalize import INVERSE_SUFFIX

__all__ = ["TripleStore", "KGStore"]


class TripleStore:
    """Facts indexed by head and by tail; also maps a triple to the ids of its stored copies."""

    def __init__(self) -> None:
        self._out: dict[str, list[Fact]] = defaultdict(list)
        self._in: dict[str, list[Fact]] = defaultdict(list)
        self._ids: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        self.size = 0

    @classmethod
    def from_facts(cls, facts: Iterable[Fact]) -> "TripleStore":
        """Build a store from any iterable of facts (e.g. :func:`graphhop.kb.loaders.iter_triples`)."""
        store = cls()
        for fact in facts:
            store.add(fact)
        return store

    def add(self, fact: Fact) -> None:
        """Add one fact."""
        self._out[fact.head].append(fact)
        self._in[fact.tail].append(fact)
        self._ids[fact.triple].append(fact.id)
        self.size += 1

    def out_edges(self, entity: str, relation: str | None = None) -> list[Fact]:
        """Facts whose head is ``entity`` (optionally with that relation)."""
        facts = self._out.get(entity, [])
        return facts if relation is None else [f for f in facts if f.relation == relation]

    def in_edges(self, entity: str, relation: str | None = None) -> list[Fact]:
        """Facts whose tail is ``entity`` (optionally with that relation)."""
        facts = self._in.get(entity, [])
        return facts if relation is None else [f for f in facts if f.relation == relation]

    def ids(self, triple: tuple[str, str, str]) -> list[str]:
        """Ids of the stored facts equal to ``triple`` (empty if absent)."""
        return self._ids.get(triple, [])

    def __contains__(self, triple: object) -> bool:
        return triple in self._ids

    def entities(self) -> set[str]:
        """Every head and tail."""
        return set(self._out) | set(self._in)

    def __len__(self) -> int:
        return self.size


class KGStore:
    """A whole knowledge graph as integer arrays with CSR adjacency in both directions.

    Facts are stored once in their *base* direction: ``(x, r_inverse, y)`` is the fact
    ``(y, r, x)`` (WC2014 stores most facts both ways; they collapse to one edge). ``fact_ids[i]``
    keeps the ids of every stored copy of edge ``i``, so an answer's support names the facts as the
    KB wrote them. A *signed relation* ``(r, True)`` walks head -> tail, ``(r, False)`` tail -> head.
    """

    def __init__(self, entities: list[str], relations: list[str], heads: np.ndarray, rels: np.ndarray,
                 tails: np.ndarray, fact_ids: list[list[str]], raw: list[list[tuple[str, str, str]]]) -> None:
        self.entities = entities
        self.relations = relations
        self.entity_id = {e: i for i, e in enumerate(entities)}
        self.relation_id = {r: i for i, r in enumerate(relations)}
        self.heads, self.rels, self.tails = heads, rels, tails
        self.fact_ids = fact_ids
        self.raw = raw
        n = len(entities)
        self.out_ptr, self.out_idx = _csr(heads, n)
        self.in_ptr, self.in_idx = _csr(tails, n)

    @classmethod
    def from_facts(cls, facts: Iterable[Fact]) -> "KGStore":
        """Build from facts (``Fact.id`` empty -> the fact's position is its id)."""
        ent: dict[str, int] = {}
        rel: dict[str, int] = {}
        edge: dict[tuple[int, int, int], int] = {}
        heads: list[int] = []
        rels: list[int] = []
        tails: list[int] = []
        ids: list[list[str]] = []
        raw: list[list[tuple[str, str, str]]] = []
        for pos, f in enumerate(facts):
            h, r, t = f.head, f.relation, f.tail
            if r.endswith(INVERSE_SUFFIX) and len(r) > len(INVERSE_SUFFIX):
                h, r, t = t, r[: -len(INVERSE_SUFFIX)], h
            key = (ent.setdefault(h, len(ent)), rel.setdefault(r, len(rel)), ent.setdefault(t, len(ent)))
            i = edge.get(key)
            if i is None:
                i = edge[key] = len(heads)
                heads.append(key[0])
                rels.append(key[1])
                tails.append(key[2])
                ids.append([])
                raw.append([])
            ids[i].append(f.id or str(pos))
            raw[i].append(f.triple)
        arr = lambda xs: np.asarray(xs, dtype=np.int32)  # noqa: E731
        return cls(list(ent), list(rel), arr(heads), arr(rels), arr(tails), ids, raw)

    @classmethod
    def from_index(cls, index: Any) -> "KGStore":
        """The facts of a :class:`~graphhop.index.directory.KnowledgeIndex` (passages are skipped)."""
        return cls.from_facts(d.fact for d in index.docs.docs if d.fact is not None)

    def __len__(self) -> int:
        return int(self.heads.shape[0])

    def edges_of(self, nodes: np.ndarray, forward: bool) -> np.ndarray:
        """Edge indices leaving ``nodes`` (entity ids) as head (``forward``) or as tail."""
        ptr, idx = (self.out_ptr, self.out_idx) if forward else (self.in_ptr, self.in_idx)
        nodes = np.asarray(nodes, dtype=np.int64)
        starts, ends = ptr[nodes], ptr[nodes + 1]
        lens = ends - starts
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        offsets = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(total)
        return idx[offsets]

    def step(self, nodes: np.ndarray, relation: int, forward: bool) -> tuple[np.ndarray, np.ndarray]:
        """One hop: the edges of ``relation`` leaving ``nodes`` in that direction, and the entities they reach."""
        edges = self.edges_of(nodes, forward)
        edges = edges[self.rels[edges] == relation]
        return edges, (self.tails[edges] if forward else self.heads[edges])

    def signed_relations(self, nodes: np.ndarray) -> list[tuple[int, bool]]:
        """Every signed relation leaving some of ``nodes`` (forward ones first, by relation id)."""
        out = [(int(r), True) for r in np.unique(self.rels[self.edges_of(nodes, True)])]
        return out + [(int(r), False) for r in np.unique(self.rels[self.edges_of(nodes, False)])]

    def degree(self, node: int) -> int:
        """Edges touching ``node`` in either direction."""
        return int(self.out_ptr[node + 1] - self.out_ptr[node] + self.in_ptr[node + 1] - self.in_ptr[node])


def _csr(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(keys, kind="stable").astype(np.int64)
    counts = np.bincount(keys, minlength=n) if len(keys) else np.zeros(n, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return ptr, order
