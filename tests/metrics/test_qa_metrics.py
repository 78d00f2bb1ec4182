"""QA EM/F1 with SQuAD normalization, on hand-computed cases."""

from __future__ import annotations

import pytest

from graphhop.metrics.qa import exact_match, normalize_answer, qa_scores, token_f1


def test_normalize():
    assert normalize_answer("The  Cat's hat!") == "cats hat"
    assert normalize_answer("An apple, a day") == "apple day"


def test_exact_match_max_over_golds():
    assert exact_match("the United Kingdom", ["france", "United  kingdom."]) == 1.0
    assert exact_match("kingdom", ["united kingdom"]) == 0.0


def test_f1_hand_computed():
    # pred tokens: [john, lennon, jr], gold: [john, lennon] -> P = 2/3, R = 1, F1 = 0.8
    assert token_f1("John Lennon Jr.", "john lennon") == pytest.approx(0.8)
    # max over golds: "paris" vs [paris france] -> P=1, R=1/2 -> 2/3
    assert token_f1("Paris", ["london", "Paris, France"]) == pytest.approx(2 / 3)
    assert token_f1("", "x") == 0.0 and token_f1("the", "a") == 1.0  # both empty after normalization


def test_qa_scores_mean():
    out = qa_scores(["john lennon jr", "paris"], [["john lennon"], ["paris"]])
    assert out == {"em": 0.5, "f1": pytest.approx(0.9), "n": 2}
