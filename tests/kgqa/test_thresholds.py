"""The scorer's "no supported answer" thresholds: one per hop count of the best chain, and the corpus cache."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import Fact, InputError
from graphhop.kb.store import KGStore
from graphhop.kgqa.thresholds import choose_threshold, hop_thresholds, threshold_for


def test_a_hop_count_gets_its_own_threshold_where_it_has_enough_questions():
    # 1-hop: right at 0.9, wrong at 0.5; 3-hop: right at 0.3-0.4, wrong at 0.1; 2-hop (few): right at 0.2
    probs = np.array([0.9] * 60 + [0.5] * 20 + [0.4] * 40 + [0.3] * 20 + [0.1] * 10 + [0.2] * 5)
    hits = np.array([True] * 60 + [False] * 20 + [True] * 60 + [False] * 10 + [True] * 5)
    hops = np.array([1] * 80 + [3] * 70 + [2] * 5)
    single = choose_threshold(probs, hits)
    assert single == pytest.approx(0.2)  # one threshold keeps the 20 wrong 1-hop answers ...
    by_hops = hop_thresholds(probs, hits, hops, least=50)
    assert by_hops == {"1": pytest.approx(0.9)}  # ... its own withholds the wrong 1-hop answers (60 vs 40)
    assert "2" not in by_hops  # 5 questions: the single threshold stays
    assert "3" not in by_hops  # its own (0.3) ties the single one on 3-hop questions (60 = 60): the single stays
    config = {"threshold": single, "thresholds_by_hops": by_hops}
    assert threshold_for(config, 1) == pytest.approx(0.9) and threshold_for(config, 2) == pytest.approx(0.2)
    assert threshold_for({"threshold": 0.51}, 3) == pytest.approx(0.51)


def test_a_hop_count_keeps_the_single_threshold_unless_its_own_wins_by_the_margin():
    # 1-hop, 200 questions all right but 2 wrong at 0.1: its own threshold (0.2) nets 198 + 0 vs the single's
    # 0.1 -> 196 (+2, the margin is 1% of 200 = 2: own); 3-hop, 300 questions, 1 wrong at 0.3: +1 < 3 (single)
    probs = np.array([0.8] * 198 + [0.1] * 2 + [0.6] * 299 + [0.3])
    hits = np.array([True] * 198 + [False] * 2 + [True] * 299 + [False])
    hops = np.array([1] * 200 + [3] * 300)
    assert hop_thresholds(probs, hits, hops, single=0.1) == {"1": pytest.approx(0.8)}
    assert hop_thresholds(probs, hits, hops, single=0.1, margin=0.02) == {}  # +2 < 4
    assert hop_thresholds(probs, hits, hops, single=0.1, margin=0.0) == {"1": pytest.approx(0.8), "3": pytest.approx(0.6)}
    # all right: its own threshold (0.0, never withhold) only ties a higher single one, which stays
    assert hop_thresholds(np.full(60, 0.7), np.ones(60, bool), np.ones(60, int), single=0.5) == {}


def test_the_threshold_is_that_of_the_scorer_paths_hop_count_not_the_typed_one():
    """The demo's "In which country was the author of Don Quixote born?": the scorer's 2-hop chain is
    continued to a 3rd hop by answer typing; its probability is the 2-hop chain's, judged at 2 hops."""
    from graphhop.demo import DEMO_DATA
    from graphhop.kb.loaders import iter_triples
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.kgqa.scorer import PathScorer

    store = KGStore.from_facts(iter_triples(DEMO_DATA / "kb.tsv"))
    shipped = PathScorer.load()
    question = "In which country was the author of Don Quixote born?"

    def ask(by_hops: dict[str, float]) -> dict:
        head = PathScorer(shipped.head, {**shipped.config, "thresholds_by_hops": by_hops}, shipped._encoder)
        return KGQA(store, head, max_hops=4).ask(question)

    strict_three = ask({"3": 1.01})
    assert strict_three["supported"] and strict_three["answer"] == "Spain"
    assert strict_three["trace"]["answer_type"]["moved_hops"] == 1  # typed to 3 hops, judged at the scorer's 2
    strict_two = ask({"2": 1.01})
    assert not strict_two["supported"] and "threshold 1.010" in strict_two["trace"]["reason"]


