import pytest

from graphhop.core import Hit, Retriever
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import build_index, documents_from_facts
from graphhop.retrieve import make_retriever
from graphhop.core import GraphhopError
from graphhop.pipeline.ops import Fuse, rrf

@pytest.fixture(scope="module")
def index(tmp_path_factory, encoder, toy_facts):
    return build_index(documents_from_facts(toy_facts), tmp_path_factory.mktemp("r") / "i", dense=DenseOptions("hnsw-sq", m=8), progress=False)


@pytest.mark.parametrize("method", ["bm25", "dense", "hybrid"])
def test_each_retriever_finds_the_fact(index, method):
    r = make_retriever(index, method)
    assert isinstance(r, Retriever)
    res = r.search(["who painted the Mona_Lisa ?", "what currency does France use", "where is the Louvre"], 3)
    assert [ranking[0].id for ranking in res] == ["2", "8", "5"]
    # BM25 only returns documents sharing a term with the query; dense ranks everything
    assert all(len(ranking) == 3 for ranking in res) or method == "bm25"
    assert all(a.score >= b.score for ranking in res for a, b in zip(ranking, ranking[1:]))


def test_top_k_bounded_by_kb_and_empty_batch(index, toy_facts):
    for method in ("bm25", "dense", "hybrid"):
        r = make_retriever(index, method)
        assert len(r.search(["painted"], 1000)[0]) <= len(toy_facts)
        assert r.search([], 5) == []


def test_rrf_hand_computed():
    a = [Hit("x", 9), Hit("y", 8), Hit("z", 7)]
    b = [Hit("y", 0.9), Hit("w", 0.8)]
    fused = rrf([a, b], k=4, c=60)
    assert [h.id for h in fused] == ["y", "x", "w", "z"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1].score == pytest.approx(1 / 61)
    # x (rank 1 in a) and w (rank 2 in b) ... ties broken by best rank then by source
    tie = rrf([[Hit("p", 1)], [Hit("q", 1)]], k=2)
    assert [h.id for h in tie] == ["p", "q"]


def test_fusion_needs_two():
    with pytest.raises(GraphhopError):
        Fuse([])
