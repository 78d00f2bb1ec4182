"""The ivf-pq dense index: IVF + 4-bit PQ fast scan + exact fp16 re-rank of a shortlist."""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from graphhop.core import Fact
from graphhop.index.dense import DenseIndex, DenseOptions, auto_nlist, normalize
from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts


def _clustered(n: int, dim: int = 64, seed: int = 0) -> np.ndarray:
    """Vectors near an 8-dimensional subspace (as text embeddings are: low intrinsic dimension)."""
    basis = np.random.default_rng(99).normal(size=(8, dim))
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(n, 8)) @ basis + 0.1 * rng.normal(size=(n, dim))).astype(np.float32)


def _recall(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean([len(set(x) & set(y)) / len(y) for x, y in zip(a, b)]))


def test_auto_nlist_grows_with_sqrt_count_and_keeps_39_per_cell():
    assert [auto_nlist(n) for n in (40, 10_000, 100_000, 1_000_000)] == [1, 256, 1024, 4096]
    assert all(auto_nlist(n) * 39 <= max(n, 39) for n in (1, 77, 500, 12_345))


def test_ivf_pq_recall_bytes_and_exact_rerank(tmp_path):
    vectors, queries = _clustered(20_000), _clustered(200, seed=1)
    flat = faiss.IndexFlatIP(64)
    flat.add(normalize(vectors))
    exact_scores, exact = flat.search(normalize(queries), 10)
    index = DenseIndex.create(64, DenseOptions("ivf-pq", nprobe=8), count=len(vectors))
    for i in range(0, len(vectors), 4096):  # streamed: held back until 39 per cell arrived, then trained
        index.add(vectors[i : i + 4096])
    assert index.options.nlist == 512 and index.options.pq_m == 16 and len(index) == 20_000
    narrow = _recall(index.search(queries, 10)[1], exact)
    all_cells = _recall(index.with_options(nprobe=512).search(queries, 10)[1], exact)
    assert narrow < all_cells  # more cells scanned: more of the exact top-10
    exact100 = flat.search(normalize(queries), 100)[1]
    short = _recall(index.with_options(nprobe=512, k_factor=2).search(queries, 100)[1], exact100)
    longer = _recall(index.with_options(nprobe=512, k_factor=20).search(queries, 100)[1], exact100)
    assert short < longer  # a longer shortlist re-ranked: more of the exact top-100
    whole = index.with_options(nprobe=512, k_factor=2000)  # a shortlist of every vector: re-rank = exact search
    scores, positions = whole.search(queries, 10)
    assert _recall(positions, exact) >= 0.99
    np.testing.assert_allclose(scores, exact_scores, atol=2e-3)  # re-ranked on fp16 copies: exact scores
    wide = index.with_options(nprobe=512, k_factor=20)
    positions = wide.search(queries, 10)[1]
    index.save(tmp_path / "d.faiss")
    nbytes = (tmp_path / "d.faiss").stat().st_size / len(vectors)
    assert nbytes < 0.65 * 4 * 64  # 4-bit codes + id + fp16 copy (+ centroids, block padding): < 65% of flat
    again = DenseIndex.load(tmp_path / "d.faiss", wide.options)
    np.testing.assert_array_equal(again.search(queries, 10)[1], positions)


def test_build_index_with_ivf_pq_records_resolved_options(tmp_path, tiny_model):
    facts = [Fact(f"e{i}", "linked_to", f"e{i + 1}", str(i)) for i in range(120)]
    index = build_index(documents_from_facts(facts), tmp_path / "kb", dense=DenseOptions("ivf-pq", nprobe=64), sparse=None,
                        model=tiny_model, progress=False)
    options = KnowledgeIndex.open(tmp_path / "kb").manifest["dense"]["options"]
    assert options["kind"] == "ivf-pq" and options["nlist"] == auto_nlist(120) == 2 and options["pq_m"] == 8
    dense = KnowledgeIndex.open(tmp_path / "kb").dense.with_options(k_factor=200)  # shortlist = all: exact
    flat = build_index(documents_from_facts(facts), tmp_path / "flat", dense=DenseOptions("flat"), sparse=None,
                       model=tiny_model, progress=False).dense
    queries = flat.index.reconstruct_n(0, 20)
    scores, positions = dense.search(queries, 5)
    flat_scores, _ = flat.search(queries, 5)
    np.testing.assert_allclose(scores, flat_scores, atol=2e-3)
    assert scores[:, 0] == pytest.approx(1.0, abs=2e-3)


def test_unknown_refine_is_refused():
    with pytest.raises(Exception, match="re-rank storage"):
        DenseIndex.create(64, DenseOptions("ivf-pq", nlist=4, refine="int3"))
