"""EvidenceGraph: constraints (each rule broken once), graph types, JSON round trip, rendering."""

from __future__ import annotations

import pytest

from graphhop.core import InputError
from graphhop.graph import ROOT, EvidenceGraph, GraphConstraintError, count_structures, graph_type


def _graph(edges: list[tuple[str, str]], facts: dict[str, list[list[str]]] | None = None) -> EvidenceGraph:
    g = EvidenceGraph("who?")
    nodes = {n for e in edges for n in e if n != ROOT}
    for n in sorted(nodes):
        g.add_evidence(n, f"text {n}", (facts or {}).get(n, [[n, "r", n + "x"]]))
    for u, v in edges:
        g.add_edge(u, v)
    return g


def test_valid_chain_passes():
    g = _graph([(ROOT, "a"), ("a", "b")])
    assert g.violations() == []
    assert g.validate() is g


def test_rule_each_evidence_holds_a_fact():
    g = _graph([(ROOT, "a"), ("a", "b")], facts={"b": []})
    assert g.violations() == ["evidence 'b' holds no fact"]
    with pytest.raises(GraphConstraintError, match="'b' holds no fact"):
        g.validate()


def test_rule_explanation_graph_exists():
    g = EvidenceGraph("who?")
    assert g.violations() == ["no explanation graph: the root has no evidence successor"]


def test_rule_dag():
    g = _graph([(ROOT, "a"), ("a", "b"), ("b", "c"), ("c", "a")])
    problems = g.violations()
    assert len(problems) == 1 and problems[0].startswith("not a DAG: cycle")
    assert "a" in problems[0] and "c" in problems[0]


def test_rule_every_node_on_a_root_path():
    g = _graph([(ROOT, "a"), ("x", "y")])
    assert g.violations() == ["evidence not on any root path: ['x', 'y']"]


def test_rule_no_repeat_on_root_path():
    same = [["julia", "children", "john"]]
    g = _graph([(ROOT, "a"), ("a", "b")], facts={"a": same, "b": same})
    assert g.violations() == [
        "evidence repeats on a root path: 'a' and 'b' hold the same fact julia|children|john"
    ]
    # the same fact on two different chains is allowed
    g2 = _graph([(ROOT, "a"), (ROOT, "b")], facts={"a": same, "b": same})
    assert g2.violations() == []


def test_text_evidence_rule_uses_text():
    g = EvidenceGraph("q", text_evidence=True)
    g.add_evidence("s1", "a sentence")
    g.add_evidence("h", "", kind="hypothesis")
    g.add_edge(ROOT, "s1")
    g.add_edge("s1", "h")
    assert g.violations() == ["evidence 'h' holds no fact (empty text)"]


@pytest.mark.parametrize(
    "edges, expected, chains, depth",
    [
        ([(ROOT, "a")], "single-chain single-hop", 1, 1),
        ([(ROOT, "a"), ("a", "b"), ("b", "c")], "single-chain multi-hop", 1, 3),
        ([(ROOT, "a"), (ROOT, "b"), (ROOT, "c")], "multi-chain single-hop", 3, 1),
        ([(ROOT, "a"), ("a", "b"), ("a", "c")], "multi-chain multi-hop", 2, 2),
        # two chains that merge into one answer-bearing evidence (a conjunction, WC-C-like)
        ([(ROOT, "a"), (ROOT, "b"), ("a", "c"), ("b", "c")], "multi-chain multi-hop", 2, 2),
    ],
)
def test_graph_type(edges, expected, chains, depth):
    g = _graph(edges)
    assert graph_type(g) == expected == g.graph_type()
    assert g.num_chains() == chains
    assert g.depth() == depth
    assert len(list(g.chains())) == chains


def test_count_structures_ignores_labels_keeps_root():
    chain_ab = _graph([(ROOT, "a"), ("a", "b")])
    chain_xy = _graph([(ROOT, "x"), ("x", "y")])
    fan = _graph([(ROOT, "a"), (ROOT, "b")])
    single = _graph([(ROOT, "a")])
    assert count_structures([chain_ab, chain_xy, fan, single, single]) == 3


def test_json_round_trip_and_errors():
    g = _graph([(ROOT, "a"), ("a", "b"), ("a", "c")])
    back = EvidenceGraph.from_json(g.dumps())
    assert back.to_json() == g.to_json()
    assert back.edges == g.edges and back.g.nodes["b"]["facts"] == [["b", "r", "bx"]]
    with pytest.raises(InputError, match="x.jsonl:3: edges\\[0\\]: .*unknown node 'zz'"):
        EvidenceGraph.from_json({"nodes": [], "edges": [["Q", "zz"]]}, where="x.jsonl:3")
    with pytest.raises(InputError, match="missing or non-list field 'nodes'"):
        EvidenceGraph.from_json({"edges": []})


def test_render_tree_shows_shared_nodes_once():
    g = _graph([(ROOT, "a"), (ROOT, "b"), ("a", "c"), ("b", "c")])
    text = g.render_tree()
    assert text.splitlines() == [
        "[Q] who?",
        "├── [a] text a",
        "│   └── [c] * text c",
        "└── [b] text b",
        "    └── (see c)",
    ]


def test_count_structures_trees_and_general_dags():
    # entailment-style in-trees: same shape under other ids, and one with another root edge set
    a = _graph([(ROOT, "s1"), (ROOT, "s2"), (ROOT, "s3"), ("s1", "i1"), ("s2", "i1"), ("i1", "h"), ("s3", "h")])
    b = _graph([(ROOT, "x"), (ROOT, "y"), (ROOT, "z"), ("z", "k"), ("y", "k"), ("k", "hy"), ("x", "hy")])
    c = _graph([(ROOT, "s1"), (ROOT, "s2"), (ROOT, "i1"), ("s1", "i1"), ("s2", "h"), ("i1", "h")])
    # a general DAG (a node with two parents and two children), twice under other ids
    d = _graph([(ROOT, "a"), (ROOT, "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("c", "e")])
    e = _graph([(ROOT, "p"), (ROOT, "q"), ("p", "r"), ("q", "r"), ("r", "s"), ("r", "t")])
    assert count_structures([a, b]) == 1
    assert count_structures([a, b, c, d, e]) == 3
