"""Teacher-forced open prefixes, the relation head's fit, and the per-step diagnosis table."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphhop.graph import EvidenceGraph
from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings
from graphhop.retrieve.bgr_relation import RelationWords
from graphhop.retrieve.graphhop import BGRConfig, BGRModel
from graphhop.retrieve.mention_links import MentionIndex
from tests.retrieve.test_bgr_relation import WordEncoder
from tests.train.test_bgr_open import TEXTS, FakeSearch, example


def _chain() -> EvidenceGraph:
    gold = EvidenceGraph("where was ada lovelace 's parent born ?")
    for d in ("s4", "s5"):
        gold.add_evidence(d, TEXTS[d])
    gold.add_edge(gold.root, "s4"), gold.add_edge("s4", "s5")
    return gold


def _steps(k: int = 3):
    from graphhop.train.bgr_relation import prefix_steps

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=3)).eval()
    words = RelationWords(MentionIndex({"ada lovelace", "london", "lord byron", "england"}, {}), WordEncoder())
    ex = example()
    ex.query = _chain().question
    return list(prefix_steps(model, ex, _chain(), CandidateCache(FakeSearch(), k), words, k))


def test_prefix_steps_cover_both_directions_with_labels_and_stops():
    steps = _steps()
    fwd = [(s.step, s.targets, s.stop_gold) for s in steps if s.direction == "forward"]
    assert fwd == [(1, frozenset({"s4"}), False), (2, frozenset({"s5"}), False), (3, frozenset(), True)]
    bwd = [(s.step, s.targets, s.stop_gold) for s in steps if s.direction == "backward"]
    assert bwd == [(1, frozenset({"s5"}), False), (2, frozenset({"s4"}), False), (3, frozenset(), True)]
    for s in steps:
        assert len(s.ids) == 3 and s.feats.shape == (3, 11)
        assert s.labels.tolist() == [i in s.targets for i in s.ids]
        assert s.missed == len(s.targets - set(s.ids))
        assert len(s.logits) == 3 + (s.direction == "backward" and s.step > 1)   # the question token


def test_fit_relation_head_learns_a_feature_that_separates_gold():
    from graphhop.train.bgr_relation import PrefixStep, fit_relation_head

    rng = np.random.default_rng(0)
    steps = []
    for i in range(40):
        labels = np.array([j == i % 4 for j in range(4)])
        feats = np.zeros((4, 11), dtype=np.float32)
        feats[:, 1] = labels + rng.normal(0, 0.1, 4)                      # "left" tells the gold
        steps.append(PrefixStep("forward", 1, list("abcd"), rng.normal(0, 1, 4).astype(np.float32), feats, labels,
                                False, frozenset({"abcd"[i % 4]}), 0))
    head = fit_relation_head(steps)
    a, b, *w = head.forward
    assert w[1] > 1.0 and abs(a) < w[1]
    assert head.backward == [1.0, 0.0] + [0.0] * 11                     # no backward steps: the matcher alone
    from graphhop.core import InputError

    with pytest.raises(InputError, match="one direction at least"):
        fit_relation_head([PrefixStep("forward", 1, ["a"], np.zeros(1), np.zeros((1, 11)), np.array([False]), True, frozenset(), 0)])
    # no single step holds gold and non-gold, but the forward direction does: it is fitted, not rejected
    pure = [PrefixStep("forward", 1, ["a", "b"], np.full(2, 2.0 if y else -1.0), np.zeros((2, 11)), np.array([y, y]), False,
                       frozenset("ab" if y else ""), 0) for y in (True, False)]
    assert fit_relation_head(pure).forward[0] > 0


def test_step_table_counts_candidate_ranking_and_stop_losses():
    from graphhop.eval.bgr_open_diag import step_table
    from graphhop.train.bgr_relation import PrefixStep

    z = np.zeros((3, 11), dtype=np.float32)
    steps = [
        PrefixStep("forward", 1, ["a", "b", "c"], np.array([3.0, 0.0, -3.0]), z, np.array([True, False, False]), False, frozenset("a"), 0),
        PrefixStep("forward", 2, ["a", "b", "c"], np.array([3.0, 2.0, -3.0]), z, np.array([False, True, False]), False, frozenset("bx"), 1),
        PrefixStep("forward", 3, ["a", "b", "c"], np.array([-3.0, -3.0, -3.0]), z, np.array([False] * 3), True, frozenset(), 0),
    ]
    t = step_table(steps, OpenSettings(threshold_forward=0.5, max_branch=3))
    assert t["forward step 1"]["top1"] == 1.0 and t["forward step 1"]["extra"] == 1.0    # b: p .5 passes
    assert t["forward step 2"]["cands"] == 0.5 and t["forward step 2"]["top1"] == 0.0
    assert t["forward step 2"]["kept"] == 1.0 and t["forward step 2"]["extra"] == 1.0
    assert t["forward step 3"]["stops"] == 1.0 and t["forward step 3"]["stop"] == 1.0
    assert t["forward all"]["prefixes"] == 2.0 and t["forward all"]["cands"] == 0.75


def test_open_retrieval_uses_the_relation_head_score():
    from graphhop.retrieve.bgr_open import _Seen, retrieve_direction_open
    from graphhop.retrieve.bgr_relation import RelationHead

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=2)).eval()
    search = FakeSearch()
    words = RelationWords(MentionIndex({"ada lovelace"}, {}), WordEncoder())
    ex = example()

    def run(b: float):
        head = RelationHead(forward=[0.0, b] + [0.0] * 11)
        return retrieve_direction_open(model.direction("forward"), ex.query, ex.question_vec, search, _Seen(search),
                                       "forward", 0.5, 2, 16, 2, 4, CandidateCache(search, 4), (words, head))

    keep_all, keep_none = run(10.0), run(-10.0)
    roots = [v for u, v in keep_all.edges if u == "Q"]
    assert len(roots) == 2 and len(keep_all.edges) >= 4   # 2 at the root, more under them (no cycles)
    assert len(keep_none.edges) == 1                      # only the root's forced best
