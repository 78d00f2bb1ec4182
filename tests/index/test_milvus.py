"""Milvus backend (milvus-lite file): the same top-k as FAISS flat, and Milvus BM25 full-text search."""

from __future__ import annotations

import pytest

from graphhop.core import InputError
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts
from graphhop.index.milvus import MilvusTarget, collection_name

pytest.importorskip("milvus_lite")

@pytest.mark.slow
def test_milvus_matches_faiss_and_serves_bm25(tmp_path, encoder, toy_facts):
    from graphhop.retrieve import make_retriever

    target = MilvusTarget(str(tmp_path / "kb.db"), collection_name("kb-1"))
    assert target.collection == "kb_1"
    build_index(documents_from_facts(toy_facts), tmp_path / "kb", dense=DenseOptions("flat"), progress=False, chunk=4,
                milvus=target)
    index = KnowledgeIndex.open(tmp_path / "kb")
    assert index.manifest["dense"]["milvus"] == target.to_dict()
    questions = ["who painted the mona lisa", "what is the capital of germany", "where is the louvre"]
    faiss_hits = make_retriever(index, "dense").search(questions, 6)
    milvus = make_retriever(index, "milvus-dense")
    assert len(milvus.store) == len(toy_facts)
    milvus_hits = milvus.search(questions, 6)
    assert [[h.id for h in r] for r in milvus_hits] == [[h.id for h in r] for r in faiss_hits]  # same order, all 6
    for a, b in zip(milvus_hits, faiss_hits):
        assert [h.score for h in a] == pytest.approx([h.score for h in b], abs=1e-4)
    bm25 = make_retriever(index, "milvus-bm25").search(["mona lisa painted", "danube"], 2)
    assert bm25[0][0].id == "2" and bm25[1][0].id == "4" and bm25[0][0].score > 0
    with pytest.raises(InputError, match="no collection 'other'"):
        from graphhop.index.milvus import MilvusIndex

        MilvusIndex.open(MilvusTarget(target.uri, "other"))
