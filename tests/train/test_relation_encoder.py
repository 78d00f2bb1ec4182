"""Fine-tuning MiniLM on relation pairs: what is trained, the carve split, the delta round trip (bundled MiniLM)."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.train.relation_encoder import Recipe, carve_split, fine_tune, fresh_model, save_delta, trainable_names
from graphhop.train.text_relation import Pair, held_out


@pytest.fixture(scope="module")
def model():
    return fresh_model()


def test_trainable_parts(model):
    bias = trainable_names(model, "bias")
    assert bias and all(n.endswith("bias") or "LayerNorm" in n for n in bias)
    top = trainable_names(model, "top1")
    assert set(bias) < set(top) and any("layer.5." in n and n.endswith("weight") and "LayerNorm" not in n for n in top)
    assert not any("layer.4." in n and n.endswith(".weight") and "LayerNorm" not in n for n in top)
    with pytest.raises(InputError, match="--train"):
        trainable_names(model, "all")


def test_carve_keeps_only_held_out_labels():
    names = ["place of birth", "spouse", "children", "profession"]
    kept = [n for n in names if held_out(n)]
    assert kept == ["spouse", "profession"]  # md5 % 4 == 0 (the session-6 carve)
    pairs = [Pair(("born",), ["place of birth"], ["place of birth"]),
             Pair(("wife", "job"), ["spouse", "children"], ["spouse", "children"], ["gender"])]
    fit, carve = carve_split(pairs)
    assert [p.labels for p in fit] == [["place of birth"]]
    assert [(p.labels, p.negatives) for p in carve] == [(["spouse"], ["gender"])]


@pytest.mark.slow
def test_fine_tune_moves_only_the_delta_and_it_round_trips(model, tmp_path):
    import copy

    from graphhop.read.relation_matcher import RelationMatcher, tuned_encoder

    tuned = copy.deepcopy(model)
    pairs = [Pair(("coach",), ["managed by"], ["managed by"], ["born in", "plays for"]),
             Pair(("teacher",), ["studied under"], ["studied under"], ["born in", "married to"])]
    before = {n: p.detach().clone() for n, p in tuned.named_parameters()}
    logs: list[str] = []
    names = fine_tune(tuned, pairs, Recipe(lr=1e-3, batch=2), epochs=2, log=logs.append)
    assert len(logs) == 2 and logs[0].startswith("epoch 1: loss")
    moved = {n for n, p in tuned.named_parameters() if not np.allclose(p.detach().numpy(), before[n].numpy())}
    assert moved and moved <= set(names)
    save_delta(tuned, names, tmp_path / "enc", {"threshold": 0.4, "kind": "encoder"})
    back = RelationMatcher.load(None, tmp_path / "enc")
    assert back.threshold == 0.4 and back.card["kind"] == "encoder"
    want = tuned.encode(["coach", "managed by"], convert_to_numpy=True, normalize_embeddings=True)
    got = back.vectors(["coach", "managed by"])
    assert np.abs(got - want).max() < 2e-3  # float16 delta
    np.savez(tmp_path / "bad.npz", **{"no.such.weight": np.zeros(2)})
    with pytest.raises(InputError, match="not a delta"):
        tuned_encoder(tmp_path / "bad.npz")


def test_macro_rank1_counts_each_relation_once():
    from graphhop.train.text_relation import carve_scores

    vec = {"wife": np.array([1.0, 0.0]), "spouse": np.array([1.0, 0.0]), "gender": np.array([0.0, 1.0]),
           "job": np.array([0.0, 1.0]), "profession": np.array([0.6, 0.8])}
    pairs = [Pair(("wife",), ["spouse"], ["spouse"], ["gender"])] * 3 + [Pair(("job",), ["profession"], ["profession"], ["gender"])]
    scores = carve_scores(pairs, vec, np.eye(2))
    assert scores["rank1"] == 0.75 and scores["macro_rank1"] == 0.5  # spouse 3 of 3, profession 0 of 1 (gender is closer)
