"""Session 11 (kgw12): a ``which <noun>`` question that names a thing is not answered by a number the scorer reaches,
and ``which <plural> <verb> X`` is a subject and its verb, not a compound noun (docs/RESULTS.md, issue 12,
"Session 11 (kgw12)")."""

from __future__ import annotations

from typing import Any

import pytest

from graphhop.kgqa.end_type import asked_noun, type_phrase
from graphhop.kgqa.ops import asks_thing

FACTS = [
    ("Brackenhill Orchard", "area_hectares", "14"), ("Brackenhill Orchard", "location", "Fennick Cross"),
    ("Fennick Cross", "population", "640"), ("Greyspire Orchard", "location", "Wenlow"),
    ("Greyspire Orchard", "area_hectares", "9"), ("Wenlow", "population", "1210"),
    ("Greyspire Orchard", "growsVariety", "Hollin Red"), ("Brackenhill Orchard", "growsVariety", "Hollin Red"),
]


@pytest.mark.parametrize("text, thing", [
    ("which region is X in", True), ("in which province was the judge of X born", True),
    ("what passport does X hold", True), ("what year was X founded", False), ("which release year has X", False),
    ("what is the population of X", False), ("how tall is X", False), ("who owns X", False),
    ("what was the release year of X", False), ("what were the release dates of X directed films", False),
    ("what is the jersey number of X", False),
])
def test_a_type_noun_names_a_thing_unless_it_names_a_value(text: str, thing: bool) -> None:
    assert asks_thing(text) is thing


@pytest.mark.parametrize("text, noun", [
    ("which orchards grow x", "orchard"), ("which airports serve x", "airport"), ("which winery produces x", "winery"),
    ("name a soccer club x", "club"), ("which football club does x play for", "club"),
    ("name the soccer clubs x", "club"),
])
def test_a_plural_before_a_verb_and_the_mask_is_the_asked_noun(text: str, noun: str) -> None:
    assert asked_noun(text) == noun


def test_a_compound_before_an_auxiliary_keeps_its_modifier() -> None:
    assert type_phrase("which drug makers have their head office in x").words == ("drug", "makers")


def test_a_thing_question_is_not_answered_by_a_number(kgqa_of: Any) -> None:
    kgqa = kgqa_of(FACTS)
    got = kgqa.ask("Which place is Brackenhill Orchard in?")
    assert got["answer"] == "Fennick Cross"
    assert kgqa.ask("How big is Brackenhill Orchard in hectares?")["answer"] == "14"


def test_a_number_with_facts_or_letters_is_a_thing(kgqa_of: Any) -> None:
    from graphhop.kgqa.cover import walk
    from graphhop.kgqa.ops import _bare_values

    kgqa = kgqa_of(FACTS + [("Hollin Red", "track", "2001"), ("2001", "length", "212"),
                            ("Hollin Red", "games", "1996_Summer_Olympics")])
    ids = {name: i for i, name in enumerate(kgqa.store.relations)}
    red = [kgqa.store.entities.index("Hollin Red")]
    assert not _bare_values(kgqa, walk(kgqa.store, red, [(ids["track"], True)], 1.0))
    assert not _bare_values(kgqa, walk(kgqa.store, red, [(ids["games"], True)], 1.0))
    orchard = [kgqa.store.entities.index("Brackenhill Orchard")]
    assert _bare_values(kgqa, walk(kgqa.store, orchard, [(ids["area_hectares"], True)], 1.0))


def test_a_count_of_a_plural_subject_counts_the_subjects(kgqa_of: Any) -> None:
    assert kgqa_of(FACTS).ask("How many orchards grow Hollin Red?")["answer"] == "2"


def test_a_date_question_keeps_a_path_that_gives_dates(kgqa_of: Any) -> None:
    from graphhop.kgqa.cover import _asks_date, gives_dates, walk

    kgqa = kgqa_of(FACTS + [("Ostrander & Pyke", "foundingYear", "1888"), ("Ostrander & Pyke", "employeeCount", "125"),
                            ("Ostrander & Pyke", "inception", "May 1888")])
    ids = {name: i for i, name in enumerate(kgqa.store.relations)}
    firm = [kgqa.store.entities.index("Ostrander & Pyke")]
    by = {r: walk(kgqa.store, firm, [(ids[r], True)], 1.0) for r in ("foundingYear", "employeeCount", "inception")}
    assert gives_dates(kgqa, by["foundingYear"]) and gives_dates(kgqa, by["inception"])
    assert not gives_dates(kgqa, by["employeeCount"])
    assert _asks_date("what year did the firm that employs X s creator get started") and _asks_date("when was X founded")
    assert not _asks_date("how many people work for X")


def test_coverage_does_not_move_to_a_round_trip(kgqa_of: Any) -> None:
    from graphhop.kgqa.cover import _round_trip, walk

    kgqa = kgqa_of(FACTS)
    ids = {name: i for i, name in enumerate(kgqa.store.relations)}
    red = [kgqa.store.entities.index("Hollin Red")]
    grows, there = (ids["growsVariety"], False), (ids["location"], True)
    trip = walk(kgqa.store, red, [grows, (ids["growsVariety"], True)], 1.0)
    straight = walk(kgqa.store, red, [grows, there], 1.0)
    assert _round_trip(straight, trip) and not _round_trip(straight, straight) and not _round_trip(trip, trip)
