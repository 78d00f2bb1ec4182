"""Session 14 (kgp14): place levels from the KB's containment structure (:mod:`graphhop.kgqa.levels`: "which
**region** is X in" is not the town), a container named by the asked noun, and a count over things, not over
the values they hold (docs/RESULTS.md, issue 12, "Session 14 (kgp14)")."""

from __future__ import annotations

from typing import Any

import pytest

from graphhop.cli.kgqa import support_triples
from graphhop.kgqa.levels import Containment, level_move, level_of, named_by

FACTS = [
    ("Hollow Oak Farm", "location", "Brindle"), ("Kettle Farm", "location", "Oskby"),
    ("Sunmere Farm", "location", "Tallow"), ("Pell Orchard", "location", "Wick"),
    ("Brindle", "located in", "Westmarch"), ("Oskby", "located in", "Westmarch"),
    ("Tallow", "located in", "Eastfen"), ("Wick", "located in", "Amber Valley"),
    ("Westmarch", "country", "Valdoria"), ("Eastfen", "country", "Valdoria"), ("Amber Valley", "country", "Valdoria"),
    ("Brindle", "population", "4200"), ("Oskby", "population", "1800"), ("Tallow", "population", "950"),
    ("Birch Farm", "location", "Brindle"), ("Hollow Oak Farm", "owned by", "Mira Dask"),
    ("Birch Farm", "owned by", "Mira Dask"), ("Kettle Farm", "owned by", "Jon Arle"),
    ("Mira Dask", "born in", "Oskby"), ("Jon Arle", "born in", "Tallow"), ("Ola Venn", "born in", "Oskby"),
    ("Valdoria", "currency", "valdor"),
    ("Hearth Bakery", "flour from", "Stone Mill"), ("Crust House", "flour from", "Stone Mill"),
    ("Hearth Bakery", "makes", "Rye Knot"), ("Hearth Bakery", "makes", "Fig Roll"),
    ("Crust House", "makes", "Fig Roll"), ("Crust House", "makes", "Oat Ring"),
    ("Rye Knot", "first baked", "1901"), ("Fig Roll", "first baked", "1901"), ("Oat Ring", "first baked", "1950"),
]
#: A KB whose top level is its regions (no country above them).
NO_COUNTRY = [
    ("Ash Farm", "location", "Dunley"), ("Birch Farm", "location", "Marr"), ("Cole Farm", "location", "Dunley"),
    ("Dunley", "region", "Northwold"), ("Marr", "region", "Northwold"), ("Sele", "region", "Southwold"),
]


@pytest.fixture(scope="module")
def kgqa(kgqa_of: Any) -> Any:
    return kgqa_of(FACTS)


def _names(kgqa: Any, path: Any) -> list[str]:
    return sorted(kgqa.store.entities[e] for e in path.ends.tolist())


def _rels(kgqa: Any, path: Any) -> list[str]:
    return [("" if fwd else "^") + kgqa.store.relations[r] for r, fwd in path.steps]


def test_level_nouns_and_heights(kgqa: Any) -> None:
    assert (level_of("country"), level_of("wine region"), level_of("provinces"), level_of("county")) == (0, 1, 1, 2)
    assert level_of("town") is None and level_of(None) is None
    box = Containment(kgqa.store)
    names = {kgqa.store.relations[r] for r in box.relations}
    assert {"location", "located in", "country", "owned by", "born in"} <= names
    assert not names & {"population", "currency", "makes", "first baked"}  # numbers; one-to-one; not functional
    ids = {n: i for i, n in enumerate(kgqa.store.entities)}
    heights = {n: box.height(ids[n]) for n in ("Valdoria", "Westmarch", "Brindle", "Hollow Oak Farm", "Mira Dask")}
    # the farm is in a town (height 3) and owned by someone born in a town (4): the longest chain counts
    assert heights == {"Valdoria": 0, "Westmarch": 1, "Brindle": 2, "Hollow Oak Farm": 4, "Mira Dask": 3}


@pytest.mark.parametrize("noun, relations, ends", [
    ("region", ["location", "located in"], ["Westmarch"]),
    ("province", ["location", "located in"], ["Westmarch"]),
    ("country", ["location", "located in", "country"], ["Valdoria"]),
])
def test_a_level_noun_moves_up_to_its_level(kgqa: Any, reading_of: Any, noun: str, relations: list[str], ends: list[str]) -> None:
    reading = reading_of(kgqa, "Which region is Hollow Oak Farm in?", ("location",))
    moved = level_move(kgqa, reading.best, noun, [reading.best], reading.mention.entities)
    assert _rels(kgqa, moved) == relations and _names(kgqa, moved) == ends


