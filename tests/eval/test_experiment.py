"""The Experiment: select != report, strided samples, oracle labels, measures on hand-made predictions."""

from __future__ import annotations

import pytest

from graphhop.core import Fact, Hit, InputError
from graphhop.eval.experiment import Experiment, System, stride_sample
from graphhop.eval.measures import Gold, Prediction, get_measure, measure_names
from graphhop.graph import ROOT, EvidenceGraph


def test_experiment_refuses_select_equal_to_report() -> None:
    with pytest.raises(InputError, match="both 'dev'"):
        Experiment(["fact MRR"], report="dev", select="dev")
    Experiment(["fact MRR"], report="dev", select="train-carve")  # fine
    with pytest.raises(InputError, match="unknown measure"):
        Experiment(["nope"])


def test_stride_sample_spreads_over_the_file() -> None:
    items = list(range(100))
    assert stride_sample(items, 4) == [0, 25, 50, 75]
    assert stride_sample(items, None) == items and stride_sample(items, 500) == items
    with pytest.raises(InputError):
        stride_sample(items, 0)


def _hit(i: str, head: str, tail: str, score: float) -> Hit:
    return Hit(i, score, f"{head} r {tail}", Fact(head, "r", tail, i))


def test_ranking_measures_and_groups_hand_computed() -> None:
    preds = {"a": [_hit("f1", "x", "y", 3), _hit("f2", "y", "Paris", 2)], "b": [_hit("f3", "z", "w", 1), _hit("f4", "Rome", "v", 1)]}
    golds = [Gold("q1", ["Paris"], {"f2"}, groups={"qtype": "t1"}), Gold("q2", ["Rome"], {"f9"}, groups={"qtype": "t2"})]
    system = System(lambda qs: [Prediction(ranking=preds[q]) for q in qs], oracle="k = gold size")
    table = Experiment(["fact MRR", "fact Hits@1", "answer MRR", "ties@1"], report="dev").run({"m": system}, ["a", "b"], golds)
    (row,) = table.rows
    assert row["method"] == "m (oracle: k = gold size)" and row["n"] == 2
    assert row["fact MRR"] == pytest.approx(0.25) and row["fact Hits@1"] == 0.0
    assert row["answer MRR"] == pytest.approx(0.5) and row["ties@1"] == 0.5
    by = {r["qtype"]: r for r in table.groups["qtype"]}
    assert by["t1"]["fact MRR"] == pytest.approx(0.5) and by["t2"]["answer MRR"] == pytest.approx(0.5)
    assert "| m (oracle: k = gold size) | 2 |" in table.markdown()


def test_graph_and_qa_measures_hand_computed() -> None:
    gold = EvidenceGraph("q")
    pred = EvidenceGraph("q")
    for g, nodes in ((gold, "ab"), (pred, "ac")):
        for n in nodes:
            g.add_evidence(n, n, [[n, "r", n]])
        g.add_edge(ROOT, nodes[0])
        g.add_edge(nodes[0], nodes[1])
    p = Prediction(graph=pred, answer="the Paris", answers=["Paris", "Lyon"])
    g = Gold("q", ["Paris"], set(gold.evidence_ids), gold)
    values = {n: get_measure(n).score([p], [g])[0] for n in ("EM", "P", "R", "F1", "GM", "GS", "GED", "QA EM", "QA F1", "set F1")}
    assert values == {"EM": 0.0, "P": 0.5, "R": 0.5, "F1": 0.5, "GM": 0.0, "GS": 1.0, "GED": 1.0,
                      "QA EM": 1.0, "QA F1": 1.0, "set F1": pytest.approx(2 / 3)}
    assert {"R@2", "all@5", "any@10"} <= set(measure_names("ranking"))


def test_empty_split_is_one_line() -> None:
    with pytest.raises(InputError, match="no questions"):
        Experiment(["EM"]).run({}, [], [])
