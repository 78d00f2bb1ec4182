"""BGR trained for the open setting: memoized hop-by-hop candidates, open training pools, open selection."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphhop.core import Hit
from graphhop.graph import EvidenceGraph
from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings
from graphhop.retrieve.graphhop import BGRConfig, BGRModel, CandidatePool
from graphhop.train.bgr_data import BGRExample

TEXTS = {f"s{i}": t for i, t in enumerate([
    "ada lovelace was born in london.", "london is the capital of england.", "england is in europe.",
    "paris is the capital of france.", "ada lovelace has a parent named lord byron.", "lord byron was born in london.",
    "france is in europe.", "berlin is the capital of germany."])}


class FakeSearch:
    """A HopSearch stand-in: fixed vectors, candidates = every other sentence by word overlap with the path."""

    def __init__(self) -> None:
        rng = np.random.default_rng(0)
        v = rng.normal(size=(len(TEXTS), 8)).astype(np.float32)
        self.vecs = dict(zip(TEXTS, v / np.linalg.norm(v, axis=1, keepdims=True)))
        self.calls: list[int] = []

    def text(self, d: str) -> str:
        return TEXTS[d]

    def vectors(self, ids):
        return np.stack([self.vecs[d] for d in ids]) if ids else np.zeros((0, 8), dtype=np.float32)

    def candidates(self, question, paths, k):
        self.calls.append(len(paths))
        out = []
        for p in paths:
            words = set(" ".join([question, *(TEXTS[d] for d in p)]).split())
            scored = sorted(((-len(words & set(t.split())), d) for d, t in TEXTS.items() if d not in p))
            out.append([Hit(d, float(-s)) for s, d in scored[:k]])
        return out


def example() -> BGRExample:
    gold = EvidenceGraph("where was ada lovelace born ?")
    gold.add_evidence("e0", TEXTS["s0"])
    gold.add_edge(gold.root, "e0")
    pool = CandidatePool(["e0", "e1"], [TEXTS["s0"], "a pool distractor."], np.eye(2, 8, dtype=np.float32))
    return BGRExample("q0", gold.question, "where was ada lovelace born ?", pool, np.ones(8, dtype=np.float32) / 8 ** 0.5,
                      gold, 1, "single-hop")


def test_candidate_cache_batches_memoizes_and_slices():
    search = FakeSearch()
    cache = CandidateCache(search, k=4)
    cache.prefetch("q", [(), ("s0",), ("s0",)])
    assert search.calls == [2]                         # one batched call, duplicates merged
    first = cache.ids("q", ("s0",))
    assert len(first) == 4 and "s0" not in first
    assert cache.ids("q", ("s0",), k=2) == first[:2]   # a smaller k is a prefix, no new call
    assert search.calls == [2]
    cache.ids("other question", ())
    assert search.calls == [2, 1]


def test_open_example_pool_is_gold_plus_retrieved_candidates_in_db_ids():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.train.bgr_open import open_example

    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    cache = CandidateCache(FakeSearch(), k=3)
    ex = open_example(example(), cache, by_text)
    assert set(ex.gold.evidence_ids) == {"s0"}
    assert "s0" in ex.pool.ids and "e1" not in ex.pool.ids and "a pool distractor." not in ex.pool.texts
    assert set(cache.ids(ex.query, ())) <= set(ex.pool.ids)
    assert ex.pool.vectors.shape == (len(ex.pool.ids), 8)


def test_open_settings_from_card_overrides_only_what_was_selected():
    cfg = BGRConfig(threshold_forward=0.3, threshold_backward=0.6, merge="union")
    assert OpenSettings.from_card({}, cfg) == OpenSettings.from_config(cfg)
    s = OpenSettings.from_card({"open_selection": {"threshold_forward": 0.7, "k": 20}}, cfg)
    assert (s.threshold("forward"), s.threshold("backward"), s.merge, s.k) == (0.7, 0.6, "union", 20)


def test_select_open_chooses_from_its_grid_on_the_open_retriever():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.train.bgr_open import select_open

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=2, max_edges=4)).eval()
    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    cache = CandidateCache(FakeSearch(), k=4)
    settings, table = select_open(model, [example()], cache, by_text, thresholds=(0.0, 0.99), branches=(4,),
                                  union_thresholds=(0.8,), ks=(2, 4))
    assert settings.k in (2, 4) and settings.threshold_forward in (0.0, 0.99) and settings.max_branch == 4
    assert "k2:forward@0.0/branch4" in table and "merge:forward" in table
    # threshold 0 keeps every root candidate, s0 (the best word match) among them
    assert table["k4:forward@0.0/branch4"] > 0


def test_embedding_cache_keys_the_backend_and_refuses_an_unknown_one(tmp_path):
    import pytest

    from graphhop.core import InputError
    from graphhop.train.bgr_data import EmbeddingCache

    assert EmbeddingCache(tmp_path).path != EmbeddingCache(tmp_path, backend="static").path
    assert EmbeddingCache(tmp_path).path == EmbeddingCache(tmp_path, backend="torch").path  # old caches still found
    with pytest.raises(InputError, match="static"):
        EmbeddingCache(tmp_path, backend="nope")


def test_open_training_scores_each_prefix_on_its_own_candidates_only():
    from graphhop.train.bgr import _items, bgr_loss_batch

    torch.manual_seed(0)
    gold = EvidenceGraph("q")
    for d in ("a", "b"):
        gold.add_evidence(d, d)
    gold.add_edge(gold.root, "a"), gold.add_edge("a", "b")
    rng = np.random.default_rng(1)
    vecs = rng.normal(size=(5, 8)).astype(np.float32)
    pool = CandidatePool(["a", "b", "x", "y", "z"], ["a", "b", "x", "y", "z"], vecs)
    cands = {(): ["a", "x"], ("a",): ["y"], ("a", "b"): ["z"]}
    ex = BGRExample("q", "q", "q", pool, np.ones(8, dtype=np.float32), gold, 2, "chain", prefix_cands=cands)
    items = _items([ex], "forward", 8)
    assert [sorted(it.cands) for it in items] == [[0, 2], [1, 3], [4]]   # retrieved + gold targets, never the path
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2)).eval()
    before = bgr_loss_batch(model, [ex], items[:2]).item()
    vecs2 = vecs.copy()
    vecs2[4] += 5.0                                                        # z is no candidate of these two prefixes
    ex2 = BGRExample("q", "q", "q", CandidatePool(pool.ids, pool.texts, vecs2), ex.question_vec, gold, 2, "chain",
                     prefix_cands=cands)
    assert bgr_loss_batch(model, [ex2], items[:2]).item() == before
    open_loss = bgr_loss_batch(model, [ex], items[:1]).item()
    ex.prefix_cands = None                                                 # the whole pool: another loss
    assert bgr_loss_batch(model, [ex], _items([ex], "forward", 8)[:1]).item() != open_loss


def test_builder_db_is_a_cache_rebuilt_when_its_sentences_change(tmp_path):
    from graphhop.train.bgr_open import builder_db

    recs = [{"evidence": [{"text": TEXTS["s0"]}, {"text": TEXTS["s1"]}]}, {"evidence": [{"text": TEXTS["s0"]}]}]
    index, by_text = builder_db(recs, tmp_path)
    assert len(index.docs) == 2 and sorted(by_text.values()) == ["s0", "s1"]
    manifest = (tmp_path / "db-index" / "manifest.json").stat().st_mtime_ns
    again, _ = builder_db(recs, tmp_path)                           # opened, not rebuilt
    assert len(again.docs) == 2 and (tmp_path / "db-index" / "manifest.json").stat().st_mtime_ns == manifest
    more, by_text = builder_db(recs + [{"evidence": [{"text": TEXTS["s2"]}]}], tmp_path)
    assert len(more.docs) == 3 and by_text[next(k for k in by_text if k.startswith("england"))] == "s2"


class AnswerSearch(FakeSearch):
    """FakeSearch whose answer candidates (backward's first step) are the answer sentence alone."""

    def answer_candidates(self, question, k, reach):
        return [Hit("s0", 1.0)]


def test_select_open_chooses_backwards_first_step_candidates_too():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.train.bgr_open import select_open

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=2, max_edges=4)).eval()
    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    settings, table = select_open(model, [example()], CandidateCache(AnswerSearch(), k=4), by_text, thresholds=(0.0,),
                                  branches=(4,), union_thresholds=(0.8,), ks=(4,), answer_reaches=(0, 1))
    assert "k4:forward@0.0/branch4/reach1" not in table             # forward's candidates do not change
    # at reach 0 backward starts from the question's four candidates and its 4 edges go elsewhere (F1 0 here);
    # at reach 1 from the answer sentence alone: the gold graph
    assert table["k4:backward@0.0/branch4/reach1"] == 1.0 > table["k4:backward@0.0/branch4"]
    assert settings.answer_reach == 1 and settings.merge in ("intersect", "backward")


