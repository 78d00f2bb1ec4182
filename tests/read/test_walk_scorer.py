"""The walk reader's trained matcher: the shipped KGQA head reading sentence-edge labels."""

from __future__ import annotations

import pytest

from graphhop.read.sentence_graph import Edge, _untitled
from graphhop.read.walk_scorer import answer_kind_ok, mask_entities


def _edge(source: str, target: str, label: str, doc: str = "d", inverse: bool = False) -> Edge:
    return Edge(source, target, doc, f"{source} {label} {target}.", frozenset(label.split()), inverse, label)


class _Graph:
    def __init__(self, edges: list[Edge]) -> None:
        self._edges = edges

    def edges(self, entity: str) -> list[Edge]:
        return [e for e in self._edges if e.source == entity]


def test_masking_titles_and_answer_kinds():
    assert mask_entities("Who taught Corin Dask's pupil?", ["Corin Dask"]) == "who taught x pupil"
    assert _untitled(10, 27, "Captain Edda Lorne") == (18, 27, "Edda Lorne")
    assert _untitled(0, 9, "Tessaly") == (0, 9, "Tessaly")
    assert answer_kind_ok("How many ships did Quell build?", "eleven")
    assert not answer_kind_ok("Where was she born?", "1839")
    assert answer_kind_ok("Where was she born?", "Brisk")
    assert answer_kind_ok("In what year was he born?", "1801") and not answer_kind_ok("In what year was he born?", "Brisk")


@pytest.fixture(scope="module")
def scorer():
    from graphhop.kgqa.scorer import WALK_WEIGHTS, PathScorer
    from graphhop.models.backends import load_backend

    return PathScorer.load(WALK_WEIGHTS, encoder=load_backend("torch"))


def test_the_head_matches_paraphrased_relations_and_walks_through_an_unnamed_bridge(scorer):
    from graphhop.read.walk_scorer import ChainScorer

    graph = _Graph([
        _edge("Corin Dask", "Ruth Ebbing", "he trained under"),
        _edge("Corin Dask", "Amsel", "was an engineer from the fishing village of"),
        _edge("Corin Dask", "1860", "in"),
        _edge("Harl Bridge", "Velmark", "is a stone bridge in the town of"),
        _edge("Harl Bridge", "Corin Dask", "it was designed by the engineer"),
        _edge("Velmark", "Merrin", "is a market town in the province of"),
        _edge("Velmark", "Alda Kroy", "its mayor is"),
    ])
    chains = ChainScorer(graph, None, scorer=scorer)
    ctx = chains.context("Who taught Corin Dask?", ["Corin Dask"])
    scores = chains.score(ctx, [[e] for e in graph.edges("Corin Dask")])
    assert scores.argmax() == 0  # `taught` ~ `trained under`, learned from KB questions, not listed
    ctx = chains.context("In which province does the Harl Bridge stand?", ["Harl Bridge"])
    walked = chains.beam_walk(ctx, ["Harl Bridge"])
    ends = {c[-1].target: s for c, s in zip(walked, chains.score(ctx, walked))}
    assert max(ends, key=ends.get) == "Merrin"  # two hops through the town the question never names
