"""The learned ranker over the walk reader's readings (graphhop.read.walk_ranker): fit, save/load, features, re-ordering."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from graphhop.read.walk_ranker import DEFAULT_WEIGHTS, FEATURES, RankedWalkReader, ReadingRanker, _kind_agrees

_SPEC = importlib.util.spec_from_file_location("walk_fakes", Path(__file__).with_name("test_walk.py"))
_fakes = sys.modules.setdefault("walk_fakes", importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(_fakes)  # the walk tests' fake index and word encoder
_Doc, _Search, _WordEncoder = _fakes._Doc, _fakes._Search, _fakes._WordEncoder

DOCS = [_Doc("o1", "Harnvik Observatory", "Harnvik Observatory was founded in 1887 by Elena Marsk. "
             "It stands on Harnvik Hill near Pavel Drury's farm."),
        _Doc("o2", "Elena Marsk", "Elena Marsk was an astronomer born in Corran.")]


def test_the_shipped_weights_load_without_training():
    ranker = ReadingRanker.load(DEFAULT_WEIGHTS)
    assert ranker.features == FEATURES
    assert ranker.weights.shape == ranker.mean.shape == ranker.std.shape == (len(FEATURES),)
    assert np.all(ranker.std > 0) and np.isfinite(ranker.bias)
    assert DEFAULT_WEIGHTS.stat().st_size < 8000  # small: JSON, no tensors


def test_fit_ranks_by_the_feature_that_carries_the_label_and_round_trips(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, len(FEATURES)))
    y = (x[:, 3] > 0.2).astype(float)  # only `cover` decides
    model = ReadingRanker.fit(x, y, l2=0.1)
    assert int(np.argmax(np.abs(model.weights))) == 3 and model.weights[3] > 0
    assert ((model.scores(x) > 0) == (y > 0)).mean() > 0.95
    model.save(tmp_path / "r.json")
    back = ReadingRanker.load(tmp_path / "r.json")
    assert np.allclose(back.scores(x), model.scores(x), atol=1e-3)
    (tmp_path / "bad.json").write_text((tmp_path / "r.json").read_text().replace('"score"', '"other"'))
    with pytest.raises(ValueError, match="features"):
        ReadingRanker.load(tmp_path / "bad.json")


def test_kind_agrees_with_what_the_question_asks():
    assert _kind_agrees(True, True, None) == 1.0 and _kind_agrees(True, False, None) == 0.0
    assert _kind_agrees(False, False, "person") == 1.0 and _kind_agrees(False, True, "person") == 0.0
    assert _kind_agrees(False, True, "year") == 1.0


def _ranker(feature: str, sign: float) -> ReadingRanker:
    w = np.zeros(len(FEATURES))
    w[FEATURES.index(feature)] = sign
    return ReadingRanker(w, 0.0, np.zeros(len(FEATURES)), np.ones(len(FEATURES)))


def test_the_ranker_only_reorders_the_walks_margins():
    question = "Where was the founder of Harnvik Observatory born?"
    plain = RankedWalkReader(_Search(DOCS), ranker=None, encoder=_WordEncoder(), matcher=False)
    record: list = []
    recorded = RankedWalkReader(_Search(DOCS), ranker=None, record=record, encoder=_WordEncoder(), matcher=False)
    _, walk = plain.read(question)
    assert recorded.read(question)[1] == walk and len(walk) >= 3  # no ranker: the walk reader's readings as they are
    (_, query, _, x), = record
    assert query is None and x.shape == (len(walk), len(FEATURES))
    col, texts = dict(zip(FEATURES, x.T)), [r.text for r in walk]
    assert col["is_number"][texts.index("1887")] == 1.0 and col["kind_agrees"][texts.index("1887")] == 0.0  # `where`
    assert col["kind_agrees"][texts.index("Corran")] == 1.0 and col["hops"][texts.index("Corran")] == 2.0
    assert np.allclose(col["score"], [r.path_score for r in walk]) and col["margin_gap"].min() == 0.0
    assert max(walk, key=lambda r: r.margin).hops == 1  # the walk's best: a one-hop reading
    deeper = RankedWalkReader(_Search(DOCS), ranker=_ranker("hops", 1.0), encoder=_WordEncoder(), matcher=False)
    _, ranked = deeper.read(question)
    assert sorted(r.margin for r in ranked) == sorted(r.margin for r in walk)  # the same margins, handed out again
    assert [r.text for r in ranked] == texts
    best = max(r.margin for r in walk)
    assert ranked[texts.index("Corran")].margin == best > walk[texts.index("Corran")].margin  # the two-hop reading now
    assert ranked[texts.index("Elena Marsk")].margin < best  # holds the best margin, the lowest still does not
    claim = "Harnvik Observatory was founded by Elena Marsk"
    assert deeper.read(question, query=claim)[1] == plain.read(question, query=claim)[1]  # a claim's reading: untouched
