"""Fitting the stop head on teacher-forced open prefixes and choosing its go/stop on a carve."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graphhop.retrieve.bgr_stop import STOP_FEATURES, StopHead
from tests.train.test_bgr_relation import _steps


def test_stop_table_labels_the_steps_after_the_first_by_whether_gold_goes_on():
    from graphhop.retrieve.bgr_relation import RelationWords
    from graphhop.retrieve.mention_links import MentionIndex
    from graphhop.train.bgr_stop import stop_table
    from tests.retrieve.test_bgr_relation import WordEncoder
    from tests.train.test_bgr_open import TEXTS

    steps = _steps()
    words = RelationWords(MentionIndex({"ada lovelace", "london", "lord byron", "england"}, {}), WordEncoder())
    x, y = stop_table(steps, words, None, TEXTS.__getitem__, "forward")
    # the 2-sentence gold chain: after s4 it goes on, after s4 s5 it ends; the first step is left out
    assert x.shape == (2, len(STOP_FEATURES)) and y.tolist() == [1, 0]
    assert x[:, 0].tolist() == [1.0, 2.0]
    xb, yb = stop_table(steps, words, None, TEXTS.__getitem__, "backward")
    assert yb.tolist() == [1, 0]


def test_fit_stop_head_learns_the_depth_and_select_stop_chooses_from_its_grid():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings
    from graphhop.retrieve.bgr_relation import RelationHead, RelationWords
    from graphhop.retrieve.graphhop import BGRConfig, BGRModel
    from graphhop.retrieve.mention_links import MentionIndex
    from graphhop.train.bgr_relation import PrefixStep
    from graphhop.train.bgr_stop import fit_stop_head, select_stop
    from tests.retrieve.test_bgr_relation import WordEncoder
    from tests.train.test_bgr_open import TEXTS, FakeSearch, example

    words = RelationWords(MentionIndex({"ada lovelace"}, {}), WordEncoder())
    rng = np.random.default_rng(0)
    steps = [PrefixStep("forward", depth + 1, ["s1", "s2"], rng.normal(0, 1, 2).astype(np.float32),
                        np.zeros((2, 11), dtype=np.float32), np.array([False, False]), depth == 2,
                        frozenset({"s3"}) if depth == 1 else frozenset(), 0, ("s0", "s1")[:depth], "where ?")
             for depth in (1, 2) for _ in range(20)]
    head, summary = fit_stop_head(steps, words, None, TEXTS.__getitem__)
    assert summary["forward"] == {"steps": 40, "continue": 0.5, "fit_accuracy": 1.0}
    assert summary["backward"]["steps"] == 0 and head.backward == [0.0] * (len(STOP_FEATURES) + 1)
    one, two = np.zeros(len(STOP_FEATURES)), np.zeros(len(STOP_FEATURES))
    one[0], two[0] = 1.0, 2.0
    assert head.p_continue(one) > 0.5 > head.p_continue(two)
    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=3)).eval()
    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    settings = OpenSettings(threshold_forward=0.0, threshold_backward=0.0, max_branch=2, max_branch_backward=2, k=4)
    sure_stop = StopHead(forward=[-30.0] + [0.0] * len(STOP_FEATURES))
    chosen, table = select_stop(model, [example()], CandidateCache(FakeSearch(), 4), by_text, settings,
                                (words, RelationHead()), sure_stop, grid=((-1.0, -1.0), (-1.0, 0.5)))
    # the backward direction was not fitted (all-zero weights, p = 0.5): only "off" is tried for it
    assert set(table) == {"forward:go-1.0/stop-1.0", "forward:go-1.0/stop0.5", "backward:go-1.0/stop-1.0"}
    # the gold sentence s0 is a second step here (the root children are s4, s5): stopping after step 1 loses it
    assert table["forward:go-1.0/stop0.5"] == 0.0 < table["forward:go-1.0/stop-1.0"]
    assert chosen.stopping("forward") == (-1.0, -1.0) and chosen.threshold_forward == 0.0 and chosen.k == 4
    # an unfitted head never turns "go" on, even where go 0.5 would pass its p = 0.5 everywhere
    off, table = select_stop(model, [example()], CandidateCache(FakeSearch(), 4), by_text, settings,
                             (words, RelationHead()), StopHead(), grid=((0.5, -1.0), (0.5, 0.3)))
    assert set(table) == {"forward:go-1.0/stop-1.0", "backward:go-1.0/stop-1.0"}
    assert off.stopping("forward") == off.stopping("backward") == (-1.0, -1.0)


def test_card_carve_reads_the_cards_carve_every(tmp_path):
    import json

    from graphhop.train.bgr_open import card_carve

    rows = [{"id": f"r{i}", "question": f"q{i}", "evidence": [], "graph": {"nodes": [{"id": f"n{i}", "facts": [[f"a{i}", "r", f"b{i}"]]}]}}
            for i in range(40)]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    card = {"train_config": {"dev_limit": 120}}
    tenth, rest = card_carve(tmp_path, card)
    fourth, rest4 = card_carve(tmp_path, {**card, "carve_every": 4})
    assert len(tenth) == 4 and len(fourth) == 10 and len(rest4) == 30          # 40 one-question chain groups
    assert [r["question"] for r in fourth] == [f"q{i}" for i in range(0, 40, 4)]
    assert [r["question"] for r in tenth] == ["q0", "q10", "q20", "q30"]
    from graphhop.core import InputError

    with pytest.raises(InputError, match="carve_every / train_config.dev_limit must be whole numbers"):
        card_carve(tmp_path, {**card, "carve_every": "every fourth"})
    with pytest.raises(InputError, match="carve_every must be at least 1"):
        card_carve(tmp_path, {**card, "carve_every": -3})


def test_carve_examples_besides_leaves_out_the_questions_a_fit_used(tmp_path, monkeypatch):
    import json

    import graphhop.train.bgr_data as bgr_data
    from graphhop.core import InputError
    from graphhop.train.bgr_open import carve_examples

    rows = [{"id": f"r{i}", "question": f"q{i}", "evidence": [], "graph": {"nodes": [{"id": f"n{i}", "facts": [[f"a{i}", "r", f"b{i}"]]}]}}
            for i in range(40)]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(bgr_data, "load_examples", lambda records, emb: [r["question"] for r in records])
    card = {"train_config": {"dev_limit": 120}, "carve_every": 2, "select_split": "train-carve"}   # 20 carve questions
    fit = carve_examples(tmp_path, card, 10, None)
    chosen = carve_examples(tmp_path, card, 10, None, besides=10)
    assert len(fit) == len(chosen) == 10 and not set(fit) & set(chosen)
    with pytest.raises(InputError, match="no questions besides the 20 fitted on"):
        carve_examples(tmp_path, card, 10, None, besides=20)


def test_search_steps_record_the_searchs_own_steps_wrong_paths_labelled_stop():
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings
    from graphhop.retrieve.bgr_relation import RelationHead, RelationWords
    from graphhop.retrieve.graphhop import BGRConfig, BGRModel
    from graphhop.retrieve.mention_links import MentionIndex
    from graphhop.train.bgr_stop import fit_stop_head, search_steps
    from tests.retrieve.test_bgr_relation import WordEncoder
    from tests.train.test_bgr_open import TEXTS, FakeSearch, example

    torch.manual_seed(0)
    model = BGRModel(BGRConfig(input_dim=8, dim=16, hidden=16, heads=2, max_depth=3)).eval()
    words = RelationWords(MentionIndex({"ada lovelace"}, {}), WordEncoder())
    by_text = {normalize_text(t): d for d, t in TEXTS.items()}
    settings = OpenSettings(threshold_forward=0.0, threshold_backward=0.0, max_branch=2, max_branch_backward=2, k=4)
    got = search_steps(model, [example()], CandidateCache(FakeSearch(), 4), by_text, settings, (words, RelationHead()))
    x, y = got["forward"]
    # a wide search: many steps after the first, and the one-sentence gold never goes on: all labelled stop
    assert x.shape[1] == len(STOP_FEATURES) and len(y) >= 2 and y.tolist() == [0] * len(y)
    assert set(x[:, 0].tolist()) <= {1.0, 2.0}
    head, summary = fit_stop_head([], words, None, TEXTS.__getitem__, more=got)
    assert summary["forward"] == {"steps": len(y), "continue": 0.0}   # one label only: the direction stays off
    assert head.forward == [0.0] * (len(STOP_FEATURES) + 1)
