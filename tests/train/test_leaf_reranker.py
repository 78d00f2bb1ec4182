"""The EntailmentBank leaf reranker: training items, the leaf-set rule and its choice on a carve, the cache
key, a tiny training run and the reranked leaf set over a tiny index (also as the `leaves` pipeline)."""

from __future__ import annotations

import json

import numpy as np
import pytest

CORPUS = {
    "s1": "leo is a kind of constellation",
    "s2": "a constellation contains stars",
    "s3": "a bird has feathers",
    "s4": "water boils at 100 degrees celsius",
    "s5": "a fish lives in water",
    "s6": "a robin is a kind of bird",
}


def test_items_take_capped_positives_and_non_gold_negatives_seeded():
    from graphhop.train.leaf_reranker import RerankerRecipe, reranker_items

    recipe = RerankerRecipe(positives=2, negatives=2)
    golds = [["a", "b", "c"], [], ["d"]]
    cands = [["a", "x", "y", "z", "x"], ["q"], ["d", "d"]]
    items = reranker_items(golds, cands, recipe, np.random.default_rng(0))
    first = [it for it in items if it[0] == 0]
    assert sum(y for _, _, y in first) == 2 and {d for _, d, y in first if y} <= {"a", "b", "c"}
    assert {d for _, d, y in first if not y} <= {"x", "y", "z"} and len(first) == 4
    assert not [it for it in items if it[0] == 1]                         # no mapped leaf: skipped
    assert [it for it in items if it[0] == 2] == [(2, "d", 1.0)]        # no negative left to draw
    assert reranker_items(golds, cands, recipe, np.random.default_rng(0)) == items


def test_choose_set_picks_the_rule_with_the_best_carve_f1():
    from graphhop.train.leaf_reranker import CAPS, DEPTHS, MIXES, RELATIVE, THRESHOLDS, choose_set
    from graphhop.train.leaves import LeafExample

    scored = [[("a", 0.9, 0, 0.5), ("b", 0.55, 1, 0.5), ("x", 0.45, 2, 0.5), ("y", 0.2, 3, 0.5)]]
    best, grid = choose_set(scored, [LeafExample("q", "q", ["a", "b"], 2)])
    assert best["f1"] == pytest.approx(1.0) and best["depth"] == 10 and best["mix"] == 1.0
    assert 0.45 < best["threshold"] <= 0.55
    assert len(grid) == len(DEPTHS) * len(MIXES) * len(THRESHOLDS) * len(CAPS) * len(RELATIVE)
    assert best["relative"] is False                                  # ties: an absolute threshold first
    assert len(choose_set(scored, [LeafExample("q", "q", ["a", "b"], 2)], (10,))[1]) == len(grid) // len(DEPTHS)


def test_a_relative_rule_keeps_leaves_close_to_the_best_one():
    from graphhop.retrieve.leaves_rerank import cut_set

    scored = [("a", 0.3, 0, 0.0), ("b", 0.25, 1, 0.0), ("c", 0.1, 2, 0.0), ("d", 0.05, 3, 0.0)]
    assert cut_set(scored, 10, 0.2, 4) == ["a", "b"]                       # absolute: 0.25 >= 0.2
    assert cut_set(scored, 10, 0.2, 4, relative=True) == ["a", "b", "c"]   # relative: >= 0.3 - 0.2
    assert cut_set(scored, 10, 0.01, 4, relative=True) == ["a"]
    assert cut_set(scored, 3, 0.5, 4, relative=True) == ["a", "b", "c"]    # depth 3: d is not a candidate


def test_session5_cache_key_is_kept_and_listwise_gets_its_own():
    from graphhop.train.leaf_reranker import LISTWISE, RerankerRecipe, recipe_key_fields

    old = {"epochs": 1, "batch": 16, "positives": 2, "negatives": 1, "random_negatives": 1, "depth": 30, "lr": 7e-5,
           "warmup": 0.1, "max_length": 96, "seed": 13, "every": 10}                # session 5's hashed fields
    assert recipe_key_fields(RerankerRecipe()) == old
    assert recipe_key_fields(LISTWISE)["loss"] == "listwise" and recipe_key_fields(LISTWISE)["train_layers"] == 4


