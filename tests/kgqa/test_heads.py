"""The two shipped path-scorer heads: ``weights/kgqa`` (the ``kgqa`` pipeline) and ``weights/walk`` (the text walk)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from graphhop.kgqa.scorer import DEFAULT_WEIGHTS, WALK_WEIGHTS, PathScorer

#: md5 of the head the text figures of session 5 were measured with (the session-3 KGQA head, shipped
#: unchanged through session 5): the walk reader's copy must stay these bytes until the text suites choose another.
SESSION5_HEAD = {"head.npz": "5261357e761fbc2926bb55847f964adf", "config.json": "43cc04ac2e1a128184a30bf39b0bb717"}


def test_the_walk_head_is_the_session5_head_byte_for_byte():
    for name, digest in SESSION5_HEAD.items():
        assert hashlib.md5((WALK_WEIGHTS / name).read_bytes()).hexdigest() == digest, name
    assert WALK_WEIGHTS != DEFAULT_WEIGHTS


def test_both_heads_load_and_score():
    for folder in (DEFAULT_WEIGHTS, WALK_WEIGHTS):
        scorer = PathScorer.load(folder)
        assert 0.0 <= float(scorer.config["threshold"]) < 1.0
        assert sum(p.numel() for p in scorer.head.parameters()) > 10_000
    assert 0.0 < float(PathScorer.load(WALK_WEIGHTS).config["threshold"]) < 1.0


def test_the_kgqa_head_withholds_no_chain_it_found():
    """Session 10 (kgs12) ships the kgqa head with no threshold (chosen on the blind selection KBs): every hop count
    is judged by 0.0, so a chain found is answered; "no supported answer" stays for questions where no chain is
    found (tests/kgqa/test_pipeline.py: no entity) or an explicit ``threshold`` is given."""
    from graphhop.kgqa.thresholds import threshold_for

    config = PathScorer.load(DEFAULT_WEIGHTS).config
    assert all(threshold_for(config, hops) == 0.0 for hops in range(1, 5))
    assert 0.0 < float(config["selection_threshold"]) < 1.0  # what the selection split chose, kept for the record


def test_the_walk_reader_loads_its_own_copy_whatever_the_kgqa_head(tmp_path, monkeypatch):
    import graphhop.kgqa.scorer as scorer_module
    from graphhop.read.walk_scorer import ChainScorer

    other = PathScorer.load(DEFAULT_WEIGHTS)
    for p in other.head.parameters():  # a different "retrained" KGQA head
        p.data.mul_(-1.0)
    other.save(tmp_path)
    monkeypatch.setattr(scorer_module, "DEFAULT_WEIGHTS", tmp_path)
    assert np.array_equal(PathScorer.load().head.state_dict()["q.weight"].numpy(), other.head.state_dict()["q.weight"].numpy())
    walk = ChainScorer(None, None).scorer.head.state_dict()
    with np.load(WALK_WEIGHTS / "head.npz") as shipped:
        assert set(walk) == set(shipped.files)
        for k in shipped.files:
            assert np.array_equal(walk[k].numpy(), shipped[k]), k
    assert any(not np.array_equal(walk[k].numpy(), v.numpy()) for k, v in other.head.state_dict().items())


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
