"""The leaf reranker's set rule: the fused score and the cut (no model needed)."""

from __future__ import annotations


def test_cut_set_keeps_the_best_then_those_above_the_threshold_within_depth_and_cap():
    from graphhop.retrieve.leaves_rerank import cut_set, fuse

    scored = [("a", 0.3, 0, 0.9), ("b", 0.9, 1, 0.5), ("c", 0.7, 2, 0.5), ("d", 0.95, 5, 0.5), ("e", 0.6, 3, 0.1)]
    assert cut_set(scored, 5, 0.5, 8) == ["b", "c", "e"]                  # "d" is below the depth
    assert cut_set(scored, 10, 0.5, 2) == ["d", "b"]
    assert cut_set(scored, 3, 0.99, 4) == ["b"]                           # the best one is always kept
    assert cut_set(scored, 5, 0.55, 8, mix=0.5) == ["b", "a", "c"]        # fused: a .6, b .7, c .6, e .35
    assert cut_set([], 3, 0.5, 4) == []
    assert [(d, round(s, 3), k) for d, s, k in fuse(scored, 0.5)] == [
        ("d", 0.725, 5), ("b", 0.7, 1), ("a", 0.6, 0), ("c", 0.6, 2), ("e", 0.35, 3)]  # ties by first-stage rank
    assert [d for d, _, _ in fuse(scored, 0.5, depth=2)] == ["b", "a"]