def test_listwise_loss_scores_each_gold_against_its_own_lists_negatives():
    import math

    import torch

    from graphhop.train.leaf_reranker import listwise_loss

    z = torch.tensor([2.0, 1.0, 0.0, 5.0, 3.0, -1.0])
    y = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0, 0.0])
    got = float(listwise_loss(z, y, [3, 3], bce_weight=0.0))
    first = (-math.log(math.exp(2) / (math.exp(2) + 1)) - math.log(math.exp(1) / (math.exp(1) + 1))) / 2
    second = -math.log(math.exp(5) / (math.exp(5) + math.exp(3) + math.exp(-1)))
    assert got == pytest.approx((first + second) / 2, rel=1e-5)     # gold 1.0 is never gold 2.0's negative
    bce = float(torch.nn.functional.binary_cross_entropy_with_logits(z, y))
    assert float(listwise_loss(z, y, [3, 3], bce_weight=0.5)) == pytest.approx(got + 0.5 * bce, rel=1e-5)
    assert float(listwise_loss(z[:2], y[:2], [2], bce_weight=0.0)) == 0.0  # no negative: the list adds nothing


def test_training_units_are_lists_per_tree_for_listwise():
    from graphhop.core import InputError
    from graphhop.train.leaf_reranker import RerankerRecipe, _training_units

    items = [(0, "a", 1.0), (0, "x", 0.0), (2, "b", 1.0), (2, "y", 0.0), (2, "z", 0.0)]
    assert _training_units(items, RerankerRecipe()) == items
    assert _training_units(items, RerankerRecipe(loss="listwise")) == [items[:2], items[2:]]
    with pytest.raises(InputError, match="use bce or listwise"):
        _training_units(items, RerankerRecipe(loss="pairwise"))


def test_freeze_below_trains_only_the_top_layers_and_the_head():
    from graphhop.models.cross_encoder import load_sequence_classifier
    from graphhop.train.leaf_reranker import freeze_below

    model, _ = load_sequence_classifier(None)
    freeze_below(model, 4)
    trained = {n.split(".")[3] if ".layer." in n else n.split(".")[1] for n, p in model.named_parameters() if p.requires_grad}
    assert trained == {"2", "3", "4", "5", "pooler", "weight", "bias"}          # layers 2-5, pooler, classifier.*
    assert not any(p.requires_grad for n, p in model.named_parameters() if "embeddings" in n or ".layer.0." in n)
    assert all(p.requires_grad for n, p in model.named_parameters() if n.startswith("classifier"))


@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory):
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages

    docs = documents_from_passages(Passage(k, v, None) for k, v in CORPUS.items())
    return build_index(docs, tmp_path_factory.mktemp("wt") / "idx", dense=DenseOptions("flat"), progress=False)


@pytest.mark.slow
def test_a_tiny_reranker_trains_saves_and_sets_leaves(tiny_index, tmp_path):
    from graphhop.pipeline.registry import build_pipeline
    from graphhop.retrieve.leaves_rerank import LeafReranker, load_selection
    from graphhop.train.leaf_reranker import RerankerRecipe, choose_rule, train_leaf_reranker
    from graphhop.train.leaves import LeafExample

    queries = ["leo is a constellation of stars", "a robin has feathers"]
    items = [(0, "s1", 1.0), (0, "s2", 1.0), (0, "s4", 0.0), (0, "s5", 0.0), (1, "s3", 1.0), (1, "s6", 1.0),
             (1, "s4", 0.0), (1, "s2", 0.0)] * 3
    recipe = RerankerRecipe(batch=8, lr=1e-4)
    card = train_leaf_reranker(queries, items, CORPUS.__getitem__, tmp_path / "rr", recipe, progress=False)
    assert card["steps"] == 3 and card["positives"] == 12
    assert json.loads((tmp_path / "rr" / "graphhop_card.json").read_text())["recipe"]["batch"] == 8
    with pytest.warns(UserWarning, match="no leaf-set rule"):
        LeafReranker(tiny_index, tmp_path / "rr")
    reranker = LeafReranker(tiny_index, tmp_path / "rr", depth=6, threshold=0.5, max_leaves=3, tail=6)
    scored = reranker.score(queries)
    assert all(sorted(k for _, _, k, _ in s) == list(range(6)) and all(0 < p < 1 for _, p, _, _ in s) for s in scored)
    rule = choose_rule(reranker, [LeafExample("a", queries[0], ["s1", "s2"], 2)])
    assert load_selection(tmp_path / "rr", tiny_index)["threshold"] == rule["threshold"] == reranker.threshold
    hits, ranking = reranker.select(queries[:1])[0]
    n = len(hits)
    assert hits, "the best leaf is always in the set"
    assert n <= rule["max_leaves"]
    assert [h.id for h in hits] == [h.id for h in sorted(ranking, key=lambda h: -h.score)[:n]]  # the best n
    floor = hits[0].score - rule["threshold"] if rule["relative"] else rule["threshold"]
    assert all(h.score >= floor for h in hits[1:])  # past the best leaf, only those over the threshold
    assert n in (rule["max_leaves"], reranker.depth) or ranking[n].score < floor  # and all of those
    pipe = build_pipeline("leaves", tiny_index, leaf_reranker=str(tmp_path / "rr"))
    graph = pipe.retrieve_graph(queries[:1])[0]
    assert set(graph.evidence_ids) == {h.id for h in hits} and graph.is_valid()


