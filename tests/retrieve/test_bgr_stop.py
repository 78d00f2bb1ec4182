"""The stop/continue signal of open BGR: its features, its head, and how the search obeys it."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphhop.retrieve.bgr_stop import STOP_FEATURES, StopHead, stop_features
from tests.retrieve.test_bgr_relation import _words


def test_stop_features_read_depth_confidence_and_the_relations_left():
    words = _words()
    texts = {"a": "anna has a child named rudolf.", "b": "rudolf was born in aurich."}
    logits = np.array([2.0, -1.0, 0.5], dtype=np.float32)
    feats = np.zeros((3, 11), dtype=np.float32)
    feats[0, [1, 5, 7]] = (0.9, 0.8, 1.0)
    x = stop_features(words, "where was anna 's son born ?", ("a",), texts, logits, feats)
    assert x.shape == (len(STOP_FEATURES),)
    f = dict(zip(STOP_FEATURES, x.tolist()))
    assert f["depth"] == 1 and f["n_sure"] == 2 and f["gap"] == pytest.approx(1.5)
    assert f["top_prob"] == pytest.approx(1 / (1 + np.exp(-2.0)), abs=1e-6)
    assert (f["top_left"], f["top_next"], f["top_link"]) == pytest.approx((0.9, 0.8, 1.0))
    # "son" is used by "child"; "born" is still asked after the first hop, not after the second
    assert f["n_words"] == 2 and f["left_max"] == pytest.approx(1.0)
    after = dict(zip(STOP_FEATURES, stop_features(words, "where was anna 's son born ?", ("a", "b"), texts, logits, feats)))
    assert after["left_max"] == pytest.approx(0.0) and after["depth"] == 2


def test_stop_head_probability_save_and_load(tmp_path):
    from graphhop.core import InputError

    n = len(STOP_FEATURES)
    head = StopHead(forward=[-1.0, 2.0] + [0.0] * (n - 1), scale=[2.0] + [1.0] * (n - 1))
    x = np.zeros(n)
    x[0] = 1.0                                   # depth 1 / scale 2 -> z = -1 + 1 = 0
    assert head.p_continue(x) == pytest.approx(0.5)
    assert head.p_continue(x, "backward") == pytest.approx(0.5)    # an unfitted direction
    head.save(tmp_path / "stop.json")
    assert StopHead.load(tmp_path / "stop.json") == head
    (tmp_path / "bad.json").write_text('{"forward": [1], "backward": [1], "scale": [1]}')
    with pytest.raises(InputError, match="a stop head has"):
        StopHead.load(tmp_path / "bad.json")
    with pytest.raises(InputError, match="not a stop head"):
        StopHead.load(tmp_path / "missing.json")
    import json

    (tmp_path / "nan.json").write_text(json.dumps({"forward": [float("nan")] * (n + 1), "backward": [0.0] * (n + 1),
                                                   "scale": [1.0] * n}))
    with pytest.raises(InputError, match="finite numbers"):
        StopHead.load(tmp_path / "nan.json")


def test_search_stops_or_goes_on_as_the_head_says():
    from graphhop.graph import ROOT
    from graphhop.retrieve.bgr_open import CandidateCache, _Seen, retrieve_direction_open
    from graphhop.retrieve.bgr_relation import RelationHead, RelationWords
    from graphhop.retrieve.graphhop import BGRConfig, BGRModel
    from graphhop.retrieve.mention_links import MentionIndex
    from tests.retrieve.test_bgr_relation import WordEncoder
    from tests.train.test_bgr_open import FakeSearch, example

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=3)).eval()
    search, ex = FakeSearch(), example()
    relation = (RelationWords(MentionIndex({"ada lovelace"}, {}), WordEncoder()), RelationHead())
    n = len(STOP_FEATURES)
    sure_go, sure_stop = StopHead(forward=[30.0] + [0.0] * n), StopHead(forward=[-30.0] + [0.0] * n)

    def run(threshold, stop=None, stopping=(-1.0, -1.0)):
        return retrieve_direction_open(model.direction("forward"), ex.query, ex.question_vec, search, _Seen(search),
                                       "forward", threshold, 3, 16, 2, 4, CandidateCache(search, 4), relation, None,
                                       stop, stopping).edges
    # threshold 1: only the root's forced best; a head sure to go on takes the best child at each later step
    assert len(run(1.0)) == 1
    chain = run(1.0, sure_go, (0.5, -1.0))
    assert len(chain) == 3 and sum(u == ROOT for u, _ in chain) == 1
    assert run(1.0, sure_go, (-1.0, -1.0)) == run(1.0)          # off: unchanged
    # threshold 0: a wide tree; a head sure to stop keeps the root's children only
    wide = run(0.0)
    stopped = run(0.0, sure_stop, (-1.0, 0.3))
    assert len(wide) > len(stopped) == 2 and all(u == ROOT for u, _ in stopped)
