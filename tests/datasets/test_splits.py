"""Leak-free splits: a chain (either direction, either reading of a triple) never crosses splits."""

from __future__ import annotations

import pytest

from graphhop.datasets.splits import canonical_path, canonical_triple, grouped_splits


def test_canonical_forms_ignore_direction():
    assert canonical_triple(("b", "plays_in_inverse", "a")) == ("a", "plays_in", "b")
    fwd = [("a", "r1", "b"), ("b", "r2", "c")]
    back = [("c", "r2_inverse", "b"), ("b", "r1_inverse", "a")]
    assert canonical_path(fwd) == canonical_path(back)
    assert canonical_path(fwd) != canonical_path([("a", "r1", "b")])


def test_examples_sharing_any_path_or_question_share_a_split():
    items = []
    for i in range(200):  # chains linked pairwise: i shares a path with i+1 (inverse reading)
        items.append((f"q{i}", f"question {i}", [[(f"e{i}", "r", f"e{i + 1}")], [(f"x{i}", "s_inverse", f"y{i}")]]))
        items.append((f"p{i}", f"paraphrase {i}", [[(f"e{i + 1}", "r_inverse", f"e{i}")]]))
    items.append(("same-text", "question 7", []))
    splits = grouped_splits(items, seed=13)
    for i in range(200):
        assert splits[f"q{i}"] == splits[f"p{i}"]
    assert splits["same-text"] == splits["q7"]
    lone = grouped_splits([(f"k{i}", f"t{i}", [[(f"a{i}", "r", f"b{i}")]]) for i in range(3000)], seed=13)
    counts = {s: list(lone.values()).count(s) for s in ("train", "dev", "test")}
    assert 2300 <= counts["train"] <= 2500 and 230 <= counts["dev"] <= 370 and 230 <= counts["test"] <= 370


@pytest.mark.data
def test_no_chain_or_fact_crosses_splits_on_real_data(data_dir):
    from graphhop.datasets.kgqa import load_dataset

    for name in ("wc-c", "wc-p1"):
        examples = [(f"{s}/{ex.id}", ex) for s in ("train", "dev") for ex in load_dataset(name, s, data_dir)]
        splits = grouped_splits([(k, ex.question, ex.gold_paths) for k, ex in examples], seed=13)
        owner: dict[str, str] = {}
        for key, ex in examples:
            for path in ex.gold_paths:
                name_ = canonical_path(path)
                assert owner.setdefault(name_, splits[key]) == splits[key], f"{name}: chain {name_} crosses splits"
        assert {"train", "dev", "test"} <= set(splits.values())