@pytest.mark.slow
def test_a_tiny_listwise_reranker_trains_one_list_a_tree_and_learns(tmp_path):
    from graphhop.models.cross_encoder import load_sequence_classifier, score_pairs
    from graphhop.train.leaf_reranker import RerankerRecipe, train_leaf_reranker

    queries = ["leo is a constellation of stars", "a robin has feathers"]
    items = [(0, "s1", 1.0), (0, "s2", 1.0), (0, "s4", 0.0), (0, "s5", 0.0), (1, "s3", 1.0), (1, "s6", 1.0),
             (1, "s4", 0.0), (1, "s2", 0.0)]
    recipe = RerankerRecipe(epochs=8, batch=1, lr=3e-4, warmup=0.0, loss="listwise", train_layers=2)
    card = train_leaf_reranker(queries, items, CORPUS.__getitem__, tmp_path / "lw", recipe, progress=False)
    assert card["steps"] == 16 and card["recipe"]["loss"] == "listwise"                 # 2 lists x 8 epochs
    assert card["epoch_loss"][-1] < card["epoch_loss"][0]
    model, tok = load_sequence_classifier(tmp_path / "lw")
    z = score_pairs(model, tok, [queries[0]] * 4, [CORPUS[d] for d in ("s1", "s2", "s4", "s5")])
    assert min(z[:2]) > max(z[2:])                                         # its training list, gold first


@pytest.mark.slow
def test_training_starts_from_a_saved_reranker_and_takes_each_epochs_items(tmp_path):
    from graphhop.train.leaf_reranker import RerankerRecipe, train_leaf_reranker

    queries = ["leo is a constellation of stars"]
    first = [(0, "s1", 1.0), (0, "s3", 0.0)]
    recipe = RerankerRecipe(epochs=1, batch=1, lr=1e-4, warmup=0.0, loss="listwise", train_layers=1)
    train_leaf_reranker(queries, first, CORPUS.__getitem__, tmp_path / "a", recipe, progress=False)
    drawn: list[int] = []

    def epoch_items(epoch: int):
        drawn.append(epoch)
        return [(0, "s2", 1.0), (0, "s4", 0.0), (0, "s5", 0.0)]

    more = RerankerRecipe(epochs=3, batch=1, lr=1e-4, warmup=0.0, loss="listwise", train_layers=1)
    card = train_leaf_reranker(queries, first, CORPUS.__getitem__, tmp_path / "b", more, progress=False,
                               init=tmp_path / "a", epoch_items=epoch_items)
    assert card["init"] == str(tmp_path / "a") and drawn == [2, 3] and card["steps"] == 3   # one list an epoch


def test_recipe_names_find_their_cached_reranker_or_warn(tmp_path, monkeypatch):
    from dataclasses import replace
    from types import SimpleNamespace

    from graphhop.eval.leaves import leaf_reranker
    from graphhop.train.leaf_reranker import LISTWISE, RerankerRecipe, leaf_reranker_dir

    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    train = tmp_path / "data" / "entailmentbank" / "angles" / "task_1" / "train.jsonl"
    train.parent.mkdir(parents=True)
    train.write_text("{}\n", encoding="utf-8")
    with pytest.warns(UserWarning, match=leaf_reranker_dir(tmp_path / "data", LISTWISE).name):
        assert leaf_reranker(None, tmp_path / "data", "listwise") is None
    ft, other = SimpleNamespace(model="/c/eb-leaves-aaa"), SimpleNamespace(model="/c/eb-leaves-bbb")
    assert leaf_reranker_dir(tmp_path / "data", LISTWISE, ft) != leaf_reranker_dir(tmp_path / "data", LISTWISE, other)
    assert leaf_reranker_dir(tmp_path / "data", RerankerRecipe(), ft) == leaf_reranker_dir(tmp_path / "data")
    frozen = replace(LISTWISE, negatives_from="frozen")                   # same recipe, negatives from the frozen index
    assert leaf_reranker_dir(tmp_path / "data", frozen, ft) not in (leaf_reranker_dir(tmp_path / "data", LISTWISE, ft),
                                                                   leaf_reranker_dir(tmp_path / "data", LISTWISE, other))
    assert leaf_reranker_dir(tmp_path / "data", frozen, ft) == leaf_reranker_dir(tmp_path / "data", frozen, other)
    assert leaf_reranker(None, tmp_path / "data", "none") is None