def test_link_feature_is_read_from_each_prefixs_link_weights_and_zero_without_them():
    from graphhop.train.bgr import _items, bgr_loss_batch

    torch.manual_seed(0)
    gold = EvidenceGraph("q")
    gold.add_evidence("a", "a")
    gold.add_edge(gold.root, "a")
    vecs = np.random.default_rng(2).normal(size=(3, 8)).astype(np.float32)
    pool = CandidatePool(["a", "x", "y"], ["a", "x", "y"], vecs)
    ex = BGRExample("q", "q", "q", pool, np.ones(8, dtype=np.float32), gold, 1, "chain",
                    prefix_cands={(): ["a", "x", "y"]}, prefix_links={(): {"a": 1.0}})
    items = _items([ex], "forward", 8)[:1]
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, link_feature=True)).eval()
    assert model.forward_model.matcher.n_link == 1
    linked = bgr_loss_batch(model, [ex], items).item()
    ex.prefix_links = {(): {"x": 1.0}}                      # the weight moves to another candidate: another loss
    assert bgr_loss_batch(model, [ex], items).item() != linked
    ex.prefix_links = None                                  # unknown links read as 0, as in a closed pool
    zero = bgr_loss_batch(model, [ex], items).item()
    ex.prefix_links = {(): {}}
    assert bgr_loss_batch(model, [ex], items).item() == zero
    plain = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2))
    assert plain.forward_model.matcher.n_link == 0          # models without the feature keep their shapes


