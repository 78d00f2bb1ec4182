"""Session 15 (kgt15): the veto by answer type (:mod:`graphhop.kgqa.veto`), the hop limit said out loud, and two
rules of session 14 narrowed: a container named by the asked noun only for place nouns (:mod:`graphhop.kgqa.levels`),
and a count of things whose names begin with a number is not a count of values (:func:`graphhop.kgqa.ops._counts_values`).

The KBs are small hand-made files in ``tests/kgqa/data_typing``, read by the ``typing_kb`` fixture (``conftest.py``)."""

from __future__ import annotations

from typing import Any

import pytest

def _ids(kgqa: Any, *names: str) -> list[int]:
    return [kgqa.store.entities.index(n) for n in names]


def test_agents_and_made_things_from_the_kb(typing_kb: Any) -> None:
    """Who is an agent is read from the KB: the objects of ``written by`` / ``founded by`` and what shares their
    relations (``born in``), and the subjects of relations whose objects are made things (a press *published* books)."""
    from graphhop.kgqa.veto import answer_types, head_noun

    kgqa = typing_kb("hand14")
    types = answer_types(kgqa)
    orla, press, loom, town = _ids(kgqa, "Orla Venn", "Saltmarch Press", "The Copper Loom", "Hasselby")
    assert types.agent_like(orla) and types.agent_like(press) and not types.agent_like(loom)
    assert types.made_thing(loom) and not types.made_thing(press) and not types.made_thing(town)
    assert [head_noun(r) for r in ("currency", "capital city", "country of citizenship", "mountain range", "brewed by")] == [
        "currency", "city", "country", "range", None]


@pytest.mark.parametrize("asked, names, verdict", [
    (("who", None), ["The Copper Loom", "The Grey Tide"], -1),  # books do nothing: no "who"
    (("who", None), ["Saltmarch Press"], 1),  # a press publishes: a "who" may be a company
    (("who", None), ["Hasselby"], 0),  # a town: the KB cannot tell, no veto
    (("who", None), ["1931"], -1),
    (("noun", "currency"), ["Kestovia"], -1),
    (("noun", "currency"), ["Kestovian mark"], 1),
    (("noun", "country"), ["Kestovia"], 0),  # no relation is headed by "country": no veto
    (("when", None), ["1931"], 1),
    (("when", None), ["Saltmarch Press"], -1),
])
def test_judge(asked: tuple, names: list[str], verdict: int, typing_kb: Any) -> None:
    from graphhop.kgqa.veto import judge

    kgqa = typing_kb("hand14")
    assert judge(kgqa, asked, _ids(kgqa, *names)) == verdict


def test_a_chain_cut_by_the_hop_limit_is_no_answer(typing_kb: Any) -> None:
    """Five hops are needed (written by, born in, located in, part of, currency); within four the chain ends at a
    country, which is no currency: no supported answer, the four-hop chain kept, the hop limit said."""
    res = typing_kb("hand14").ask("What currency is used in the country where the author of The Copper Loom was born?")
    assert not res["supported"] and res["answers"] == []
    assert res["support"] == ["f4", "f0", "f1", "f2"]
    assert res["trace"]["best_guess"] == ["Kestovia"]
    veto = res["trace"]["type_veto"]
    assert veto["hop_limit"] == 4 and veto["longer_chain"] == ["currency"]
    assert "within the hop limit (4)" in res["trace"]["reason"] and "currency one hop further" in res["trace"]["reason"]


def test_the_currency_within_the_limit_is_answered(typing_kb: Any) -> None:
    res = typing_kb("hand14").ask("What currency is used in the country where Idris Fane was born?")
    assert res["supported"] and res["answer"] == "Kestovian mark"
    assert res["support"] == ["f8", "f7", "f2", "f3"] and "type_veto" not in res["trace"]


def test_who_is_not_answered_with_a_book(typing_kb: Any) -> None:
    """No leadership relation: the books the press published are no "who"."""
    res = typing_kb("hand14").ask("Who is running Saltmarch Press?")
    assert not res["supported"] and res["answers"] == []
    assert res["support"] == ["f5", "f10"] and res["trace"]["type_veto"]["asked"] == "who"


