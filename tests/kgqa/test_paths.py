"""Relation-path expansion over the whole KB and chains back from an answer."""

from __future__ import annotations

from graphhop.core import Fact
from graphhop.kb.store import KGStore
from graphhop.kgqa.paths import chains, expand, path_signature

FACTS = [
    ("Saltwind", "directed_by", "Marta Velloso"), ("Harbor of Echoes", "directed_by", "Marta Velloso"),
    ("Marta Velloso", "born_in", "Porto Lumen"), ("Porto Lumen", "located_in", "Veldaria"),
    ("Veldaria", "currency", "lumen"), ("Harbor of Echoes", "filmed_in", "Porto Lumen"),
]


def _store() -> KGStore:
    return KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(FACTS))


def test_expand_enumerates_paths_of_every_length_and_scores_them() -> None:
    s = _store()
    start = [s.entity_id["Saltwind"]]
    paths = expand(s, start, max_hops=4, beam=50)
    sigs = {path_signature(s, p.steps) for p in paths}
    assert ("directed_by",) in sigs
    assert ("directed_by", "born_in", "located_in", "currency") in sigs
    # walking directed_by straight back reaches the *other* films of the director, not Saltwind itself
    target = [p for p in paths if path_signature(s, p.steps) == ("directed_by", "^directed_by")][0]
    assert [s.entities[e] for e in target.ends] == ["Harbor of Echoes"]
    assert not any(s.entity_id["Saltwind"] in p.layers[2] for p in paths if len(p.steps) > 2
                   and path_signature(s, p.steps)[:2] == ("directed_by", "^directed_by"))
    before = expand(s, start, max_hops=2, beam=50, back_to_start=True)
    target = [p for p in before if path_signature(s, p.steps) == ("directed_by", "^directed_by")][0]
    assert sorted(s.entities[e] for e in target.ends) == ["Harbor of Echoes", "Saltwind"]
    # a walk back with nothing else to reach is dropped: Veldaria is the only place in located_in's tail
    assert ("born_in", "located_in", "^located_in") not in {path_signature(s, p.steps) for p in
                                                            expand(s, [s.entity_id["Marta Velloso"]], max_hops=3, beam=50)}
    # a scorer that prefers longer paths: the beam keeps its best and every length is returned
    scored = expand(s, start, score=lambda ps: [len(p.steps) for p in ps], max_hops=3, beam=1)
    assert {len(p.steps) for p in scored} == {1, 2, 3}
    assert all(p.score == len(p.steps) for p in scored)


def test_chains_walk_back_to_the_topic() -> None:
    s = _store()
    paths = expand(s, [s.entity_id["Saltwind"]], max_hops=4, beam=50)
    p = [p for p in paths if path_signature(s, p.steps) == ("directed_by", "born_in", "located_in", "currency")][0]
    got = chains(s, p, s.entity_id["lumen"])
    assert [[s.fact_ids[e][0] for e in c] for c in got] == [["f0", "f2", "f3", "f4"]]
    back = [p for p in paths if path_signature(s, p.steps) == ("directed_by", "^directed_by")][0]
    got = chains(s, back, s.entity_id["Harbor of Echoes"])
    assert [[s.fact_ids[e][0] for e in c] for c in got] == [["f0", "f1"]]


def test_relpath_equality_compares_end_sets_whole() -> None:
    """``path in paths`` with end sets of different sizes is False, not a numpy broadcast error (it crashed
    `eval-qa` on a blind KB's yes/no question at --hops 4); equal paths still compare equal."""
    import numpy as np

    from graphhop.kgqa.paths import RelPath

    a = RelPath(((0, True),), [np.array([1]), np.array([2, 3])], 0.5, {"mask": np.array([1, 0])})
    b = RelPath(((0, True),), [np.array([1]), np.array([2, 3, 4])], 0.5, {"mask": np.array([1, 0])})
    c = RelPath(((0, True),), [np.array([1]), np.array([2, 3])], 0.5, {"mask": np.array([1, 0])})
    assert b not in [a] and a != b
    assert c in [a] and a == c and [a].index(c) == 0
    assert a != RelPath(((0, True),), [np.array([1]), np.array([2, 3])], 0.5, {"mask": np.array([0, 1])})
