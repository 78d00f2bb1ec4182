"""Answer typing: the asked type noun, type nouns of training-KB entities, noun-typed synthetic
questions, and the yes/no split of ``same`` questions."""

from __future__ import annotations

import random

import numpy as np

from graphhop.core import Fact
from graphhop.kb.store import KGStore
from graphhop.kgqa.answer_types import entity_nouns, plural, set_nouns
from graphhop.kgqa.compare import split_same
from graphhop.kgqa.scorer import answer_noun, type_relations
from graphhop.kgqa.synthetic import typed_question


def test_answer_noun_reads_the_asked_type() -> None:
    assert answer_noun("in which country was X born") == "country"
    assert answer_noun("what s the capital of the country where X has its headquarters") == "capital"
    assert answer_noun("which players play in X") == "players"
    assert answer_noun("what currency is used in the country whose capital is home to the X") == "currency"
    assert answer_noun("who directed X") == "person"
    assert answer_noun("the club X plays for") == "club"
    assert answer_noun("what X") is None
    assert answer_noun("the one whose currency is X") is None


# A training-KB-like store (WorldCup2014 and PathQuestion relation names).
WC = [("Ann", "plays_in_club", "Club A"), ("Ann", "plays_for_country", "Norland"), ("Bob", "plays_in_club", "Club A"),
      ("Club A", "is_in_country", "Norland"), ("Cid", "plays_in_club", "Club B"), ("Club B", "is_in_country", "Sudland"),
      ("Bob", "plays_for_country", "Sudland"), ("Cid", "plays_for_country", "Norland")]


def _store(triples) -> KGStore:
    return KGStore.from_facts(Fact(h, r, t) for h, r, t in triples)


def test_entity_nouns_come_from_the_relations_an_entity_takes_part_in() -> None:
    store = _store(WC)
    ids = store.entity_id
    assert {"player", "footballer"} <= entity_nouns(store, ids["Ann"])
    assert {"club", "team"} <= entity_nouns(store, ids["Club A"]) and "player" not in entity_nouns(store, ids["Club A"])
    assert "country" in entity_nouns(store, ids["Norland"])
    assert "country" in set_nouns(store, [ids["Norland"], ids["Sudland"]])
    assert plural("city") == "cities" and plural("person") == "people" and plural("club") == "clubs"
    pq = _store([("__film__film__genre_x", "__common__topic__notable_types", "City_Town_Village")])
    assert "city" in entity_nouns(pq, pq.entity_id["__film__film__genre_x"])


def test_typed_question_names_the_answer_type_not_the_last_relation() -> None:
    store = _store(WC)
    club, country = store.relation_id["plays_in_club"], store.relation_id["is_in_country"]
    texts = {typed_question(store, store.entity_id["Bob"], [(club, True), (country, True)], random.Random(s)) for s in range(30)}
    assert all(t is not None and "X" in t for t in texts)
    assert all("countr" in t or "nation" in t for t in texts)  # the asked type ...
    assert all("is in" not in t for t in texts)  # ... and not the last relation's name
    assert any("plays in club" in t for t in texts)  # the first relation is named


def test_type_signature_keeps_the_direction() -> None:
    store = _store(WC)
    r = store.relation_id["is_in_country"]
    club = type_relations(store, np.asarray([store.entity_id["Club A"]]))
    country = type_relations(store, np.asarray([store.entity_id["Sudland"]]))
    assert 2 * r in club and 2 * r + 1 not in club
    assert 2 * r + 1 in country and 2 * r not in country


def test_split_same_offers_every_split_longest_side_first() -> None:
    splits = split_same("Do Aurelio Brandi and Emil Sarkany play in the same league?")
    assert ("Aurelio Brandi", "Emil Sarkany", "play in the league") in splits
    assert splits[0][1] == "Emil Sarkany play in" and splits[-1][1] == "Emil"
    assert split_same("Who founded Lumisk Labs?") == []


def test_role_nouns_of_descriptions_are_not_topics() -> None:
    from graphhop.kgqa.link import EntityLinker

    linker = EntityLinker(["composer", "The Magic Flute", "Vienna"])
    assert [m.text for m in linker.link("Was the composer of The Magic Flute born in Vienna?")] == ["the magic flute", "vienna"]
    assert [m.text for m in linker.link("Who is the composer?")] == ["composer"]  # nothing else: kept
