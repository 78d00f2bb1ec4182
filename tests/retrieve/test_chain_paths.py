"""GoldEn and MDR hop by hop over the whole passages index (issue 13): every hop searches the full index
with the path so far, and ``ask --method golden|mdr`` over passages reads their chains."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

FILMS = Path(__file__).resolve().parents[1] / "pipeline" / "data" / "films" / "passages.jsonl"
QUESTION = "Where was the director of Night Ferry to Kestrin born?"


@pytest.fixture(scope="module")
def films_index(tmp_path_factory):
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages

    rows = [json.loads(line) for line in FILMS.read_text(encoding="utf-8").splitlines()]
    docs = documents_from_passages(Passage(r["id"], r["text"], r["title"]) for r in rows)
    return build_index(docs, tmp_path_factory.mktemp("films") / "idx", dense=DenseOptions("flat"), progress=False)


def test_path_query_generator_adds_the_previous_hops_best_passage():
    from graphhop.retrieve.golden import SEP, HopInput, PathQueryGenerator

    gen = PathQueryGenerator()
    first, second = gen.generate([HopInput("q?", "q?", 1), HopInput("q?", SEP.join(["q?", "A: a b", "B: c"]), 2)])
    assert first.query == "q?"
    assert second.query == "q? A: a b"          # the question plus hop 1's best passage, not its 2nd


@pytest.mark.slow
def test_golden_hop_two_searches_the_whole_index_with_the_path(films_index):
    from graphhop.retrieve.golden import GoldEnRetriever, GoldEnSearch, PathQueryGenerator, QuestionQueryGenerator

    trace = GoldEnRetriever(GoldEnSearch(films_index), PathQueryGenerator()).retrieve([QUESTION], 5)[0]
    best = films_index.docs[trace.hops[0].hits[0].id]
    assert best.id == "f1" and len(trace.hops) == 2
    assert trace.hops[1].query.startswith(QUESTION) and best.title in trace.hops[1].query
    assert "f2" in [h.id for h in trace.hops[1].hits[:3]]          # the bridge passage, found at hop 2
    plain = GoldEnRetriever(GoldEnSearch(films_index), QuestionQueryGenerator()).retrieve([QUESTION], 5)[0]
    assert plain.hops[1].query == QUESTION                          # the old default never saw the path


@pytest.mark.slow
@pytest.mark.parametrize("method", ["golden", "mdr"])
def test_ask_golden_and_mdr_over_passages_read_their_chains(films_index, method):
    from graphhop.pipeline.registry import build_pipeline

    pipe = build_pipeline(method, films_index)
    assert pipe.name == method
    beams = pipe.retriever.retrieve_paths(QUESTION)
    assert any(len(p.ids) == 2 for p in beams[0])                   # chains of two hops over the whole index
    assert ("f1", "f2") in [p.ids for p in beams[0]]
    res = pipe.ask(QUESTION)
    assert {"f1", "f2"} <= set(res.graph.evidence_ids)              # not the empty fact graph of before
    assert res.support and set(res.support) <= set(res.graph.evidence_ids)   # the answer cites read passages
