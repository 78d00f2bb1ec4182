"""Evidence-graph metrics on hand-computed cases."""

from __future__ import annotations

import pytest

from graphhop.graph import ROOT, EvidenceGraph
from graphhop.metrics.graph import (
    breakdown,
    evaluate_graphs,
    graph_edit_distance,
    graph_match,
    graph_structure,
    score_graph,
    set_scores,
)


def _graph(edges: list[tuple[str, str]]) -> EvidenceGraph:
    g = EvidenceGraph("q")
    for n in sorted({n for e in edges for n in e if n != ROOT}, key=str):
        g.add_evidence(n, n, [[n, "r", "t"]])
    for u, v in edges:
        g.add_edge(u, v)
    return g


GOLD = _graph([(ROOT, "a"), ("a", "b")])


def test_set_scores_precision_is_over_predicted():
    # pred {a}, gold {a, b}: precision 1/1, recall 1/2 (the Graphhop release reports them swapped)
    s = set_scores(["a"], ["a", "b"])
    assert (s.em, s.precision, s.recall) == (0.0, 1.0, 0.5)
    assert s.f1 == pytest.approx(2 / 3)
    s = set_scores(["a", "c", "d"], ["a", "b"])
    assert (s.precision, s.recall) == (pytest.approx(1 / 3), 0.5)
    assert s.f1 == pytest.approx(0.4)
    assert set_scores(["b", "a"], ["a", "b"]).em == 1.0
    assert set_scores([], []) == (1.0, 1.0, 1.0, 1.0)
    assert set_scores([], ["a"]) == (0.0, 0.0, 0.0, 0.0)


def test_gm_gs():
    same_labels = _graph([(ROOT, "a"), ("a", "b")])
    relabelled = _graph([(ROOT, "a"), ("a", "c")])
    fan = _graph([(ROOT, "a"), (ROOT, "b")])
    assert graph_match(same_labels, GOLD) == 1.0 and graph_structure(same_labels, GOLD) == 1.0
    assert graph_match(relabelled, GOLD) == 0.0 and graph_structure(relabelled, GOLD) == 1.0
    # same nodes, different edges
    assert graph_match(fan, GOLD) == 0.0 and graph_structure(fan, GOLD) == 0.0


def test_ged_hand_computed_with_labels():
    # one node with another label: one substitution (label-blind GED would say 0)
    assert graph_edit_distance(_graph([(ROOT, "a"), ("a", "c")]), GOLD) == (1.0, False)
    # a missing node: insert node b + insert edge a->b
    assert graph_edit_distance(_graph([(ROOT, "a")]), GOLD) == (2.0, False)
    # same nodes, edge Q->b instead of a->b: delete one edge, insert one edge
    assert graph_edit_distance(_graph([(ROOT, "a"), (ROOT, "b")]), GOLD) == (2.0, False)
    assert graph_edit_distance(GOLD, GOLD) == (0.0, False)


def test_ged_timeout_is_reported_as_upper_bound():
    n = 11
    gold = _graph([(ROOT, "g0")] + [(f"g{i}", f"g{i + 1}") for i in range(n - 1)])
    pred = _graph([(ROOT, "p0")] + [(f"p{i}", f"p{i + 1}") for i in range(n - 1)])
    res = graph_edit_distance(pred, gold, timeout=1e-4)
    assert res.timed_out is True
    # the exact distance is 11 substitutions; a timed-out result is an upper bound of it,
    # at most deleting one graph and inserting the other (12 nodes + 11 edges each)
    assert 11.0 <= res.value <= 46.0
    report = breakdown([score_graph(pred, gold, timeout=1e-4), score_graph(GOLD, GOLD)])
    assert report["all"]["n"] == 2 and report["all"]["ged_timeouts"] == 1
    assert report["single-chain multi-hop"]["ged_timeouts"] == 1


def test_per_type_breakdown():
    single = _graph([(ROOT, "x")])
    preds = [GOLD, _graph([(ROOT, "a")]), _graph([(ROOT, "y")])]
    golds = [GOLD, GOLD, single]
    report = evaluate_graphs(preds, golds)
    chain = report["single-chain multi-hop"]
    assert chain["n"] == 2
    assert chain["em"] == 0.5 and chain["gm"] == 0.5 and chain["gs"] == 0.5
    assert chain["precision"] == 1.0 and chain["recall"] == 0.75
    assert chain["ged"] == 1.0  # (0 + 2) / 2
    one = report["single-chain single-hop"]
    assert (one["n"], one["em"], one["gs"], one["ged"]) == (1, 0.0, 1.0, 1.0)
    assert report["all"]["n"] == 3 and report["all"]["gs"] == pytest.approx(2 / 3)
    assert report["all"]["ged_timeouts"] == 0
