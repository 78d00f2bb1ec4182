"""Hop-by-hop retrieval over a whole text index: entity links, path queries, beams, graphs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILMS = Path(__file__).resolve().parents[1] / "pipeline" / "data" / "films" / "passages.jsonl"


@pytest.fixture(scope="module")
def films_index(tmp_path_factory):
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages

    rows = [json.loads(line) for line in FILMS.read_text(encoding="utf-8").splitlines()]
    docs = documents_from_passages(Passage(r["id"], r["text"], r["title"]) for r in rows)
    return build_index(docs, tmp_path_factory.mktemp("films") / "idx", dense=DenseOptions("flat"), progress=False)


@pytest.mark.slow
def test_entity_links_follow_title_mentions(films_index):
    from graphhop.retrieve.texthop import EntityLinks

    links = EntityLinks(films_index)
    assert links.titled
    assert set(links.links("f1")) == {"f2", "f5"}          # Mara Voss, Tomas Arlen (not itself)
    assert set(links.links("f2")) == {"f3", "f6"}          # Castelvane, Eldoria
    assert links.links("f3") == []


@pytest.mark.slow
def test_two_hop_path_reaches_the_bridge_passage(films_index):
    from graphhop.retrieve.texthop import HopSearch, TextHopRetriever

    ret = TextHopRetriever(HopSearch(films_index), hops=2, beam=3, branch=3)
    beams = ret.retrieve_paths("Where was the director of Night Ferry to Kestrin born?")
    assert len(beams) == 2 and len(beams[0]) == 3
    assert beams[0][0].ids == ("f1",)
    assert ("f1", "f2") in [p.ids for p in beams[1]]
    assert all(len(set(p.ids)) == len(p.ids) for b in beams for p in b)   # never a node twice on a path
    graph = ret.graph_from_paths("q", [p for b in beams for p in b])
    assert graph.is_valid() and "f2" in graph.g.successors("f1")


@pytest.mark.slow
def test_query_is_question_then_path_and_vectors_come_from_the_index(films_index):
    import numpy as np

    from graphhop.retrieve.texthop import HopSearch

    search = HopSearch(films_index, max_words=4)
    assert search.query("q?", ["f3"]) == "q? [SEP] Castelvane: Castelvane is a port"
    v = search.vectors(["f1", "f2"])
    assert v.shape == (2, 384) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)


@pytest.mark.slow
def test_links_only_follows_entity_links_after_the_first_hop(films_index):
    from graphhop.retrieve.texthop import HopSearch

    search = HopSearch(films_index, links_only=True)
    nxt = search.candidates("Where was the director of Night Ferry to Kestrin born?", [("f1",)], 10)[0]
    assert {h.id for h in nxt} == {"f2", "f5"}           # f1 names Mara Voss and Tomas Arlen
    assert search.candidates("q", [()], 3)[0]            # the first hop still searches the index


@pytest.mark.slow
def test_rank_puts_the_passages_of_the_best_paths_first(films_index):
    from graphhop.read.walk import WalkRetriever
    from graphhop.retrieve.texthop import HopSearch, TextHopRetriever

    search = HopSearch(films_index)
    question = "Where was the director of Night Ferry to Kestrin born?"
    ranking = TextHopRetriever(search, hops=2).rank([question], 10)[0]
    assert len(ranking) == 10 and len({h.id for h in ranking}) == 10
    assert {"f1", "f2"} <= {h.id for h in ranking[:4]}
    walked = WalkRetriever(search).rank([question], 5)[0]
    assert [h.id for h in walked[:2]] == ["f1", "f2"]
