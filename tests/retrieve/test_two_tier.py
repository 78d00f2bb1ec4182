"""Two-tier retrieval: static first stage, a second encoder re-scores its top candidates."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import Fact, GraphhopError
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import EncodingOptions, build_index, documents_from_facts
from graphhop.retrieve.two_tier import TwoTierRetriever, rescore

FACTS = [Fact(f"city{i}", "located_in", f"country{i % 5}", str(i)) for i in range(30)]


def test_rescore_orders_candidates_by_cosine_ties_by_first_stage_rank():
    doc = np.array([[1, 0], [0, 1], [1, 0], [0.6, 0.8]], dtype=np.float32)
    ranked = rescore(np.array([[1, 0]], dtype=np.float32), [[1, 3, 2, 0, -1]], lambda pos: doc[pos])
    assert [p for p, _ in ranked[0]] == [2, 0, 3, 1]  # 2 before 0: tie at 1.0, 2 came first in the first stage
    assert [s for _, s in ranked[0]] == pytest.approx([1.0, 1.0, 0.6, 0.0])


def test_two_tier_reranks_the_static_top_candidates(tmp_path, tiny_model, monkeypatch):
    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    index = build_index(documents_from_facts(FACTS), tmp_path / "kb", dense=DenseOptions("flat"), sparse=None,
                        model=tiny_model, progress=False, encoding=EncodingOptions(backend="static"))
    retriever = TwoTierRetriever(index, second="onnx", model=tiny_model, depth=8)
    (hits,) = retriever.search(["city3 located in country3"], 5)
    first = {h.id for h in retriever.first.search(["city3 located in country3"], 8)[0]}
    assert len(hits) == 5 and {h.id for h in hits} <= first  # only first-stage candidates
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    plain = build_index(documents_from_facts(FACTS), tmp_path / "kb2", dense=DenseOptions("flat"), sparse=None,
                        model=tiny_model, progress=False)
    with pytest.raises(GraphhopError, match="--backend static"):
        TwoTierRetriever(plain)
