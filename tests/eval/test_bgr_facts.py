"""``eval/bgr_facts.py``: evidence scored by the facts its sentences state."""

from __future__ import annotations

import pytest

from graphhop.eval.bgr_facts import FACT_MEASURES, fact_measures, restatements, statement_facts
from graphhop.eval.experiment import Experiment, System
from graphhop.eval.measures import Gold, Prediction
from graphhop.graph import EvidenceGraph

RECORDS = [
    {"evidence": [{"text": "Liverpool FC is located in England.", "facts": [["Liverpool_FC", "located_in", "England"]]},
                  {"text": "Steven Gerrard plays for the club Liverpool FC.", "facts": [["Steven_Gerrard", "club", "Liverpool_FC"]]}]},
    {"evidence": [{"text": "Liverpool FC is located in England and is the club of Glen Johnson.",
                   "facts": [["Liverpool_FC", "located_in", "England"], ["Glen_Johnson", "club", "Liverpool_FC"]]},
                  {"text": "Liverpool FC is the club of Glen Johnson and is located in England.",
                   "facts": [["Glen_Johnson", "club", "Liverpool_FC"], ["Liverpool_FC", "located_in", "England"]]},
                  {"text": "Anfield is in Liverpool.", "facts": [["Anfield", "in", "Liverpool"]]}]},
]


def graph(*texts: str) -> EvidenceGraph:
    g = EvidenceGraph("where is the club of Steven Gerrard?")
    for i, t in enumerate(texts):
        g.add_evidence(f"n{i}", t)
        g.add_edge(g.root if i == 0 else f"n{i - 1}", f"n{i}")
    return g


def test_a_restated_fact_scores_at_fact_level_not_at_sentence_level():
    facts = statement_facts(RECORDS)
    assert facts["liverpool fc is located in england."] == frozenset({("Liverpool_FC", "located_in", "England")})
    gold = graph("Steven Gerrard plays for the club Liverpool FC.", "Liverpool FC is located in England and is the club of Glen Johnson.")
    # the twin (same facts, other order) and the shorter variant (one of the two facts)
    twin = graph("Steven Gerrard plays for the club Liverpool FC.", "Liverpool FC is the club of Glen Johnson and is located in England.")
    short = graph("Steven Gerrard plays for the club Liverpool FC.", "Liverpool FC is located in England.")
    extra = graph("Steven Gerrard plays for the club Liverpool FC.", "Liverpool FC is located in England.", "Anfield is in Liverpool.")
    exp = Experiment(tuple(fact_measures(facts)), report="dev")
    systems = {name: System(lambda qs, g=g: [Prediction(graph=g)]) for name, g in
               {"twin": twin, "short": short, "extra": extra, "none": None}.items()}
    rows = {r["method"]: r for r in exp.run(systems, ["q"], [Gold("q1", graph=gold)]).rows}
    assert [m.name for m in fact_measures(facts)] == list(FACT_MEASURES)
    assert rows["twin"]["fact F1"] == 1.0
    assert rows["short"]["fact P"] == 1.0 and rows["short"]["fact R"] == pytest.approx(2 / 3)
    assert rows["extra"]["fact P"] == pytest.approx(2 / 3) and rows["extra"]["fact R"] == pytest.approx(2 / 3)
    assert rows["none"]["fact F1"] == 0.0


def test_restatements_count_twins_and_variants_of_the_gold():
    facts = statement_facts(RECORDS)
    stats = restatements(facts, ["Liverpool FC is located in England and is the club of Glen Johnson.",
                                 "Steven Gerrard plays for the club Liverpool FC.", "Not in the DB."])
    assert stats == {"db": 5, "db_twins": 2, "gold": 2, "twin": 0.5, "variant": 0.5}


def test_sentences_without_facts_are_no_twins():
    facts = {"a.": frozenset(), "b.": frozenset(), "c.": frozenset({("x", "r", "y")}), "d.": frozenset({("x", "r", "y")})}
    stats = restatements(facts, ["a.", "c."])
    assert stats == {"db": 4, "db_twins": 2, "gold": 2, "twin": 0.5, "variant": 0.5}
