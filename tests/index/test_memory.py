"""A candidate pool as an in-memory index: the same BM25 and dense code as an index directory."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import InputError


@pytest.fixture(scope="module")
def full():
    from graphhop.demo import demo_index

    return demo_index(progress=False)


@pytest.fixture(scope="module")
def pool_docs(full):
    return [full.docs.docs[i] for i in range(0, len(full.docs), 3)]  # every third fact


QUESTIONS = ["Who painted the Mona Lisa?", "Which countries border Switzerland?", "Where was Mozart born?"]


def test_dense_pool_ranking_is_the_full_ranking_restricted_to_the_pool(full, pool_docs) -> None:
    from graphhop.index.memory import MemoryIndex
    from graphhop.retrieve.dense import DenseRetriever

    vectors = full.dense.index.reconstruct_n(0, len(full.docs))[::3]  # the full index's own vectors
    pool = MemoryIndex(pool_docs, vectors=vectors, model=full.model)
    ids = {d.id for d in pool_docs}
    got = DenseRetriever(pool).search(QUESTIONS, k=10)
    whole = DenseRetriever(full).search(QUESTIONS, k=len(full.docs))
    for mine, theirs in zip(got, whole):
        restricted = [h for h in theirs if h.id in ids][:10]
        assert [h.id for h in mine] == [h.id for h in restricted]
        assert [h.score for h in mine] == pytest.approx([h.score for h in restricted], abs=1e-5)
        assert mine[0].text and mine[0].fact is not None


def test_bm25_pool_index_equals_an_index_directory_of_the_pool(full, pool_docs, tmp_path) -> None:
    from graphhop.index.directory import build_index
    from graphhop.index.memory import MemoryIndex
    from graphhop.retrieve.bm25 import BM25Retriever

    disk = build_index(pool_docs, tmp_path / "pool", dense=None, progress=False)
    pool = MemoryIndex(pool_docs)
    assert pool.has_sparse and not pool.has_dense and pool.manifest["doc_type"] == "facts"
    assert BM25Retriever(pool).search(QUESTIONS, k=8) == BM25Retriever(disk).search(QUESTIONS, k=8)


def test_from_texts_and_bad_input() -> None:
    from graphhop.index.memory import MemoryIndex
    from graphhop.retrieve.bm25 import BM25Retriever

    pool = MemoryIndex.from_texts(["a", "b", "c"], ["the cat sat", "a dog ran", "the cat ran home"],
                                  vectors=np.eye(3, dtype=np.float32))
    assert [h.id for h in BM25Retriever(pool).search(["cat home"], k=3)[0]] == ["c", "a"]
    assert pool.manifest["doc_type"] == "passages" and pool.has_dense
    with pytest.raises(InputError, match="2 vectors for 3 documents"):
        MemoryIndex.from_texts(["a", "b", "c"], ["x", "y", "z"], vectors=np.eye(2, dtype=np.float32))
    with pytest.raises(InputError, match="at least one"):
        MemoryIndex([])
