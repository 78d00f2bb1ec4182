"""Yes/no claims (:mod:`graphhop.kgqa.claims`): a shortcut that reaches the claim proves nothing, and the
chain that decides the answer is the one the question names."""

from __future__ import annotations

import pytest

from graphhop.cli.kgqa import support_triples

FACTS = [
    ("Odile Marsk", "nationality", "Veldaria"), ("Odile Marsk", "born in", "Kessel Ford"),
    ("Kessel Ford", "located in", "Upper Braid"), ("Upper Braid", "located in", "Ostmark"),
    ("Tomas Reyl", "nationality", "Ostmark"), ("Tomas Reyl", "born in", "Sarrow"), ("Sarrow", "located in", "Lowmere"),
    ("Lowmere", "located in", "Ostmark"), ("Veldaria", "currency", "veld"), ("Ostmark", "currency", "ost crown"),
    ("Brill", "located in", "Veldaria"), ("Veldaria", "capital", "Brill"), ("Ostmark", "capital", "Lowmere"),
    ("Tomas Reyl", "home port", "Lowmere"), ("Marn", "located in", "Ostmark"),
]


@pytest.fixture(scope="module")
def kgqa(kgqa_of):
    return kgqa_of(FACTS)


def _triples(result) -> set[tuple[str, str, str]]:
    return set(support_triples(result))


def test_no_is_shown_by_the_named_chain_not_by_the_shortcut(kgqa) -> None:
    res = kgqa.ask("Was Odile Marsk born in Veldaria?")
    assert res["qtype"] == "boolean" and res["answer"] == "no"
    assert {FACTS[1], FACTS[2], FACTS[3]} <= _triples(res) and FACTS[0] not in _triples(res)
    assert res["trace"]["shortcut_path"] == ["nationality"]


def test_yes_is_shown_by_the_named_chain(kgqa) -> None:
    res = kgqa.ask("Was Odile Marsk born in Ostmark?")
    assert res["answer"] == "yes" and {FACTS[1], FACTS[2], FACTS[3]} <= _triples(res)


def test_a_yes_chain_is_shown_with_its_general_relations(kgqa) -> None:
    """``home port -> ^capital`` proves "Is X's home port in Ostmark?" only for capitals: the chain shown is
    ``home port -> located in`` (every pair of ``^capital`` is one of ``located in``), which reaches the claim too."""
    import numpy as np

    from graphhop.kgqa.claims import _general_hit
    from graphhop.kgqa.cover import walk
    from graphhop.kgqa.link import Mention
    from graphhop.kgqa.pipeline import Reading

    store = kgqa.store
    rel, ent = {n: i for i, n in enumerate(store.relations)}, {n: i for i, n in enumerate(store.entities)}
    topic = (ent["Tomas Reyl"],)
    path = walk(store, topic, [(rel["home port"], True), (rel["capital"], False)], 1.0)
    reading = Reading(Mention(0, 2, topic, "Tomas Reyl"), "is X s home port in", [path], np.ones(1))
    moved, trace = _general_hit(kgqa, reading, path, [ent["Ostmark"]])
    assert [(store.relations[r], f) for r, f in moved.steps] == [("home port", True), ("located in", True)]
    assert trace["general"]["steps"] == [1]
    assert _general_hit(kgqa, reading, path, [ent["Veldaria"]]) == (path, {})  # the general chain misses it: kept