def test_the_scorer_path_cut_back_to_the_town_is_moved_up_again(kgqa: Any, reading_of: Any) -> None:
    """Answer typing cut ``born in → located in`` back to the town: the scorer's own path is the region."""
    reading = reading_of(kgqa, "Which region was Mira Dask born in?", ("born in", "located in"), ("born in",))
    town = reading.paths[1]
    moved = level_move(kgqa, town, "region", [reading.best], reading.mention.entities)
    assert _rels(kgqa, moved) == ["born in", "located in"] and _names(kgqa, moved) == ["Westmarch"]


def test_no_move_at_or_above_the_level_nor_for_settlements(kgqa: Any, reading_of: Any) -> None:
    region = reading_of(kgqa, "Which region is Hollow Oak Farm in?", ("location", "located in")).best
    country = reading_of(kgqa, "Which region is Hollow Oak Farm in?", ("location", "located in", "country")).best
    town = reading_of(kgqa, "Which town is Hollow Oak Farm in?", ("location",)).best
    assert level_move(kgqa, region, "region") is None
    assert level_move(kgqa, country, "region") is None  # never down
    assert level_move(kgqa, town, "town") is None and level_move(kgqa, town, "village") is None


def test_a_container_named_by_the_noun(kgqa: Any, reading_of: Any) -> None:
    assert named_by(kgqa.store, "valley", [kgqa.store.entities.index("Amber Valley")])
    reading = reading_of(kgqa, "Which valley is Pell Orchard in?", ("location",))
    moved = level_move(kgqa, reading.best, "valley", [reading.best], reading.mention.entities)
    assert _rels(kgqa, moved) == ["location", "located in"] and _names(kgqa, moved) == ["Amber Valley"]


def test_a_kb_without_a_country_level_never_moves_the_region_down(kgqa_of: Any, reading_of: Any) -> None:
    kb = kgqa_of(NO_COUNTRY)
    region = reading_of(kb, "Which region is Ash Farm in?", ("location", "region")).best
    town = reading_of(kb, "Which region is Ash Farm in?", ("location",)).best
    assert Containment(kb.store).level(region.ends.tolist()) == 0
    assert level_move(kb, region, "region") is None
    assert level_move(kb, town, "region") is None  # the town is at height 1: no evidence to act on


@pytest.mark.parametrize("question, answer, facts", [
    ("Which region is Hollow Oak Farm in?", "Westmarch", {FACTS[0], FACTS[4]}),
    ("Which region was Mira Dask born in?", "Westmarch", {("Mira Dask", "born in", "Oskby"), FACTS[5]}),
    ("In which province is Kettle Farm?", "Westmarch", {FACTS[1], FACTS[5]}),
])
def test_ask_a_level_answers_that_level_with_its_chain(kgqa: Any, question: str, answer: str, facts: set) -> None:
    """The scorer stops at the town (``born in``, ``location``); the level noun moves the answer up one step."""
    res = kgqa.ask(question)
    assert res["answer"] == answer and facts <= set(support_triples(res))
    assert res["trace"]["answer_type"]["level"] is True


def test_ask_which_town_stays_at_the_town(kgqa: Any) -> None:
    res = kgqa.ask("Which town is Kettle Farm in?")
    assert res["answer"] == "Oskby" and "level" not in res["trace"]["answer_type"]


def test_a_count_of_things_is_not_a_count_of_their_values() -> None:
    """Several numbers answer a count of things only as values (the pastries' years are not pastries)."""
    from graphhop.kgqa.ops import _counts_values

    assert _counts_values(None, "which different pastries are made by X", [], ["1901", "1950"])
    assert not _counts_values(None, "which different years were X made", [], ["1901", "1950"])
    assert not _counts_values(None, "which different pastries are made by X", [], ["Rye Knot", "1950"])
    assert _counts_values(None, "which employees does X have", [], ["120"])  # one number: a stored count, or read again


def test_value_holders_count_the_pastries(kgqa: Any, reading_of: Any) -> None:
    from graphhop.kgqa.ops import _value_holders

    reading = reading_of(kgqa, "How many different pastries are made by the bakeries that buy their flour from Stone Mill?",
                         ("^flour from", "makes", "first baked"))
    res = _value_holders(kgqa, (reading, reading.best))
    assert res is not None and res["supported"]
    assert sorted(res["answers"]) == ["Fig Roll", "Oat Ring", "Rye Knot"]
    assert res["trace"]["relation_path"] == ["^flour from", "makes"]
    store = kgqa.store
    support = {(store.entities[store.heads[e]], store.relations[store.rels[e]], store.entities[store.tails[e]])
               for chain in res["chains"] for e in chain}
    assert {("Crust House", "makes", "Oat Ring"), ("Hearth Bakery", "makes", "Rye Knot")} <= support
