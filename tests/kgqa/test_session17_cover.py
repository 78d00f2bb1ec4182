"""Session 17 (kgv17): named-relation coverage does not take a class noun for a relation.

A plural noun that matches a relation name only through an agent noun built on a related stem (``bakeries`` ~
``head baker``, ``auctions`` ~ ``auctioneer``) names a class of things the scorer's path passes through, not the
person the relation leads to: it breaks ties in :func:`graphhop.kgqa.cover.covering` and forces no move. Small
hand-made KBs in ``tests/kgqa/data_typing``: ``bakers`` (plain words), ``bakers_snake``, ``bakers_camel`` and
``bakers_reverse`` (the head baker stored from the baker, ``baker at``); ``lots`` (kga17's case).
"""

from __future__ import annotations

from typing import Any

import pytest

QUESTION = "Harlan Vesk owns a couple of bakeries - which towns are they in?"
STYLES = [("bakers", "head baker"), ("bakers_snake", "head_baker"), ("bakers_camel", "headBaker"),
          ("bakers_reverse", "^baker at")]


def _words(relations: list[str]) -> Any:
    from graphhop.kgqa.scorer import RelationWords

    return RelationWords(relations)


@pytest.mark.parametrize("relations, text, nouns", [
    (["owns", "head baker", "town", "first baked"], QUESTION, ["bakeri"]),
    (["includes lot", "auctioneer", "venue"], "How many lots were sold at auctions held in X?", ["auction"]),
    (["head_baker"], "which towns have bakeries", ["bakeri"]),
    (["headBaker"], "which towns have bakeries", ["bakeri"]),
])
def test_a_class_noun_named_through_an_agent_noun(relations: list[str], text: str, nouns: list[str]) -> None:
    assert _words(relations).class_nouns(text) == nouns


@pytest.mark.parametrize("relations, text", [
    (["includes lot", "auctioneer"], "How many lots were sold in X?"),  # the relation's own noun
    (["children"], "which schools do the children of X attend?"),  # not a plural by its spelling
    (["parent", "born in"], "where were the parents of X born?"),
    (["founded by"], "which founders of X were born in Y?"),  # a verb form, not an agent noun
    (["director"], "how many directors worked with X?"),  # the agent noun itself
    (["manager"], "who manages the team of X?"),  # a verb after its subject
    (["located in"], "which locations of X are in Y?"),  # a noun of the action names its verb
    (["auctioneer"], "How many lots did X auction?"),  # a verb: the auctioneer's act
])
def test_other_words_still_name_their_relation(relations: list[str], text: str) -> None:
    words = _words(relations)
    assert words.asked(text) and words.class_nouns(text) == []


def _longer(rel: str) -> tuple[str, ...]:
    return ("owns", rel, "owns", "town")


@pytest.mark.parametrize("kb, rel", STYLES)
def test_a_class_noun_forces_no_move(typing_kb: Any, reading_of: Any, kb: str, rel: str) -> None:
    """The scorer's ``owns -> town`` (both bakeries' towns) stays; without the rule coverage moves to the path
    through the head baker, which names ``bakeries`` by stem prefix (one town, the head baker's own bakery's)."""
    from graphhop.kgqa.cover import covering

    kgqa = typing_kb(kb)
    reading = reading_of(kgqa, QUESTION, ("owns", "town"), _longer(rel))
    kgqa.cover_class = True
    kept, trace = covering(kgqa, reading)
    assert trace == {} and sorted(kgqa.store.entities[e] for e in kept.best.ends.tolist()) == ["Brackmere", "Emberlay"]
    kgqa.cover_class = False
    try:
        moved, trace = covering(kgqa, reading)
    finally:
        kgqa.cover_class = True
    assert trace["coverage"]["asked"] == ["own", "bakeri"]  # ``towns`` is the type's word
    assert [kgqa.store.entities[e] for e in moved.best.ends.tolist()] == ["Pellsby"]


def test_the_auctions_count_end_to_end(typing_kb: Any) -> None:
    """kga17's case: 13 lots of the auctions held in Varnland's towns (``^country -> ^venue -> includes lot``), not
    the 9 of the path through ``^auctioneer`` that coverage took for ``auctions`` (9 with the rule off)."""
    kgqa = typing_kb("lots")
    question = "How many lots were sold at auctions held in Varnland?"
    assert kgqa.ask(question)["answer"] == "13"
    kgqa.cover_class = False
    try:
        assert kgqa.ask(question)["answer"] == "9"
    finally:
        kgqa.cover_class = True


def test_the_option_reaches_the_reader() -> None:
    from graphhop.pipeline.kgqa import OPTIONS, _factory

    assert OPTIONS["cover_class"] is True
    assert _factory(None, cover_class="off").cover_class is False
