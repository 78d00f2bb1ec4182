"""Question types and their operations (count, boolean, comparison, relation, query) on hand-made graphs."""

from __future__ import annotations

import pytest

from graphhop.demo import demo_questions
from graphhop.read.facts import BiEncoderScorer, FactReader
from graphhop.read.graphs import graph_from_paths
from graphhop.read.ops import (
    OperationReader,
    comparison_direction,
    detect_qtype,
    parse_number,
    relation_sides,
    split_options,
)

FLUTE = ("The Magic Flute", "composed_by", "Wolfgang Amadeus Mozart")
SONATA = ("Moonlight Sonata", "composed_by", "Ludwig van Beethoven")
MOZART = [("Wolfgang Amadeus Mozart", "born_in", "Salzburg"), ("Wolfgang Amadeus Mozart", "died_in", "Vienna"),
          ("Wolfgang Amadeus Mozart", "birth_year", "1756")]
BEETHOVEN = [("Ludwig van Beethoven", "born_in", "Bonn"), ("Ludwig van Beethoven", "birth_year", "1770")]


@pytest.fixture(scope="module")
def ops(encoder) -> OperationReader:
    return OperationReader(FactReader(BiEncoderScorer(encoder=encoder)))


def test_detect_qtype_matches_every_demo_label() -> None:
    qs = demo_questions()
    assert [detect_qtype(q.question) for q in qs] == [q.qtype for q in qs]
    assert detect_qtype("How many entities are the plays in club of X?") == "count"
    assert detect_qtype("Is Paris the capital of France?") == "boolean"
    assert detect_qtype("Which has the greater population, Lyon or Nice?") == "comparison"
    assert detect_qtype("Who directed Top Gun or Grease?") == "query"  # ' or ' without a comparative
    assert detect_qtype("the parent of anna 's son ?") == "query"
    # regressions found on the dev sets: a "number of" attribute and a choice between two options
    assert detect_qtype("what is the jersey number of Karim_BENZEMA ?") == "query"
    assert detect_qtype("is pearl_starr 's mother a man or a woman ?") == "query"
    assert detect_qtype("What is the number of countries bordering Spain?") == "count"


def test_requests_are_not_yes_no_questions() -> None:
    # "can you name ..." asks for an answer (MetaQA-1H selection questions abstained as yes/no claims)
    for q in ("can you name a film directed by [Stuart Townsend]", "can you describe movie [Jam] in a few words",
              "Could you please tell me who directed Jam?", "can you give a few words describing what [Jam] is about"):
        assert detect_qtype(q) == "query", q
    for q in ("Can you tell me whether Paris is in France?", "could you tell me if Jam is a drama",
              "Can Mozart play the piano?", "Can you swim?"):
        assert detect_qtype(q) == "boolean", q


def test_detect_relation_questions() -> None:
    # the KQA Pro realizer's QueryRelation wording, and natural forms
    q = "How is Okechukwu UCHEBO related to Belgium (whose plays for country is Anthony VANDEN BORRE)?"
    assert detect_qtype(q) == "relation"
    assert relation_sides(q) == [("Okechukwu UCHEBO", "Belgium (whose plays for country is Anthony VANDEN BORRE)")]
    assert detect_qtype("What is the relationship between Mozart and Salzburg?") == "relation"
    assert detect_qtype("how are Mozart and Salzburg related") == "relation"
    assert relation_sides("What is the relation between Bosnia and Herzegovina and Edin DZEKO?") == [
        ("Bosnia", "Herzegovina and Edin DZEKO"), ("Bosnia and Herzegovina", "Edin DZEKO")]
    for q in ("How is the weather in Vienna?", "What is the capital of France?", "Is Paris related to France?",
              "How many players are related to Palermo?"):
        assert detect_qtype(q) != "relation", q
        assert relation_sides(q) == [], q


