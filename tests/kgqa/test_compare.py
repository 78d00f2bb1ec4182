"""Comparison options as a stranger words them (:func:`graphhop.kgqa.compare.read_options`): ``the one at X``,
``whose N ..., A's or B's``, a value held by a related entity (``based in the bigger city``)."""

from __future__ import annotations

import pytest

from graphhop.cli.kgqa import support_triples
from graphhop.kgqa.compare import read_options, split_choice


def _read(question: str, noun: str | None) -> tuple[str, list[str], str | None, bool]:
    prefix, options = split_choice(question)
    return read_options(prefix, options, noun)


def test_the_pronoun_one_stands_for_the_asked_noun() -> None:
    prefix, sides, noun, by_owner = _read("Which brewer is younger: the one at Ashgate or the one at Morrow Hall?", "brewer")
    assert sides == ["the brewer at Ashgate", "the brewer at Morrow Hall"] and not by_owner
    assert prefix == "which is younger" and noun == "brewer"  # the sides are brewers: the noun would walk back


def test_whose_compares_what_the_options_own_and_answers_with_the_owner() -> None:
    assert _read("Whose captain is older, Tarn Rovers's or Eddow Town's?", None) == (
        "which is older", ["Tarn Rovers's captain", "Eddow Town's captain"], "captain", True)
    assert _read("Whose captain is older, Tarn Rovers or Eddow Town?", None)[1] == ["Tarn Rovers's captain",
                                                                                   "Eddow Town's captain"]


def test_a_value_of_a_related_entity_is_read_from_that_entity() -> None:
    assert _read("Which club plays in the older stadium, Tarn Rovers or Eddow Town?", "club") == (
        "which is older", ["the stadium Tarn Rovers plays in", "the stadium Eddow Town plays in"], "stadium", True)


def test_options_named_plainly_are_left_alone() -> None:
    for question, noun in (("Which city has a larger population, Ashgate or Morrow?", "city"),
                           ("Who was born earlier, the founder of Ashgate or the founder of Morrow Hall?", "person"),
                           ("Which has the bigger fleet, Ashgate or Morrow?", None)):
        prefix, options = split_choice(question)
        assert read_options(prefix, options, noun) == (prefix, options, noun, False)


FACTS = [
    ("Tarn Rovers", "head coach", "Ilsa Brom"), ("Eddow Town", "head coach", "Pavel Kord"),
    ("Ilsa Brom", "birth year", "1971"), ("Pavel Kord", "birth year", "1983"),
    ("Tarn Rovers", "founded", "1890"), ("Eddow Town", "founded", "1921"),
    ("Tarn Rovers", "home ground", "Brom Park"), ("Eddow Town", "home ground", "Kettle Lane"),
    ("Brom Park", "opened", "1902"), ("Kettle Lane", "opened", "1899"),
    ("Brom Park", "capacity", "31000"), ("Kettle Lane", "capacity", "12000"),
    ("Tarn Rovers", "based in", "Tarnwick"), ("Eddow Town", "based in", "Eddow"),
]


@pytest.fixture(scope="module")
def kgqa(kgqa_of):
    return kgqa_of(FACTS)


def _triples(result) -> set[tuple[str, str, str]]:
    return set(support_triples(result))


def test_the_one_at_each_club_is_compared_by_birth_year(kgqa) -> None:
    res = kgqa.ask("Which coach is older: the one at Tarn Rovers or the one at Eddow Town?")
    assert res["qtype"] == "comparison" and res["answer"] == "Ilsa Brom"
    assert res["trace"]["relation_path"] == ["birth year"]
    assert {FACTS[0], FACTS[1], FACTS[2], FACTS[3]} <= _triples(res)


def test_whose_coach_answers_with_the_club(kgqa) -> None:
    res = kgqa.ask("Whose coach was born later, Tarn Rovers's or Eddow Town's?")
    assert res["answer"] == "Eddow Town" and res["trace"]["relation_path"] == ["birth year"]
    assert {FACTS[0], FACTS[1], FACTS[2], FACTS[3]} <= _triples(res)


PHARMA = [
    ("Velm Labs", "founded by", "Ria Osk"), ("Tamsulin", "manufactured by", "Velm Labs"), ("Tamsulin", "approval year", "1994"),
    ("Corvex", "approval year", "1986"), ("Corvex", "manufactured by", "Onder Pharma"), ("Ria Osk", "birth year", "1950"),
    ("Velm Labs", "founded year", "1961"), ("Onder Pharma", "founded by", "Ivo Lantz"), ("Ivo Lantz", "birth year", "1899"),
]


def test_a_side_naming_its_own_type_is_typed_by_it(kgqa_of) -> None:
    from graphhop.kgqa.compare import resolve

    kgqa = kgqa_of(PHARMA)
    side = resolve(kgqa, "the drug Velm Labs makes", "got")  # "Which got approved first, ...": no type in the prefix
    assert side["noun"] == "drug" and kgqa.store.entities[side["entity"]] == "Tamsulin"
    assert resolve(kgqa, "the founder of Velm Labs", "person")["noun"] == "person"  # "of": the prefix's noun
    res = kgqa.ask("Which got approved first, the drug Velm Labs makes or Corvex?")
    assert res["answer"] == "Corvex" and res["trace"]["relation_path"] == ["approval year"]


def test_an_owned_noun_of_two_words_runs_up_to_the_verb() -> None:
    assert _read("Whose creative director was born later, Maison Velour's or Casa Delune's?", None) == (
        "which was born later", ["Maison Velour's creative director", "Casa Delune's creative director"],
        "creative director", True)


def test_an_asked_noun_of_two_words_before_a_related_value() -> None:
    assert _read("Which fashion house is based in the bigger city, Maison Velour or Casa Delune?", "house") == (
        "which is bigger", ["the city Maison Velour is based in", "the city Casa Delune is based in"], "city", True)


def test_a_word_ending_in_er_is_not_a_comparative() -> None:
    for question in ("Which club is based in the river city, Tarn Rovers or Eddow Town?",
                     "Which club plays in the other league, Tarn Rovers or Eddow Town?"):
        prefix, options = split_choice(question)
        assert read_options(prefix, options, "club") == (prefix, options, "club", False)


def test_a_name_starting_with_one_is_not_the_pronoun() -> None:
    prefix, options = split_choice("Which band formed earlier, One Direction or Take That?")
    assert read_options(prefix, options, "band", lambda text: True) == (prefix, options, "band", False)
    assert read_options(prefix, options, "band")[1] == options  # no preposition after "One": a name
    assert read_options(prefix, ["the one Ilsa Brom coaches", "Eddow Town"], "club", lambda text: False)[1] == [
        "the club Ilsa Brom coaches", "Eddow Town"]