def test_open_example_records_each_prefixs_link_weights_within_the_pool():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.train.bgr_open import open_example

    class Linked(FakeSearch):
        def linked(self, question, path):
            return {"s4": 1.0, "s7": 0.5, "not-in-db": 1.0} if not path else {}

    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    ex = open_example(example(), CandidateCache(Linked(), k=3), by_text)
    assert set(ex.prefix_links) == set(ex.prefix_cands)
    assert all(d in ex.pool.ids for w in ex.prefix_links.values() for d in w)
    assert ex.prefix_links[()] == {d: w for d, w in {"s4": 1.0, "s7": 0.5}.items() if d in ex.pool.ids}


@pytest.mark.parametrize("options, needle", [(["--link-feature"], "--link-feature needs --open-k"),
                                             (["--select-split", "dev", "--carve-every", "4"],
                                              "--carve-every: only with --select-split train")])
def test_train_bgr_refuses_options_that_do_not_go_together(tmp_path, options, needle):
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", "from graphhop.cli import main; main()", "train", "bgr", str(tmp_path),
                        "-o", str(tmp_path / "m"), *options, "--cache", str(tmp_path / "c")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert needle in r.stderr and not (tmp_path / "c").exists()   # refused before any work


def test_select_open_chooses_path_pruning_per_direction_from_the_same_runs():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.train.bgr_open import select_open

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=2, max_edges=4)).eval()
    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    search = FakeSearch()
    settings, table = select_open(model, [example()], CandidateCache(search, k=4), by_text, thresholds=(0.0,),
                                  branches=(4,), union_thresholds=(0.8,), ks=(4,), prunes=((0, "deep"), (1, "prob")))
    # threshold 0, branching 4: four root candidates (F1 < 1); the single best path is one sentence
    assert table["k4:forward@0.0/branch4/keep1-prob"] != table["k4:forward@0.0/branch4"]
    assert settings.keep_paths in (0, 1) and settings.path_rank in ("deep", "prob")
    best = max((table["k4:forward@0.0/branch4"], 0), (table["k4:forward@0.0/branch4/keep1-prob"], 1))[1]
    assert settings.keep_paths == best


def test_select_open_chooses_a_later_step_threshold_per_direction():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.graph import ROOT
    from graphhop.retrieve.bgr_open import _Seen, retrieve_direction_open
    from graphhop.train.bgr_open import select_open

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=2, max_edges=8)).eval()
    search, ex = FakeSearch(), example()
    cache = CandidateCache(search, k=4)

    def run(later):
        return retrieve_direction_open(model.direction("forward"), ex.query, ex.question_vec, search, _Seen(search),
                                       "forward", 0.0, 2, 8, 2, 4, cache, None, later)
    # threshold 0 at every step: two root children and their children; a later threshold of 1 stops after step 1
    assert len(run(None).edges) > 2
    stopped = run(1.0).edges
    assert len(stopped) == 2 and all(u == ROOT for u, _ in stopped)
    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    settings, table = select_open(model, [ex], cache, by_text, thresholds=(0.0,), branches=(2,), union_thresholds=(0.8,),
                                  ks=(4,), later_thresholds=(-1.0, 1.0))
    assert "k4:forward@0.0/branch2/later1.0" in table and "k4:forward@0.0/branch2" in table
    # the gold sentence s0 is a second step here (the root children are s4, s5): stopping after step 1 loses it
    assert table["k4:forward@0.0/branch2/later1.0"] == 0.0 < table["k4:forward@0.0/branch2"]
    assert settings.later_threshold_forward == -1.0 and settings.later("forward") is None
