"""The composition operators on hand-made rankings and graphs: >> (then), | (union), & (intersection), + (RRF)."""

from __future__ import annotations

import pytest

from graphhop.core import GraphhopError, Hit, Stage
from graphhop.graph import ROOT, EvidenceGraph
from graphhop.pipeline.ops import (
    Fuse, GraphOver, Intersect, Rerank, Union, intersect_graphs, intersect_rankings, union_graphs, union_rankings,
)


class Fixed(Stage):
    """Returns the given ids (best first) for every query, scores n..1."""

    def __init__(self, ids: str, name: str = "") -> None:
        self.ids, self.name, self.asked = list(ids), name or ids, []

    def search(self, queries, k=10):
        self.asked.append(k)
        return [[Hit(d, float(len(self.ids) - i), f"text {d}") for i, d in enumerate(self.ids[:k])] for _ in queries]


class Reverse(Stage):
    """Reranks by reversing the candidates."""

    depth = 3

    def rerank(self, queries, rankings, k=10):
        return [[h._replace(score=float(i)) for i, h in reversed(list(enumerate(r)))][:k] for r in rankings]


class Chain(Stage):
    """A graph builder: the candidates as one chain root -> c1 -> c2 ..., node score 1 / rank."""

    def __init__(self, reverse: bool = False) -> None:
        self.reverse = reverse

    def graphs(self, questions, rankings):
        out = []
        for q, r in zip(questions, rankings):
            ids = [h.id for h in r][::-1] if self.reverse else [h.id for h in r]
            g = EvidenceGraph(q)
            for i, n in enumerate(ids, 1):
                g.add_evidence(n, f"text {n}", [[n, "r", n + "'"]])
                g.g.nodes[n]["score"] = 1.0 / i
            for u, v in zip([ROOT] + ids, ids):
                g.add_edge(u, v)
            out.append(g)
        return out


def ids(ranking):
    return [h.id for h in ranking]


def test_then_reranks_only_the_depth_and_keeps_the_tail() -> None:
    first = Fixed("abcdef")
    pipe = first >> Reverse()
    assert isinstance(pipe, Rerank) and pipe.name == "abcdef>>Reverse"
    (r,) = pipe.search(["q"], k=5)
    assert ids(r) == ["c", "b", "a", "d", "e"] and first.asked == [5]
    assert [h.score for h in r] == sorted((h.score for h in r), reverse=True)
    assert ids((Fixed("abcdef") % 2 >> Reverse()).search(["q"], k=2)[0]) == ["b", "a"]
    assert r[0].text == "text c"  # hits keep their text through the reranker


def test_union_of_rankings_by_best_rank() -> None:
    a, b = [Hit("x", 9), Hit("y", 8), Hit("z", 7)], [Hit("w", 5), Hit("x", 4), Hit("v", 3)]
    u = union_rankings(a, b)
    assert ids(u) == ["x", "w", "y", "z", "v"]
    assert [h.score for h in u] == [1.0, 1.0, 0.5, pytest.approx(1 / 3), pytest.approx(1 / 3)]
    assert ids((Fixed("xyz") | Fixed("wxv")).search(["q"], k=3)[0]) == ["x", "w", "y"]  # at most k


def test_intersection_of_rankings_keeps_the_left_order() -> None:
    a, b = [Hit("x", 9), Hit("y", 8), Hit("z", 7)], [Hit("z", 5), Hit("x", 4)]
    assert intersect_rankings(a, b) == [Hit("x", 9), Hit("z", 7)]
    assert ids((Fixed("xyz") & Fixed("zx")).search(["q"])[0]) == ["x", "z"]


def test_rrf_fusion_hand_computed_and_flattened() -> None:
    fused = (Fixed("xyz", "a") + Fixed("yw", "b")).search(["q"], k=4)[0]
    assert ids(fused) == ["y", "x", "w", "z"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61) and fused[1].score == pytest.approx(1 / 61)
    three = Fixed("x", "a") + Fixed("y", "b") + Fixed("z", "c")
    assert isinstance(three, Fuse) and len(three.stages) == 3
    with pytest.raises(GraphhopError, match="at least two"):
        Fuse([Fixed("x")])


