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


def _reranker_dir(tmp_path, monkeypatch, rule):
    """A reranker directory whose stored rule is ``rule``, the model loading stubbed out (the rule is what is tested)."""
    import json
    from types import SimpleNamespace

    import graphhop.models.cross_encoder as cross_encoder
    import graphhop.retrieve as retrieve
    from graphhop.retrieve.leaves_rerank import selection_path

    monkeypatch.setattr(cross_encoder, "load_sequence_classifier", lambda path: (None, None))
    monkeypatch.setattr(retrieve, "make_retriever", lambda index, kind: None)
    (tmp_path / "graphhop_card.json").write_text("{}", encoding="utf-8")
    index = SimpleNamespace(model="/c/eb-leaves-aaa")
    selection_path(tmp_path, index).write_text(json.dumps(rule), encoding="utf-8")
    return index


def test_an_explicit_threshold_is_absolute_unless_relative_is_given(tmp_path, monkeypatch):
    from graphhop.retrieve.leaves_rerank import DEFAULT_RULE, LeafReranker

    stored = {"depth": 10, "threshold": 0.2, "max_leaves": 3, "mix": 0.5, "relative": True}
    index = _reranker_dir(tmp_path, monkeypatch, stored)
    assert LeafReranker(index, tmp_path).relative is True                          # the stored rule, whole
    given = LeafReranker(index, tmp_path, **DEFAULT_RULE)
    assert given.threshold == 0.5 and given.relative is False                      # explicit threshold: absolute
    assert LeafReranker(index, tmp_path, threshold=0.1, relative=True).relative is True
    assert LeafReranker(index, tmp_path, relative=False).threshold == 0.2          # the stored threshold, absolute
    assert LeafReranker(index, tmp_path, relative=False).relative is False
