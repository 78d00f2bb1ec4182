"""Session 16 (kgn16): what the question asks for (:mod:`graphhop.kgqa.asked`) and the type veto's fallback.

Three readings of the asked noun and one fallback, each on small hand-made KBs in ``tests/kgqa/data_typing`` in
several naming styles (plain words: ``hand15``, ``districts``; snake_case: ``schools``, ``hotels``,
``ferries_snake``; camelCase: ``labels``, ``foods``, ``ferries_camel``; stored inversely: ``districts``' ``superintendent
of``, ``ferries_snake``'s ``operated_by``, ``foods``' ``madeBy``). ``hand15`` is the lead's hand-check KB of session 15.

1. A compound's head is its last word, also before the compound's verb ("which district **superintendent** oversees").
2. A relation named by a noun and a final preposition names its subject (``superintendent of``).
3. A noun that is a word of the topic's own name does not type the answer ("which ferries does Brannock Ferries run").
4. A vetoed "who" gives way to the best path the veto does not contradict, when its ends are agents.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


def _ids(kgqa: Any, *names: str) -> list[int]:
    return [kgqa.store.entities.index(n) for n in names]


@pytest.mark.parametrize("question, noun", [
    ("which district superintendent oversees the school where x teaches", "superintendent"),
    ("which school district superintendent oversees x", "superintendent"),
    ("which band member wrote the song x", "member"),
    ("which record label founder was born in x", "founder"),
    ("which label founder started the label that released x", "founder"),
    # a subject and its verb stay as they were read
    ("which company built ships for x", "company"),
    ("which winery produces wines for x", "winery"),
    ("which team plays football in x", "team"),
    ("what river flows through the city", "river"),
    ("which player scored goals in x", "player"),
    ("which orchards grow apples in x", "orchard"),
    ("which football club does x play for", "club"),
    ("which outfit actually built x", "outfit"),  # an adverb before the verb
    ("which company first made the engine of x", "company"),
    ("which co op presses a cider from x", "co"),  # "co-op" split by the tokenizer: no compound of two letters
    ("which school district is x in", "district"),
    ("which national team plays in x", "national team"),
])
def test_the_head_of_a_compound_is_its_last_word(question: str, noun: str) -> None:
    from graphhop.kgqa.end_type import asked_noun, type_phrase

    assert asked_noun(question, phrase=True) == noun
    if noun == "superintendent":
        assert type_phrase(question).verb == "oversees"


@pytest.mark.parametrize("relation, subject", [
    ("superintendent of", True), ("member of", True), ("managing_director_of", True), ("chiefExecutiveOf", True),
    ("located in", False), ("founded by", False), ("sold in", False), ("headquarteredIn", False),
    ("country of citizenship", False), ("currency", False), ("lives in", False),
])
def test_a_relation_named_by_a_noun_and_a_preposition_names_its_subject(relation: str, subject: bool) -> None:
    from graphhop.kgqa.asked import names_subject

    assert names_subject(relation) is subject


def test_the_superintendent_of_a_district_is_its_subject(typing_kb: Any) -> None:
    """``Edda Harlan superintendent of North Vale District``: Edda is the superintendent, the district is none."""
    from graphhop.kgqa.veto import judge

    kgqa = typing_kb("districts")
    assert judge(kgqa, ("noun", "superintendent"), _ids(kgqa, "Edda Harlan")) == 1
    assert judge(kgqa, ("noun", "superintendent"), _ids(kgqa, "North Vale District")) == -1
    assert kgqa.typer.noun_role("superintendent", _ids(kgqa, "Piet Varga")) == 1
    assert kgqa.typer.noun_role("superintendent", _ids(kgqa, "Eastmarsh District")) == -1


@pytest.mark.parametrize("kb, question, answer, support", [
    ("schools", "Which district superintendent oversees the school where Mara Lind teaches?", "Edda Harlan", ["f0", "f2", "f4"]),
    ("schools", "Which district superintendent oversees Fenmoor Academy?", "Piet Varga", ["f3", "f5"]),
    ("districts", "Which district superintendent oversees the school where Mara Lind teaches?", "Edda Harlan", ["f0", "f2", "f4"]),
    ("districts", "Which district superintendent is in charge of Fenmoor Academy?", "Piet Varga", ["f3", "f5"]),
    ("labels", "Which label founder started the label that released Quiet Harbour?", "Ruth Okello", ["f0", "f2"]),
])
def test_the_compound_asks_for_its_head(typing_kb: Any, kb: str, question: str, answer: str, support: list[str]) -> None:
    """Read as ``district`` / ``label``, the veto took the right person for no district and fell back to the district."""
    res = typing_kb(kb).ask(question)
    assert res["supported"] and res["answers"] == [answer] and res["support"] == support
    assert "type_veto" not in res["trace"] and res["trace"]["answer_type"]["noun"] in ("superintendent", "founder")


@pytest.mark.parametrize("kb, question, answers", [
    ("hand15", "Which ferries does Brannock Ferries run?", ["Gull Runner", "Tidewell"]),
    ("ferries_snake", "Which ferries does Brannock Ferries run?", ["Gull Runner", "Tidewell"]),
    ("ferries_camel", "Which ferries does Brannock Ferries run?", ["Gull Runner", "Tidewell"]),
    ("ferries_camel", "How many ferries does Brannock Ferries run?", ["2"]),
    ("hotels", "Which hotels does Corvo Hotels manage?", ["Corvo Lakeside", "Grand Corvo"]),
    ("foods", "Which foods does Orvane Foods make?", ["Orvane Oat Bar", "Orvane Rye Crisp"]),
])
def test_a_noun_of_the_topics_name_types_nothing(typing_kb: Any, kb: str, question: str, answers: list[str]) -> None:
    """The ferries of Brannock Ferries are the ships it operates, not the port one of them sails to (moved there
    by the noun's fit before)."""
    res = typing_kb(kb).ask(question)
    assert res["supported"] and sorted(res["answers"]) == answers
    assert res["trace"]["answer_type"]["topic_name"] is True and len(res["trace"]["relation_path"]) == 1


@pytest.mark.parametrize("kb, question, relation", [
    ("hand15", "Who runs Brannock Ferries?", "^chief executive of"),
    ("ferries_snake", "Who operates Brannock Ferries?", "^chief_executive_of"),
    ("ferries_camel", "Who runs Brannock Ferries?", "^chiefExecutiveOf"),
    ("ferries_camel", "Who operates Brannock Ferries?", "^chiefExecutiveOf"),  # not the builders of its ships
])
def test_a_vetoed_who_gives_way_to_the_agent(typing_kb: Any, kb: str, question: str, relation: str) -> None:
    """The ships the company operates are made things, no "who"; the chief executive is the scorer's next reading."""
    res = typing_kb(kb).ask(question)
    assert res["supported"] and res["answers"] == ["Ines Marrow"] and res["support"] == ["f10"]
    assert res["trace"]["type_veto"]["fallback"] == [relation]


def test_the_fallback_is_the_best_path_not_contradicted(typing_kb: Any, reading_of: Any) -> None:
    """Under the floor, the first path the veto does not contradict is taken only when it fits positively and does
    not walk on from the vetoed ends; a neutral one (a place) in between withholds."""
    from graphhop.kgqa.link import masked
    from graphhop.kgqa.veto import type_veto

    kgqa = typing_kb("hand15")
    question = "Who runs Brannock Ferries?"
    reading = reading_of(kgqa, question, ("operates",), ("operates", "built by"), ("^chief executive of",))
    reading.probs = np.array([0.97, 0.001, 0.029])
    text = masked(question, [reading.mention])
    moved, trace = type_veto(kgqa, reading, text)
    assert trace["fallback"] == ["^chief executive of"] and "withhold" not in trace
    placed = reading_of(kgqa, question, ("operates",), ("^chief executive of", "born in"), ("^chief executive of",))
    placed.probs = np.array([0.97, 0.001, 0.029])
    assert type_veto(kgqa, placed, text)[1]["withhold"] is True


@pytest.mark.parametrize("name, noun, named", [
    ("Brannock Ferries", "ferry", True), ("Corvo Hotels", "hotel", True), ("brannock ferries", "ferries", True),
    ("Corlitz Magistrates' Court", "court", False),  # a singular head: the topic's own kind, which still types
    ("Brannock Ferries", "ship", False), ("Amber River", "river", False),
])
def test_only_a_plural_word_of_the_name_is_the_topics_trade(name: str, noun: str, named: bool) -> None:
    from graphhop.kgqa.asked import names_topic
    from graphhop.kgqa.link import Mention

    reading = type("R", (), {"mention": Mention(0, 1, (0,), name)})()
    assert names_topic(reading, noun) is named
    assert names_topic(reading, None) is False