def test_the_pipeline_judges_a_chain_by_its_hop_count_unless_told_one_threshold():
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.kgqa.scorer import PathScorer

    facts = [("Saltwind", "directed by", "Marta Velloso"), ("Marta Velloso", "born in", "Porto Lumen"),
             ("Porto Lumen", "located in", "Veldaria")]
    store = KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(facts))
    shipped = PathScorer.load()
    strict_two = PathScorer(shipped.head, {**shipped.config, "thresholds_by_hops": {"2": 1.01}}, shipped._encoder)
    kgqa = KGQA(store, strict_two, max_hops=3)
    one = kgqa.ask("Who directed Saltwind?")
    assert one["supported"] and one["answer"] == "Marta Velloso"
    two = kgqa.ask("Where was the director of Saltwind born?")
    assert not two["supported"] and "threshold 1.010" in two["trace"]["reason"]
    told = KGQA(store, strict_two, max_hops=3, threshold=0.0).ask("Where was the director of Saltwind born?")
    assert told["supported"] and told["answer"] == "Porto Lumen"


def test_the_corpus_cache_is_read_back_and_refuses_other_options(tmp_path, monkeypatch):
    import graphhop.kgqa.train as train
    from graphhop.kgqa.corpus_cache import cached_corpus

    built = []
    monkeypatch.setattr(train, "build_corpus", lambda scorer, root=None, progress=True, **o: built.append(o) or {"n": len(built)})
    cache, root, other_root = tmp_path / "corpus.pkl", tmp_path / "data", tmp_path / "data2"
    root.mkdir(), other_root.mkdir()
    options = {"seed": 0, "hard": True, "schemas": 600}
    assert cached_corpus(cache, options, root=root, progress=False) == {"n": 1} and cache.is_file()
    assert cached_corpus(cache, options, root=root, progress=False) == {"n": 1} and len(built) == 1  # read, not rebuilt
    from graphhop.kgqa.corpus_cache import CORPUS_FORMAT, read_corpus_cache

    kept, _ = read_corpus_cache(cache)
    assert kept == {**options, "data_root": str(root.resolve()), "corpus_format": CORPUS_FORMAT}
    with pytest.raises(InputError, match="other options .schemas: 600"):
        cached_corpus(cache, {**options, "schemas": 0}, root=root, progress=False)
    with pytest.raises(InputError, match="other options .data_root"):
        cached_corpus(cache, options, root=other_root, progress=False)
    monkeypatch.setattr("graphhop.kgqa.corpus_cache.CORPUS_FORMAT", CORPUS_FORMAT + 1)
    with pytest.raises(InputError, match="other options .corpus_format"):
        cached_corpus(cache, options, root=root, progress=False)
    cache.write_bytes(b"not a pickle")
    with pytest.raises(InputError, match="not a KGQA corpus cache"):
        cached_corpus(cache, options, root=root, progress=False)
    assert cached_corpus(None, options, progress=False) == {"n": 2}  # no cache: built each time
    # a bad --cache path is refused before anything is built
    for bad, why in [(tmp_path, "is a directory"), (tmp_path / "nowhere" / "c.pkl", "does not exist")]:
        with pytest.raises(InputError, match=why):
            cached_corpus(bad, options, root=root, progress=False)
    assert len(built) == 2


def test_the_hop_threshold_benchmark_refuses_a_head_of_other_training_options(tmp_path, monkeypatch):
    import importlib.util
    import pickle
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "kgqa_hop_thresholds.py"
    spec = importlib.util.spec_from_file_location("kgqa_hop_thresholds", script)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cache = {"seed": 0, "metaqa_limit": 3000, "hard": True, "schemas": 600, "data_root": "/d", "corpus_format": 1}
    same = {"seed": 0, "metaqa_limit": 3000, "hard_negatives": True, "schema_questions": 600, "lr": 0.002}
    assert bench.mismatched_options(same, cache) == []
    assert bench.mismatched_options({**same, "schema_questions": 0, "seed": 1}, cache) == ["seed: 1 != 0",
                                                                                           "schema_questions: 0 != 600"]
    cache_file = tmp_path / "corpus.pkl"  # the shipped head records seed 0, metaqa_limit 3000, synthetic 600
    cache_file.write_bytes(pickle.dumps({"options": {"seed": 1, "metaqa_limit": 3000, "synthetic": 600}, "corpus": None}))
    monkeypatch.setattr(sys, "argv", ["kgqa_hop_thresholds.py", "--cache", str(cache_file), "--weights",
                                      str(Path(bench.__file__).parents[1] / "src" / "graphhop" / "weights" / "kgqa")])
    with pytest.raises(SystemExit, match=r"trained with other options than .*\(seed: 0 != 1\)$"):
        bench.main()