def test_verify_questions_of_the_kqapro_builder_are_boolean(ops) -> None:
    import random

    from graphhop.core import Fact
    from graphhop.datasets.kqapro import ground_template, program_template
    from graphhop.kb.store import TripleStore

    store = TripleStore.from_facts([Fact(p, "plays_in_club", c) for p, c in
                                    (("Abel_HERNANDEZ", "Palermo"), ("Paulo_DYBALA", "Juventus"))])
    tpl = program_template([{"function": "Find", "dependencies": [], "inputs": ["A"]},
                            {"function": "QueryAttr", "dependencies": [0], "inputs": ["r"]},
                            {"function": "VerifyStr", "dependencies": [1], "inputs": ["v"]}])
    for truth in (True, False):
        ex = ground_template(tpl, store, random.Random(1), truth=truth)
        assert detect_qtype(ex.question) == "boolean", ex.question
        res = ops.run(ex.question, graph_from_paths(ex.question, ex.gold_paths))
        assert res.qtype == "boolean" and res.answer.text == ex.answers[0] == ("yes" if truth else "no")


def test_option_parsing_numbers_and_direction() -> None:
    assert split_options("Who was born earlier, the composer of A or the composer of B?") == (
        "Who was born earlier", ["the composer of A", "the composer of B"])
    assert split_options("Lyon or Nice?") == ("", ["Lyon", "Nice"])
    assert parse_number("1756") == 1756.0 and parse_number("3.5 km") == 3.5 and parse_number("1756-01-27") == 1756.0
    assert parse_number("Salzburg") is None
    assert comparison_direction("Who was born earlier, A or B?") == "min"
    assert comparison_direction("Which has the greater area, A or B?") == "max"
    assert comparison_direction("Who is older, A or B?", "birth_year") == "min"  # older = earlier year
    assert comparison_direction("Who is older, A or B?", "age") == "max"


def test_speed_weight_and_depth_comparatives_are_comparisons() -> None:
    """Session 5: ``faster`` / ``slower`` and the like were read as plain questions (the answer was a value)."""
    from graphhop.read.ops import detect_qtype

    assert detect_qtype("Which train is faster, the Amber Comet or the Lake Sprinter?") == "comparison"
    assert comparison_direction("Which train is faster, A or B?") == "max"
    assert comparison_direction("Which lake is shallower, A or B?") == "min"
    assert comparison_direction("Which car is cheaper, A or B?") == "min"


def test_count_counts_the_answers_of_the_best_relation(ops) -> None:
    paths = [[("Switzerland", "borders", c)] for c in ("France", "Germany", "Italy", "Austria")]
    paths += [[("Switzerland", "official_language", lang)] for lang in ("German", "French", "Italian")]
    paths += [[("Switzerland", "currency", "Swiss franc")]]
    res = ops.run("How many countries border Switzerland?", graph_from_paths("q", paths))
    assert res.qtype == "count"
    assert res.answer.text == "4"
    assert sorted(res.trace["counted"]) == ["Austria", "France", "Germany", "Italy"]
    res = ops.run("How many official languages does Switzerland have?", graph_from_paths("q", paths))
    assert res.answer.text == "3"


def test_count_of_a_disjunction_is_the_union(ops) -> None:
    paths = [[("Abel", "plays_in_club", "Palermo")], [("Dybala", "plays_in_club", "Palermo")],
             [("Abel", "plays_for_country", "Uruguay")], [("Suarez", "plays_for_country", "Uruguay")],
             [("Cavani", "plays_for_country", "Uruguay")]]
    res = ops.run("How many entities are the players of club Palermo or the players for country Uruguay?",
                  graph_from_paths("q", paths))
    assert res.qtype == "count" and res.trace["join"] == "or"
    assert sorted(res.trace["counted"]) == ["Abel", "Cavani", "Dybala", "Suarez"]  # Abel once
    assert res.answer.text == "4"


def test_boolean_verifies_the_claimed_value(ops) -> None:
    graph = graph_from_paths("q", [[FLUTE, m] for m in MOZART])
    no = ops.run("Was the composer of The Magic Flute born in Vienna?", graph)
    assert (no.qtype, no.answer.text, no.trace["claim"]) == ("boolean", "no", "Vienna")
    assert ops.run("Was the composer of The Magic Flute born in Salzburg?", graph).answer.text == "yes"
    assert ops.run("Did the composer of The Magic Flute die in Vienna?", graph).answer.text == "yes"


