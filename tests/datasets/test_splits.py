"""Leak-free splits: a chain (either direction, either reading of a triple) never crosses splits."""

from __future__ import annotations

import pytest

from graphhop.datasets.splits import (canonical_path, canonical_triple, carve_selection, connected_groups, grouped_splits,
                                     record_chain_keys)


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


def _record(question: str, path: list[tuple[str, str, str]], extra: tuple[str, str, str] | None = None) -> dict:
    """A builder record whose gold graph is ``path``, one sentence per fact (``extra`` joins the first)."""
    nodes = [{"id": f"e{i}", "kind": "evidence", "text": " ".join(t), "facts": [list(t)] + ([list(extra)] if extra and i == 0 else [])}
             for i, t in enumerate(path)]
    return {"question": question, "graph": {"root": "Q", "nodes": nodes, "edges": []}}


def _chains(records: list[dict]) -> set[str]:
    return {canonical_path([tuple(n["facts"][0]) for n in r["graph"]["nodes"]]) for r in records}


def test_selection_carve_is_chain_disjoint_from_the_rest():
    records = []
    for i in range(300):  # three paraphrases per chain, spread apart; every 7th chain also shares a fact with the next
        path = [(f"p{i}", "parents", f"m{i}"), (f"m{i}", "nationality", f"n{i % 7}")]
        records.append(_record(f"who is the nationality of p{i}'s parent ?", path, extra=(f"p{i}", "gender", "male")))
        if i % 7 == 0:
            records.append(_record(f"link {i}", [(f"m{i + 1}", "parents_inverse", f"p{i + 1}")]))
    records += [_record(f"paraphrase {j} of {i}", [(f"m{i}", "nationality", f"n{i % 7}"), (f"p{i}", "parents", f"m{i}")])
                for j in range(2) for i in range(300)]
    select, rest = carve_selection(records, every=10)
    assert select and rest and len(select) + len(rest) == len(records)
    assert not _chains(select) & _chains(rest), "a chain is in both the selection carve and the rest of train"
    assert not {k for r in select for k in record_chain_keys(r)} & {k for r in rest for k in record_chain_keys(r)}
    assert 0.07 <= len(select) / len(records) <= 0.13  # about every 10th group
    small, rest2 = carve_selection(records, every=10, limit=25)
    assert 0 < len(small) <= 25 and not _chains(small) & _chains(rest2) and len(small) + len(rest2) == len(records)
    first = select[0]  # the three paraphrases of a carved chain all land in select
    assert sum(1 for r in select if _chains([r]) == _chains([first])) == 3


def test_connected_groups_are_transitive():
    assert connected_groups([["a"], ["b"], ["a", "c"], ["c", "d"], ["e"], ["d"]]) == [0, 1, 0, 0, 4, 0]


@pytest.mark.data
def test_selection_carve_of_real_pathquestion_train_shares_no_chain(data_dir):
    from graphhop.datasets.kgqa import load_dataset

    examples = load_dataset("pq-2h", "train", data_dir)
    records = [{"question": ex.question, "graph": {"nodes": [{"kind": "evidence", "text": "", "facts": [list(t)]}
                                                             for t in ex.gold_paths[0]]}} for ex in examples]
    select, rest = carve_selection(records, every=10, limit=200)
    assert 150 <= len(select) <= 200
    assert not _chains(select) & _chains(rest)
    qs = lambda rs: {" ".join(r["question"].lower().split()) for r in rs}  # noqa: E731
    assert not qs(select) & qs(rest)