@pytest.mark.parametrize("question, answer, support", [
    ("Who published The Grey Tide?", "Saltmarch Press", ["f10"]),  # a company may answer "who"
    ("Who founded Saltmarch Press?", "Idris Fane", ["f13"]),
])
def test_who_answered_by_an_agent_stands(question: str, answer: str, support: list[str], typing_kb: Any) -> None:
    res = typing_kb("hand14").ask(question)
    assert res["supported"] and res["answer"] == answer and res["support"] == support
    assert "type_veto" not in res["trace"]


def test_a_value_noun_named_by_a_relation_is_not_a_place(typing_kb: Any) -> None:
    """``turnout`` heads a relation whose objects are numbers; the town the scorer reached is none of them."""
    res = typing_kb("elections").ask("What was the turnout of the 2015 Marrow General Election?")
    assert not res["supported"] and res["trace"]["best_guess"] == ["Marrow"] and res["support"] == ["f9"]


@pytest.mark.parametrize("question, answers, support", [
    ("Name the films of Petra Holm.", ["Night of Reeds"], ["f11"]),
    ("Which films were made by directors born in Dunmark?", ["Salt and Ember"], ["f13", "f9"]),
])
def test_a_festival_named_for_films_is_no_film(question: str, answers: list[str], support: list[str], typing_kb: Any) -> None:
    """Films premiere at ``X Film Festival``; the named-container rule is for place nouns only (``film`` is none)."""
    res = typing_kb("festivals").ask(question)
    assert res["supported"] and res["answers"] == answers and res["support"] == support
    assert "level" not in res["trace"]["answer_type"]


def test_the_named_container_rule_is_for_place_nouns(typing_kb: Any) -> None:
    from graphhop.kgqa.levels import PLACE_NOUNS, named_by

    kgqa = typing_kb("festivals")
    assert named_by(kgqa.store, "film", _ids(kgqa, "Vessel Film Festival"))  # the name carries the noun ...
    assert "film" not in PLACE_NOUNS and {"valley", "region", "city", "country"} <= PLACE_NOUNS  # ... not a place noun


@pytest.mark.parametrize("question, count, support", [
    ("How many elections has Edda Holm won?", "3", ["f0", "f1", "f3"]),
    ("How many elections has Oskar Venn won?", "1", ["f2"]),
])
def test_a_count_of_things_named_by_years(question: str, count: str, support: list[str], typing_kb: Any) -> None:
    """Each won election is a fact ``E winner X`` whose subject has facts of its own: the elections are counted,
    not read as values because their names begin with a year."""
    res = typing_kb("elections").ask(question)
    assert res["supported"] and res["answer"] == count and res["support"] == support
    assert "values_not_counted" not in res["trace"]


def test_a_noun_that_is_a_word_of_the_relation_reached_is_no_contradiction(kgqa_of: Any) -> None:
    """"The track performances of X" over ``track performances``: ``track`` heads the ``track`` relation (a song is
    an album's track), yet the instrument reached is the object of a relation the question names word for word (PQL-2H)."""
    from graphhop.kgqa.veto import judge

    kgqa = kgqa_of([("Halden", "track performances", "Guitar"), ("Blue Album", "track", "Night Song"),
                    ("Night Song", "length", "3:10"), ("Guitar", "played by", "Ola Brisk")])
    assert judge(kgqa, ("noun", "track"), _ids(kgqa, "Guitar")) == 0
    assert judge(kgqa, ("noun", "track"), _ids(kgqa, "Night Song")) == 1
    assert judge(kgqa, ("noun", "track"), _ids(kgqa, "Halden")) == -1


def test_the_veto_can_be_turned_off(typing_kb: Any) -> None:
    """``type_veto=False`` (``-o type_veto=false``) gives the previous answer: the 4-hop prefix's end."""
    from graphhop.pipeline.kgqa import OPTIONS

    kgqa = typing_kb("hand14")
    question = "What currency is used in the country where the author of The Copper Loom was born?"
    kgqa.type_veto = False
    try:
        res = kgqa.ask(question)
    finally:
        kgqa.type_veto = True
    assert res["answer"] == "Kestovia" and "type_veto" not in res["trace"]
    assert OPTIONS["type_veto"] is True
