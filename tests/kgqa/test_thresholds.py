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
    assert by_hops == {"1": pytest.approx(0.9), "3": pytest.approx(0.3)}  # ... two withhold the wrong 1-hop answers
    assert "2" not in by_hops  # 5 questions: the single threshold stays
    config = {"threshold": single, "thresholds_by_hops": by_hops}
    assert threshold_for(config, 1) == pytest.approx(0.9) and threshold_for(config, 2) == pytest.approx(0.2)
    assert threshold_for({"threshold": 0.51}, 3) == pytest.approx(0.51)


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
    cache = tmp_path / "corpus.pkl"
    options = {"seed": 0, "hard": True, "schemas": 600}
    assert cached_corpus(cache, options, progress=False) == {"n": 1} and cache.is_file()
    assert cached_corpus(cache, options, progress=False) == {"n": 1} and len(built) == 1  # read, not rebuilt
    with pytest.raises(InputError, match="other options"):
        cached_corpus(cache, {**options, "schemas": 0}, progress=False)
    cache.write_bytes(b"not a pickle")
    with pytest.raises(InputError, match="not a KGQA corpus cache"):
        cached_corpus(cache, options, progress=False)
    assert cached_corpus(None, options, progress=False) == {"n": 2}  # no cache: built each time