def test_relation_returns_the_linking_fact_relation(ops) -> None:
    paths = [[("Okechukwu_UCHEBO", "plays_for_country", "Belgium")],
             [("Okechukwu_UCHEBO", "plays_in_club", "Cercle_Brugge"), ("Cercle_Brugge", "is_in_country", "Belgium")],
             [("Belgium", "plays_for_country_inverse", "Anthony_VANDEN_BORRE")]]
    graph = graph_from_paths("q", paths)
    q = "How is Okechukwu UCHEBO related to Belgium (whose plays for country is Anthony VANDEN BORRE)?"
    res = ops.run(q, graph)
    assert (res.qtype, res.answer.text, res.answers) == ("relation", "plays for country", ["plays for country"])
    assert res.trace["entities"] == ["Okechukwu_UCHEBO", "Belgium"]
    assert res.trace["facts"] == [["Okechukwu_UCHEBO", "plays_for_country", "Belgium"]]
    assert res.answer.support and all(n in graph.evidence_ids for n in res.answer.support)
    # the fact may point the other way, with the builder's ``_inverse`` relation: read as its base relation
    res = ops.run("What is the relationship between Cercle Brugge and Okechukwu UCHEBO?", graph)
    assert res.answer.text == "plays in club"
    # a described side is read to its entity first: the club of X is Cercle Brugge, in Belgium
    res = ops.run("How is the club of Okechukwu UCHEBO related to Belgium?", graph)
    assert res.trace["entities"] == ["Cercle_Brugge", "Belgium"] and res.answer.text == "is in country"
    # no linking fact, or an unknown entity: no answer
    assert ops.run("How is Anthony VANDEN BORRE related to Cercle Brugge?", graph).answer.text == ""
    none = ops.run("How is Atlantis related to Belgium?", graph)
    assert none.answer.text == "" and none.answers == [] and none.trace["reason"] == "no entity found on both sides"


def test_comparison_picks_the_holder_by_direction(ops) -> None:
    graph = graph_from_paths("q", [[FLUTE, m] for m in MOZART] + [[SONATA, b] for b in BEETHOVEN])
    q = "Who was born earlier, the composer of The Magic Flute or the composer of the Moonlight Sonata?"
    res = ops.run(q, graph)
    assert res.qtype == "comparison" and res.answer.text == "Wolfgang Amadeus Mozart"
    assert [p["value"] for p in res.trace["picks"]] == [1756.0, 1770.0]
    later = ops.run(q.replace("earlier", "later"), graph)
    assert later.answer.text == "Ludwig van Beethoven"
    one_sided = graph_from_paths("q", [[FLUTE, m] for m in MOZART] + [[SONATA, BEETHOVEN[0]]])
    assert ops.run(q, one_sided).answer.text == ""  # no value for the second option: no answer


def test_query_returns_every_answer_of_a_list_question(ops) -> None:
    paths = [[("Film A", "directed_by", "Joel Zwick")], [("Film B", "directed_by", "Joel Zwick")],
             [("Film A", "release_year", "1990")], [("Joel Zwick", "born_in", "Brooklyn")]]
    graph = graph_from_paths("q", paths)
    res = ops.run("what films did [Joel Zwick] direct", graph)
    assert res.qtype == "query"
    assert sorted(res.answers) == ["Film A", "Film B"]
    assert res.trace["relation_path"] == ["Joel Zwick", "^directed_by"]
    res = ops.run("where was [Joel Zwick] born", graph)
    assert res.answers == ["Brooklyn"]


def test_no_evidence_gives_no_answer(ops) -> None:
    from graphhop.graph import EvidenceGraph

    for q in ("What is the capital of Atlantis?", "How many moons does Atlantis have?",
              "Is Atlantis in Europe?", "Which is older, Atlantis or Mu?", "How is Atlantis related to Mu?"):
        res = ops.run(q, EvidenceGraph(q))
        assert res.answer.text in ("", "0", "no"), q
    assert ops.run("What is the capital of Atlantis?", EvidenceGraph("q")).answer.score == float("-inf")