def _graph(edges: list[tuple[str, str]], scores: dict[str, float]) -> EvidenceGraph:
    g = EvidenceGraph("q")
    for n, s in scores.items():
        g.add_evidence(n, n.upper(), [[n, "r", "t"]])
        g.g.nodes[n]["score"] = s
    for u, v in edges:
        g.add_edge(u, v)
    return g


def test_graph_union_and_intersection_hand_made() -> None:
    a = _graph([(ROOT, "a"), ("a", "b"), ("b", "c")], {"a": 0.9, "b": 0.8, "c": 0.4})
    b = _graph([(ROOT, "a"), ("a", "b"), (ROOT, "d"), ("c", "b")], {"a": 0.5, "b": 0.6, "c": 0.2, "d": 0.7})
    u = union_graphs(a, b)
    assert sorted(u.edges) == sorted([(ROOT, "a"), ("a", "b"), ("b", "c"), (ROOT, "d")])  # c -> b would close a cycle
    assert u.g.nodes["d"]["score"] == 0.7 and u.g.nodes["a"]["score"] == 0.9
    i = intersect_graphs(a, b)
    assert sorted(i.edges) == [(ROOT, "a"), ("a", "b")] and sorted(i.evidence_ids) == ["a", "b"]
    assert i.g.nodes["a"]["score"] == pytest.approx(0.7) and i.g.nodes["b"]["text"] == "B"
    assert i.is_valid() and u.is_valid()


def test_graph_builders_compose_over_one_pool() -> None:
    pipe = Fixed("abc") >> (Chain() & Chain(reverse=True))
    assert isinstance(pipe, GraphOver)
    (g,) = pipe.retrieve_graph(["q"])
    assert g.edges == []  # the two chains share no edge
    (g,) = (Fixed("abc") >> (Chain() | Chain(reverse=True))).retrieve_graph(["q"])
    assert (ROOT, "a") in g.edges and (ROOT, "c") in g.edges and ("a", "b") in g.edges
    (g,) = (Fixed("abc") >> (Chain() & Chain())).retrieve_graph(["q"])
    assert sorted(g.edges) == [(ROOT, "a"), ("a", "b"), ("b", "c")]
    assert ids((Fixed("abc") >> Chain()).search(["q"], k=2)[0]) == ["a", "b"]


def test_bgr_intersect_merge_is_the_graph_intersection() -> None:
    """BGR's ``intersect`` merge of its two directions is ``forward & backward`` on their graphs:
    the shared edges, the nodes they reach from the question, mean node scores."""
    import numpy as np

    from graphhop.retrieve.graphhop import CandidatePool, DirectionResult, _graph_from_edges, merged_graph

    pool = CandidatePool(["a", "b", "c"], ["A", "B", "C"], np.zeros((3, 2), np.float32), [[], [], []])
    f = DirectionResult([(ROOT, "a"), ("a", "b"), ("a", "c")], {"a": 0.9, "b": 0.8, "c": 0.6})
    b = DirectionResult([(ROOT, "a"), ("a", "b"), ("c", "b")], {"a": 0.7, "b": 0.4, "c": 0.2})
    merged = merged_graph("q", pool, f, b, "intersect")
    assert sorted(merged.edges) == [(ROOT, "a"), ("a", "b")]
    assert {n: merged.g.nodes[n]["score"] for n in merged.evidence_ids} == pytest.approx({"a": 0.8, "b": 0.6})
    composed = intersect_graphs(_graph_from_edges("q", f.edges, pool, f.scores), _graph_from_edges("q", b.edges, pool, b.scores))
    assert merged.to_json() == composed.to_json()


def test_operators_refuse_what_the_stages_cannot_do() -> None:
    with pytest.raises(GraphhopError, match="neither reranks"):
        Fixed("a") >> Fixed("b")
    with pytest.raises(GraphhopError, match="share no ranking"):
        Union(Reverse(), Fixed("a"))
    with pytest.raises(GraphhopError, match="cannot search"):
        Reverse() >> Reverse()
    assert not Intersect(Fixed("a"), Fixed("b")).can("retrieve_graph")
