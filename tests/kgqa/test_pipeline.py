"""The ``kgqa`` pipeline with the shipped scorer: support = the chain used, question types, refusals."""

from __future__ import annotations

import json

import pytest

from graphhop.core import Fact
from graphhop.kb.store import KGStore

FACTS = [
    ("Saltwind", "directed by", "Marta Velloso"), ("Harbor of Echoes", "directed by", "Marta Velloso"),
    ("The Glass Orchard", "directed by", "Ivo Tamsin"), ("Marta Velloso", "born in", "Porto Lumen"),
    ("Ivo Tamsin", "born in", "Kessel"), ("Porto Lumen", "located in", "Veldaria"), ("Kessel", "located in", "Ostmark"),
    ("Veldaria", "currency", "lumen"), ("Ostmark", "currency", "ost crown"), ("Marta Velloso", "birth year", "1961"),
    ("Ivo Tamsin", "birth year", "1954"), ("Saltwind", "release year", "1999"), ("Harbor of Echoes", "filmed in", "Porto Lumen"),
    ("Nadia Quell", "starred in", "Saltwind"),
]


@pytest.fixture(scope="module")
def kgqa():
    from graphhop.kgqa.pipeline import KGQA

    return KGQA(KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(FACTS)), max_hops=4)


def _triples(result) -> set[tuple[str, str, str]]:
    g = result["support_graph"]
    return {tuple(f) for n, d in g.g.nodes(data=True) if n != g.root for f in d["facts"]}


def test_support_is_exactly_the_chain_to_the_answer(kgqa) -> None:
    res = kgqa.ask("Who directed Saltwind?")
    assert res["answer"] == "Marta Velloso" and res["supported"] and res["qtype"] == "query"
    assert res["support"] == ["f0"] and _triples(res) == {FACTS[0]}
    assert res["trace"]["relation_path"] == ["directed by"]
    assert set(res) >= {"question", "method", "qtype", "answer", "answers", "score", "supported", "support", "graph",
                        "support_graph", "trace", "timings"}


def test_count_counts_the_entities_the_chain_reaches(kgqa) -> None:
    res = kgqa.ask("How many films did Marta Velloso direct?")
    assert res["qtype"] == "count" and res["answer"] == "2"
    assert sorted(res["trace"]["counted"]) == ["Harbor of Echoes", "Saltwind"]
    assert _triples(res) == {FACTS[0], FACTS[1]}


def test_comparison_compares_the_same_relation(kgqa) -> None:
    res = kgqa.ask("Who was born earlier, the director of Saltwind or the director of The Glass Orchard?")
    assert res["qtype"] == "comparison" and res["answer"] == "Ivo Tamsin"
    assert res["trace"]["relation_path"] == ["birth year"]
    assert {FACTS[9], FACTS[10], FACTS[0], FACTS[2]} <= _triples(res)


def test_yes_no_checks_the_claim(kgqa) -> None:
    yes = kgqa.ask("Was Saltwind directed by Marta Velloso?")
    assert yes["qtype"] == "boolean" and yes["answer"] == "yes" and FACTS[0] in _triples(yes)
    no = kgqa.ask("Was The Glass Orchard directed by Marta Velloso?")
    assert no["answer"] == "no" and FACTS[2] in _triples(no)


def test_no_entity_means_no_supported_answer(kgqa) -> None:
    res = kgqa.ask("What is the airspeed of an unladen swallow?")
    assert res["answer"] == "" and not res["supported"] and res["support"] == []
    assert "no entity" in res["trace"]["reason"]
    json.dumps({k: v for k, v in res.items() if k not in ("graph", "support_graph")})


def test_threshold_withholds_the_answer_but_keeps_the_chain() -> None:
    from graphhop.kgqa.pipeline import KGQA

    strict = KGQA(KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(FACTS)), threshold=1.01)
    res = strict.ask("Who directed Saltwind?")
    assert res["answer"] == "" and not res["supported"]
    assert res["support"] and "no supported answer" in res["trace"]["reason"]
    assert res["trace"]["best_guess"]


