"""Leaf retrieval conditioned on the leaves found so far (EntailmentBank task 3): features, the greedy
loop and its learned stop, the head's files, the stop chosen on a selection set."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphhop.core import Hit, InputError

CORPUS = {
    "s1": "leo is a kind of constellation",
    "s2": "a constellation contains stars",
    "s3": "the earth revolving around the sun causes stars to appear in different areas in the sky at different times of year",
    "s4": "a bird has feathers",
    "s5": "water boils at 100 degrees celsius",
    "s6": "a fish lives in water",
}
QUERY = "the earth revolving around the sun causes leo to appear in different areas in the sky at different times of year"


def _head(threshold: float = 0.5, max_leaves: int = 4):
    from graphhop.retrieve.leaves import FEATURES, LeafHead

    n = len(FEATURES)
    w2 = np.zeros(n, dtype=np.float32)
    w2[FEATURES.index("new_query_cover")] = 12.0      # covers query words no chosen leaf covers yet
    w2[FEATURES.index("bridge_share")] = 9.0          # shares a chosen leaf's words that are not the query's
    return LeafHead(np.eye(n, dtype=np.float32), np.zeros(n, dtype=np.float32), w2, -2.0, {}, threshold, max_leaves)


@pytest.fixture(scope="module")
def tiny_index(tmp_path_factory):
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages

    docs = documents_from_passages(Passage(k, v, None) for k, v in CORPUS.items())
    return build_index(docs, tmp_path_factory.mktemp("wt") / "idx", dense=DenseOptions("flat"), progress=False)


def test_content_words_are_stemmed_without_stop_words():
    from graphhop.retrieve.leaves import content_words

    assert content_words("A constellation contains the stars") == {"constel", "contain", "star"}


def test_head_round_trips_through_its_files_and_refuses_a_foreign_dir(tmp_path):
    from graphhop.retrieve.leaves import LeafHead

    head = _head(0.3, 5)
    head.prior, head.mode = {"s1": 2.0}, "ranked"
    head.adapter_q = head.adapter_d = np.eye(len(head.w1), dtype=np.float32)
    head.save(tmp_path / "h")
    back = LeafHead.load(tmp_path / "h")
    assert back.threshold == 0.3 and back.max_leaves == 5 and back.prior == {"s1": 2.0} and back.mode == "ranked"
    assert back.adapter_q.shape == (len(head.w1), len(head.w1)) and np.allclose(back.adapter_d, head.adapter_d)
    x = np.random.default_rng(0).random((3, len(back.w1)), dtype=np.float32)
    assert np.allclose(back.prob(x), head.prob(x), atol=1e-2)
    with pytest.raises(InputError, match="no leaf head"):
        LeafHead.load(tmp_path / "missing")
    meta = json.loads((tmp_path / "h" / "head.json").read_text())
    meta["features"] = ["other"]
    (tmp_path / "h" / "head.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="other features"):
        LeafHead.load(tmp_path / "h")


@pytest.mark.slow
def test_greedy_selection_reaches_a_leaf_only_through_an_earlier_one(tiny_index):
    from graphhop.retrieve.leaves import LeafRetriever

    ret = LeafRetriever(tiny_index, _head(), pool=6)
    hits, first = ret.select([QUERY])[0]
    ids = [h.id for h in hits]
    assert ids[0] == "s3" and set(ids) == {"s1", "s2", "s3"}          # the distractors stay out: learned stop
    assert ids.index("s2") > ids.index("s3")                          # "stars" is a bridge word only after s3
    first_prob = {h.id: h.score for h in first}
    assert first_prob["s2"] < 0.5 < hits[ids.index("s2")].score      # below the stop at step 1, above it once s3 is in
    graph = ret.retrieve_graph([QUERY])[0]
    assert set(graph.evidence_ids) == {"s1", "s2", "s3"} and graph.is_valid()
    assert [h.id for h in ret.search([QUERY], 4)[0]][:3] == ids


def test_choose_stop_picks_the_threshold_and_cap_with_the_best_f1():
    from graphhop.train.leaves import LeafExample, choose_stop, leaf_f1

    class Fixed:
        threshold, max_leaves = 0.5, 8

        def select(self, queries):
            return [([Hit("a", 0.9), Hit("b", 0.6), Hit("x", 0.3), Hit("y", 0.2)], [])] * len(queries)

    examples = [LeafExample("q", "q", ["a", "b"], 3)]                 # one gold leaf is in no corpus
    assert leaf_f1(["a", "b"], examples[0]) == pytest.approx(0.8)
    mode, threshold, cap, f1, grid = choose_stop(Fixed(), examples, thresholds=(0.1, 0.25, 0.5, 0.7), caps=(1, 2, 4))
    assert (mode, threshold, cap) == ("greedy", 0.5, 2) and f1 == pytest.approx(0.8)
    assert len(grid) == 24 and max(g["f1"] for g in grid if g["mode"] == "ranked") == 0.0   # no first-step ranking here


@pytest.mark.data
def test_entailmentbank_examples_map_leaves_to_worldtree(tmp_path, data_dir):
    from graphhop.datasets.textqa import iter_worldtree
    from graphhop.train.leaves import _norm, dev_examples, train_examples

    root = data_dir
    dev = dev_examples(root)
    assert len(dev) == 187 and all(ex.query.split()[0] for ex in dev)
    assert sum(ex.n_gold for ex in dev) == 725 and sum(len(ex.gold) for ex in dev) == 693
    ids = {}
    for p in iter_worldtree(root / "entailmentbank" / "worldtree_corpus_sentences_extended.json"):
        ids.setdefault(_norm(p.text), p.id)
    train = train_examples(root, ids)
    assert len(train) == 1313 and sum(ex.n_gold for ex in train) == 5764
    assert sum(ex.n_gold - len(ex.gold) for ex in train) == 584


def test_the_shipped_head_loads_with_its_selection_choices():
    from graphhop.retrieve.leaves import DEFAULT_HEAD, FEATURES, LeafHead

    head = LeafHead.load()
    assert head.mode in ("greedy", "ranked") and 0 < head.threshold < 1 and 1 <= head.max_leaves <= 8
    assert head.adapter_q.shape == (384, 384) and head.w1.shape[0] == len(FEATURES)
    assert head.card["select_trees"] > 100 and len(head.prior) > 1000          # leaf counts of the fit trees
    assert sum(p.stat().st_size for p in DEFAULT_HEAD.iterdir()) < 5_000_000


def test_train_leaves_refuses_bad_options_in_one_line(tmp_path):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", "from graphhop.cli import main; main()", "train", "leaves", "-o",
                        str(tmp_path / "h"), "--pool", "0", "--data", str(tmp_path)], capture_output=True, text=True,
                       timeout=300)
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "--pool" in lines[0] and "Traceback" not in r.stderr
    assert not (tmp_path / "h").exists()


def test_the_head_follows_the_index_encoder(monkeypatch, tmp_path):
    from types import SimpleNamespace

    import graphhop.retrieve.leaves as leaves

    monkeypatch.setattr(leaves, "FINE_TUNED_HEAD", tmp_path / "eb-leaves-ft")
    tuned = SimpleNamespace(model="/cache/encoders/eb-leaves-0123456789")
    assert leaves.default_head(tuned) == leaves.DEFAULT_HEAD          # not shipped: the frozen encoder's head
    (tmp_path / "eb-leaves-ft").mkdir()
    assert leaves.default_head(tuned) == tmp_path / "eb-leaves-ft"
    assert leaves.default_head(SimpleNamespace(model="sentence-transformers/all-MiniLM-L6-v2")) == leaves.DEFAULT_HEAD


def test_leaf_f1_is_set_f1_with_unmapped_leaves_as_misses():
    from graphhop.train.leaves import LeafExample, gold_set, leaf_f1

    ex = LeafExample("q", "q", ["a", "b"], 4)                         # two leaves in no corpus
    assert gold_set(ex) == {"a", "b", "__unmapped_0", "__unmapped_1"}
    for selected in (["a"], ["a", "b"], ["a", "x", "y"], ["x"], ["a", "a"]):
        hit = len(set(selected) & set(ex.gold))                       # the session-4 formula, same figures
        assert leaf_f1(selected, ex) == pytest.approx(2 * hit / (len(set(selected)) + ex.n_gold) if hit else 0.0)


@pytest.mark.slow
def test_the_leaves_pipeline_is_registered_for_passage_indexes(tiny_index, tmp_path):
    from graphhop.pipeline.registry import build_pipeline, pipeline_names, pipeline_spec

    assert "leaves" in pipeline_names("passages") and "leaves" not in pipeline_names("facts")
    assert pipeline_spec("leaves").kinds == ("passages",)
    _head().save(tmp_path / "head")
    pipe = build_pipeline("leaves", tiny_index, leaf_head=str(tmp_path / "head"))
    graph = pipe.retrieve_graph([QUERY])[0]
    assert set(graph.evidence_ids) == {"s1", "s2", "s3"}
    assert [h.id for h in pipe.search([QUERY], 3)[0]] == [h.id for h in pipe.graph_stage.select([QUERY])[0][0]]
