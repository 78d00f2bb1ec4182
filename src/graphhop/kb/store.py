"""In-memory adjacency over facts, for path search (gold-path derivation, dataset building)."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from graphhop.core import Fact

__all__ = ["TripleStore"]


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