def test_topic_is_an_answer_unless_the_path_walks_straight_back() -> None:
    """PathQuestion's loops (`X tracks X`; the child of X's parent) may answer with the topic; a relation
    walked out and straight back (`X artist Y`, `Y` ^artist `X`) never does."""
    from graphhop.kgqa.pipeline import KGQA, walks_back

    assert walks_back([(0, True), (0, False)]) and walks_back([(1, True), (0, False), (0, True)])
    assert not walks_back([(0, True), (0, True)]) and not walks_back([(0, True), (1, False)]) and not walks_back([(0, True)])
    facts = [("Believe", "tracks", "Believe"), ("Believe", "artist", "Cher"), ("Cher", "genre", "Pop"),
             ("Shah Shuja", "parent", "Mumtaz Mahal"), ("Mumtaz Mahal", "child", "Shah Shuja")]
    kgqa = KGQA(KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(facts)), max_hops=2)
    res = kgqa.ask("what is the tracks of Believe 's tracks ?")
    assert res["answer"] == "Believe" and _triples(res) == {facts[0]}
    res = kgqa.ask("who is the child of Shah Shuja 's parent ?")
    assert res["answer"] == "Shah Shuja" and _triples(res) == {facts[3], facts[4]}
    (believe,) = kgqa.linker.link("Believe")
    kept = {tuple(kgqa.describe(r, p)["relation_path"]) for r in [kgqa.read("what is the artist of Believe 's artist ?", believe)]
            for p in r.paths}
    assert ("tracks", "tracks") in kept and ("artist", "^artist") not in kept and ("artist", "genre") in kept


def test_answers_reached_equally_often_are_ordered_by_degree_then_name() -> None:
    """Two films merged under one name (MetaQA's KB): the better-connected year comes first by default,
    the alphabetical one with ``answer_order="name"``; an answer reached by more chains still wins."""
    from graphhop.kgqa.pipeline import KGQA

    facts = [("Proof", "release year", "1991"), ("Proof", "release year", "2005"), ("Safe House", "release year", "2005"),
             ("Wild Bill", "release year", "2005"), ("Gamma", "release year", "1991")]
    store = KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(facts))
    by_degree = KGQA(store, max_hops=1).ask("what year was Proof released ?")
    assert by_degree["answers"] == ["2005", "1991"]
    assert KGQA(store, max_hops=1, answer_order="name").ask("what year was Proof released ?")["answers"] == ["1991", "2005"]
    with pytest.raises(ValueError):
        KGQA(store, answer_order="random")


def test_answer_confidence_pools_the_paths_that_reach_the_same_entities() -> None:
    """On a loop two wordings of a chain reach the same entity and split the probability: the threshold
    is compared with their sum (``confidence="answer"``, the default), not with the best path's share."""
    import numpy as np

    from graphhop.kgqa.link import Mention
    from graphhop.kgqa.result import path_prob
    from graphhop.kgqa.paths import RelPath
    from graphhop.kgqa.pipeline import KGQA, Reading

    start = np.array([0])
    a, b, c = (RelPath(((r, True),), [start, np.array(ends)]) for r, ends in ((0, [0]), (1, [0]), (2, [5, 6])))
    reading = Reading(Mention(0, 1, (0,), "X"), "q", [a, b, c], np.array([0.4, 0.35, 0.25]))
    assert path_prob(reading, a) == pytest.approx(0.4) and path_prob(reading, a, pool=True) == pytest.approx(0.75)
    assert path_prob(reading, c, pool=True) == pytest.approx(0.25)
    assert path_prob(reading, a, among=[a, c], pool=True) == pytest.approx(0.4 / 0.65)
    store = KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(FACTS))
    assert KGQA(store).confidence == "answer"
    with pytest.raises(ValueError):
        KGQA(store, confidence="vibes")
