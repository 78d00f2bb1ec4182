"""Session 13 (kgf13): comparisons as strangers word them — options split at a dash or before a trailing question,
possessive options that elide the asked noun, sides that resolve to things (never to values), ``older`` on year
values — and :func:`graphhop.kgqa.cover.cut_back` taking a prefix whose relations the question names in other
words (docs/RESULTS.md, issue 12, "Session 13 (kgf13)")."""

from __future__ import annotations

from typing import Any

import pytest

from graphhop.cli.kgqa import support_triples
from graphhop.kgqa.compare import read_options, resolve, split_choice
from graphhop.read.ops import comparison_direction


@pytest.mark.parametrize("question, prefix, options", [
    ("Which flour mill is older - the one supplying Ashby Loaves or the one supplying Crumb Hall?",
     "Which flour mill is older", ["the one supplying Ashby Loaves", "the one supplying Crumb Hall"]),
    ("The brewer behind Copperline or the brewer behind Harbourmaster: who is younger?",
     "who is younger", ["The brewer behind Copperline", "the brewer behind Harbourmaster"]),
    ("Casa Lunaris or Maison Verelle - which one has more staff?", "which one has more staff",
     ["Casa Lunaris", "Maison Verelle"]),
    ("Which was founded first: Tarn Rovers or Eddow Town?", "Which was founded first", ["Tarn Rovers", "Eddow Town"]),
    ("Tarn Rovers or Eddow Town?", "", ["Tarn Rovers", "Eddow Town"]),
    ("Is the Kessel-Ward line older or not?", "", ["Is the Kessel-Ward line older", "not"]),  # a hyphen is no dash
])
def test_options_split_at_a_dash_and_before_a_trailing_question(question: str, prefix: str, options: list[str]) -> None:
    assert split_choice(question) == (prefix, options)


def test_possessive_options_elide_the_asked_noun() -> None:
    prefix, options = split_choice("Which team was founded earlier, Ilsa Brom's or Pavel Kord's?")
    assert read_options(prefix, options, "team") == ("which was founded earlier", ["Ilsa Brom's team", "Pavel Kord's team"],
                                                     "team", False)


def test_older_on_year_values_is_the_smaller_year() -> None:
    """``est.`` names no date, but its values are years: the older mill has the smaller one."""
    assert comparison_direction("which mill is older", "est.") == "max"  # by the relation's name alone
    assert comparison_direction("which mill is older", "est.", dates=True) == "min"
    assert comparison_direction("which mill is bigger", "est.", dates=True) == "max"


FACTS = [
    ("Ashby Loaves", "flour from", "Fallow Mill"), ("Crumb Hall", "flour from", "Greyside Mill"),
    ("Fallow Mill", "est.", "1867"), ("Greyside Mill", "est.", "1890"),
    ("Fallow Mill", "staff", "14"), ("Greyside Mill", "staff", "31"),
    ("Fallow Mill", "location", "Wendle"), ("Greyside Mill", "location", "Brackmere"),
    ("Ilsa Brom", "team", "Tarn Velo"), ("Pavel Kord", "team", "Eddow Racing"),
    ("Tarn Velo", "manager", "Rudo Keller"), ("Eddow Racing", "manager", "Hal Lenn"),
    ("Rudo Keller", "date of birth", "1975"), ("Hal Lenn", "date of birth", "1980"),
    ("Tarn Velo", "inception", "2015"), ("Eddow Racing", "inception", "1996"),
    ("2024 Tour of Wendle", "winner", "Ilsa Brom"), ("2024 Tour of Wendle", "start point", "Wendle"),
]


@pytest.fixture(scope="module")
def kgqa(kgqa_of: Any) -> Any:
    return kgqa_of(FACTS)


def test_an_event_named_by_its_year_is_a_thing_not_a_value(kgqa: Any, reading_of: Any) -> None:
    event = reading_of(kgqa, "Which race did Ilsa Brom win?", ("^winner",)).best
    year = reading_of(kgqa, "When was Fallow Mill established?", ("est.",)).best
    assert kgqa.is_numeric(event) and not kgqa.is_value(event)  # "2024 Tour of Wendle" starts with a number
    assert kgqa.is_value(year)


def test_a_side_resolves_to_a_thing(kgqa: Any) -> None:
    side = resolve(kgqa, "the mill supplying Crumb Hall", "mill")
    assert kgqa.store.entities[side["entity"]] == "Greyside Mill"


def test_a_dash_choice_of_described_sides_on_year_values(kgqa: Any) -> None:
    res = kgqa.ask("Which flour mill is older - the one supplying Ashby Loaves or the one supplying Crumb Hall?")
    assert res["qtype"] == "comparison" and res["answer"] == "Fallow Mill"
    assert res["trace"]["relation_path"] == ["est."]
    assert {FACTS[0], FACTS[1], FACTS[2], FACTS[3]} <= set(support_triples(res))


def test_a_trailing_question_after_described_options(kgqa: Any) -> None:
    res = kgqa.ask("Ilsa Brom's team manager or Pavel Kord's team manager: which one is younger?")
    assert res["answer"] == "Hal Lenn" and res["trace"]["relation_path"] == ["date of birth"]
    assert {FACTS[8], FACTS[9], FACTS[10], FACTS[11], FACTS[12], FACTS[13]} <= set(support_triples(res))


AIRLINES = [
    ("Tern Alliance", "has_member", "Corvane Air"), ("Tern Alliance", "has_member", "Bluegull Airways"),
    ("Corvane Air", "hub_airport", "Port Selby Airport"), ("Bluegull Airways", "hub_airport", "Kessa Field"),
    ("Port Selby Airport", "serves_city", "Port Selby"), ("Kessa Field", "serves_city", "Kessa"),
    ("Corvane Air", "founded_by", "Tomas Ferrow"), ("Bluegull Airways", "founded_by", "Tomas Ferrow"),
    ("Corvane Air", "operates", "Skerry Dart"), ("Bluegull Airways", "operates", "Skerry Longreach"),
    ("Skerry Dart", "manufacturer", "Oberlin Aeroworks"), ("Skerry Longreach", "manufacturer", "Oberlin Aeroworks"),
    ("Port Selby Airport", "elevation_m", "57"), ("Kessa Field", "elevation_m", "1046"),
]


def test_a_cut_back_prefix_may_name_its_relation_in_other_words(kgqa_of: Any, reading_of: Any) -> None:
    """"which airlines are in X" over ``has_member → hub_airport``: ``are in`` is not ``has member`` word for word,
    yet the cut is a rival for answer typing, which takes it (airlines, not their airports)."""
    from graphhop.kgqa.cover import cut_back

    kgqa = kgqa_of(AIRLINES)
    reading = reading_of(kgqa, "Which airlines are in the Tern Alliance?", ("has_member", "hub_airport"))
    cut = cut_back(kgqa, reading, reading.text)
    assert cut is not None and {kgqa.store.entities[e] for e in cut.ends.tolist()} == {"Corvane Air", "Bluegull Airways"}
    assert cut_back(kgqa, reading_of(kgqa, "Which airlines are in the Tern Alliance?", ("has_member",)),
                    reading.text) is None  # nothing to cut from one hop


def test_which_airlines_are_in_an_alliance_answers_the_members(kgqa_of: Any) -> None:
    kgqa = kgqa_of(AIRLINES)
    res = kgqa.ask("Which airlines are in the Tern Alliance?")
    assert set(res["answers"]) == {"Corvane Air", "Bluegull Airways"}
    assert {AIRLINES[0], AIRLINES[1]} <= set(support_triples(res))
