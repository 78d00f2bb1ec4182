"""BERTScore: greedy matching on hand-computed cases, IDF weights, and the bundled MiniLM."""

from __future__ import annotations

import math

import numpy as np
import pytest

from graphhop.metrics.bertscore import BERTScorer, greedy_match


def test_greedy_match_hand_cases() -> None:
    # candidate tokens e1, e2; reference token e1: P = (1 + 0) / 2, R = 1, F = 2/3
    p, r, f = greedy_match(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0]]))
    assert (p, r) == (0.5, 1.0) and f == pytest.approx(2 / 3)
    # sim = [[0.6, 1.0]]: P = 1.0, R = (0.6 + 1.0) / 2 = 0.8, F = 1.6 / 1.8
    p, r, f = greedy_match(np.array([[1.0, 0.0]]), np.array([[0.6, 0.8], [1.0, 0.0]]))
    assert p == pytest.approx(1.0) and r == pytest.approx(0.8) and f == pytest.approx(1.6 / 1.8)
    # weighted: P = (3 * 1 + 1 * 0) / 4, R = 1, F = 1.5 / 1.75
    p, r, f = greedy_match(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0]]), np.array([3.0, 1.0]))
    assert p == pytest.approx(0.75) and f == pytest.approx(1.5 / 1.75)
    assert greedy_match(np.zeros((0, 2)), np.array([[1.0, 0.0]])) == (0.0, 0.0, 0.0)


VEC = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [0.6, 0.8]}


def hand_embed(texts):
    return [(t.split(), np.array([VEC[w] for w in t.split()])) for t in texts]


def test_scorer_with_hand_vectors_and_idf() -> None:
    s = BERTScorer(embed=hand_embed)
    (p, r, f), = s.score(["a b"], ["a"])
    assert f == pytest.approx(2 / 3)
    s = BERTScorer(embed=hand_embed, idf=True)
    s.fit_idf(["a b", "a c"])  # df: a 2, b 1, c 1; M = 2 -> idf a = log(3/3) = 0, b = c = log(3/2)
    (p, r, f), = s.score(["b"], ["a c"])
    # reference weights a 0, c log 1.5: R = sim(c, b) = 0.8; P = sim(b, c) = 0.8
    assert r == pytest.approx(0.8) and p == pytest.approx(0.8)
    assert s._weights(["a", "b", "zz"]).tolist() == pytest.approx([0.0, math.log(1.5), math.log(3)])
    with pytest.raises(ValueError):
        s.score(["a"], [])


def test_bundled_minilm_scores() -> None:
    s = BERTScorer()
    same, close, far = s.score(["Amy was born in Paris.", "Amy was born in Paris.", "The weather is nice today."],
                               ["Amy was born in Paris.", "Amy place of birth Paris", "Amy place of birth Paris"])
    assert same.f1 == pytest.approx(1.0, abs=1e-5)
    assert close.f1 > far.f1
    tokens, vecs = s.embed(["Amy was born"])[0]
    assert tokens == ["amy", "was", "born"] and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