def test_listwise_recipe_needs_the_fine_tuned_index(tiny_index, tmp_path, monkeypatch):
    from graphhop.core import InputError
    from graphhop.train.leaf_reranker import LISTWISE, ensure_leaf_reranker

    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    train = tmp_path / "data" / "entailmentbank" / "angles" / "task_1" / "train.jsonl"
    train.parent.mkdir(parents=True)
    train.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="train leaf-encoder"):
        ensure_leaf_reranker(tiny_index, tmp_path / "data", LISTWISE, negative_index=tiny_index)   # a frozen index


def test_more_epochs_start_from_the_listwise_model_under_their_own_key(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from graphhop.core import InputError
    from graphhop.train.leaf_reranker import LISTWISE, LISTWISE_MORE, ensure_leaf_reranker, leaf_reranker_dir, recipe_key_fields

    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    train = tmp_path / "data" / "entailmentbank" / "angles" / "task_1" / "train.jsonl"
    train.parent.mkdir(parents=True)
    train.write_text("", encoding="utf-8")
    assert "start_from" not in recipe_key_fields(LISTWISE) and "redraw" not in recipe_key_fields(LISTWISE)  # key kept
    ft = SimpleNamespace(model="/c/eb-leaves-aaa")
    base, more = (leaf_reranker_dir(tmp_path / "data", r, ft) for r in (LISTWISE, LISTWISE_MORE))
    assert more != base and LISTWISE_MORE.start_from == "listwise" and LISTWISE_MORE.redraw
    with pytest.raises(InputError, match="starts from 'listwise', which is not trained"):
        ensure_leaf_reranker(ft, tmp_path / "data", LISTWISE_MORE, negative_index=ft)


def test_negatives_drawn_again_differ_and_keep_the_gold():
    from graphhop.train.leaf_reranker import LISTWISE_MORE, reranker_items

    golds, cands = [["g1", "g2"], ["g3"]], [[f"c{i}" for i in range(9)] + ["g1"], [f"d{i}" for i in range(9)]]
    draws = [reranker_items(golds, cands, LISTWISE_MORE, np.random.default_rng(LISTWISE_MORE.seed + e), ["x", "y"])
             for e in range(2)]
    assert [(i, y) for i, _, y in draws[0] if y] == [(i, y) for i, _, y in draws[1] if y] == [(0, 1.0), (0, 1.0), (1, 1.0)]
    assert {d for _, d, y in draws[0] if not y} != {d for _, d, y in draws[1] if not y}
    assert all(d not in ("g1", "g2", "g3") for draw in draws for _, d, y in draw if not y)


@pytest.mark.parametrize("args, needle", [
    (["train", "leaf-reranker", "--recipe", "pairwise"], "--recipe 'pairwise': use one of pointwise, listwise"),
])
def test_leaf_reranker_options_reject_bad_input_in_one_line(args, needle, tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", "from graphhop.cli import main; main()", *args], capture_output=True,
                       text=True, timeout=120, cwd=tmp_path)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 2 and len(lines) == 1 and needle in lines[0] and "Traceback" not in r.stderr, r.stderr


@pytest.mark.data
def test_a_test_split_beside_dev_is_read_like_dev(data_dir, tmp_path):
    from graphhop.train.leaves import dev_examples

    real = data_dir / "entailmentbank"
    eb = tmp_path / "entailmentbank"
    (eb / "task_3").mkdir(parents=True)
    (eb / "task_1").mkdir()
    (eb / "worldtree_corpus_sentences_extended.json").symlink_to(real / "worldtree_corpus_sentences_extended.json")
    for task in ("task_1", "task_3"):
        rows = (real / task / "dev.jsonl").read_text(encoding="utf-8").splitlines()[::60]      # strided, 4 rows
        (eb / task / "test.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    test = dev_examples(tmp_path, "test")
    dev = {ex.id: ex for ex in dev_examples(real.parent)}
    assert len(test) == 4 and all(ex.gold == dev[ex.id].gold and ex.n_gold == dev[ex.id].n_gold for ex in test)
