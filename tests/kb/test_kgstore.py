"""KGStore: CSR adjacency both ways, inverse relations folded to their base direction."""

from __future__ import annotations

import numpy as np

from graphhop.core import Fact
from graphhop.kb.store import KGStore


def _store() -> KGStore:
    facts = [
        Fact("Saltwind", "directed_by", "Marta Velloso", "f0"),
        Fact("Harbor of Echoes", "directed_by", "Marta Velloso", "f1"),
        Fact("Marta Velloso", "directed_by_inverse", "Harbor of Echoes", "f2"),  # the same fact as f1
        Fact("Marta Velloso", "born_in", "Porto Lumen", "f3"),
        Fact("Porto Lumen", "located_in", "Veldaria", "f4"),
    ]
    return KGStore.from_facts(facts)


def test_inverse_facts_collapse_to_one_edge_with_both_ids() -> None:
    s = _store()
    assert len(s) == 4
    assert s.relations == ["directed_by", "born_in", "located_in"]
    e = [i for i in range(len(s)) if s.entities[s.heads[i]] == "Harbor of Echoes"][0]
    assert s.fact_ids[e] == ["f1", "f2"]
    assert s.raw[e][1] == ("Marta Velloso", "directed_by_inverse", "Harbor of Echoes")


def test_steps_follow_direction() -> None:
    s = _store()
    marta = s.entity_id["Marta Velloso"]
    _, films = s.step(np.array([marta]), s.relation_id["directed_by"], False)
    assert sorted(s.entities[i] for i in films) == ["Harbor of Echoes", "Saltwind"]
    _, none = s.step(np.array([marta]), s.relation_id["directed_by"], True)
    assert len(none) == 0
    assert s.signed_relations(np.array([marta])) == [(1, True), (0, False)]
    assert s.degree(marta) == 3


def test_edges_of_many_nodes_and_empty() -> None:
    s = _store()
    nodes = np.array([s.entity_id["Saltwind"], s.entity_id["Harbor of Echoes"]])
    assert len(s.edges_of(nodes, True)) == 2
    assert len(s.edges_of(np.array([s.entity_id["Veldaria"]]), True)) == 0
