"""Issue 12's own 4-hop example: the scorer stops after ``born in``; answer typing continues two hops
(``located in`` -> ``currency``) to the asked currency, with exactly the 4-fact chain as support; and a
country question over the same KB ends at the country, not at the birth city nor at the currency."""

from __future__ import annotations

import pytest

from graphhop.core import Fact

#: The issue's films/directors/places/currencies KB (12 facts): the asked chain plus distractors
#: (another director born in another country with another currency; the film's own filming city,
#: which leads to the wrong currency in 3 hops; years and a population the scorer may stop at).
GLASS_ORCHARD = [
    ("The Glass Orchard", "directed by", "Ivo Tamsin"), ("Ivo Tamsin", "born in", "Saltmere"),
    ("Saltmere", "located in", "Norvania"), ("Norvania", "currency", "krona"),
    ("Saltwind", "directed by", "Marta Velloso"), ("Marta Velloso", "born in", "Porto Lumen"),
    ("Porto Lumen", "located in", "Veldaria"), ("Veldaria", "currency", "lira"),
    ("The Glass Orchard", "released in", "2011"), ("Ivo Tamsin", "born in year", "1968"),
    ("Saltmere", "population", "42000"), ("The Glass Orchard", "filmed in", "Porto Lumen"),
]
CHAIN = set(GLASS_ORCHARD[:4])


def _triples(result) -> set[tuple[str, str, str]]:
    g = result["support_graph"]
    return {tuple(f) for n, d in g.g.nodes(data=True) if n != g.root for f in d["facts"]}


@pytest.fixture(scope="module")
def store():
    from graphhop.kb.store import KGStore

    return KGStore.from_facts([Fact(*t) for t in GLASS_ORCHARD])


def test_four_hop_currency_question_answers_the_currency_with_the_chain(store) -> None:
    from graphhop.kgqa.pipeline import KGQA

    res = KGQA(store, max_hops=4).ask("What currency is used in the country where the director of The Glass Orchard was born?")
    assert res["supported"] and res["answer"] == "krona", (res["answer"], res["trace"].get("relation_path"))
    assert _triples(res) == CHAIN
    typing = res["trace"]["answer_type"]
    # The shipped head of session 10 scores the whole 4-hop currency chain best itself (typing moves 0 hops); the
    # session-3 head stopped two hops short and typing moved it on (2). Either way the chain must end at the currency.
    assert typing["noun"] == "currency" and typing["moved_hops"] in (0, 2)
    assert res["trace"]["relation_path"] == ["directed by", "born in", "located in", "currency"]


def test_country_question_stops_at_the_country(store) -> None:
    """The same window must not overshoot: a country question ends at the country, not its currency."""
    from graphhop.kgqa.pipeline import KGQA

    res = KGQA(store, max_hops=4).ask("In which country was the director of The Glass Orchard born?")
    assert res["answer"] == "Norvania", (res["answer"], res["trace"].get("relation_path"))
    assert _triples(res) == set(GLASS_ORCHARD[:3])


def test_window_is_bounded_by_max_hops(store) -> None:
    """With ``max_hops=3`` there is no room for the fourth hop: answer typing never walks past it."""
    from graphhop.kgqa.pipeline import KGQA

    res = KGQA(store, max_hops=3).ask("What currency is used in the country where the director of The Glass Orchard was born?")
    assert len(res["trace"]["relation_path"]) <= 3
