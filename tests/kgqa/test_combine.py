"""The learned final order of the reranker's chains (docs/RESULTS.md, issue 12, "Session 17 (kgc17)"): a listwise
softmax over per-chain features replaces head score + w x logit when ``rerank_combine`` is given."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphhop.kgqa.combine import FEATURES, ChainCombiner, chain_features, first_is_gold, fit_combiner, list_ranks
from graphhop.kgqa.paths import RelPath
from tests.kgqa.test_rerank_beam import FASHION, _Fixed, _store

COVERED = FEATURES.index("covered")


def _lists(n: int, seed: int) -> list[tuple[np.ndarray, int]]:
    """Lists of 8 random chains whose gold one is the one covering most named relations (the head score is noise)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        x = rng.normal(size=(8, len(FEATURES)))
        x[:, COVERED] = rng.permutation(8)
        out.append((x, int(np.argmax(x[:, COVERED]))))
    return out


def test_the_fit_learns_the_feature_that_marks_the_gold_chain() -> None:
    model = fit_combiner(_lists(200, 0), l2=0.01)
    held = _lists(100, 1)
    first = sum(list_ranks(model.scores(x), g) == 0 for x, g in held)
    by_head = sum(list_ranks(x[:, FEATURES.index("head")], g) == 0 for x, g in held)
    assert first >= 95 and by_head <= 30
    assert int(np.argmax(np.abs(model.weights))) == COVERED and model.weights[COVERED] > 0
    strong = fit_combiner(_lists(200, 0), l2=10.0)  # a heavy penalty shrinks the weights
    assert np.abs(strong.weights).sum() < np.abs(model.weights).sum()


def test_several_gold_rows_and_the_margin_that_keeps_the_fixed_order() -> None:
    """A list may accept two chains first (the base pipeline's first chain worked, and the gold one); with a margin,
    the learned order is used only when its first chain beats the fixed sum's first by that much."""
    rng = np.random.default_rng(4)
    lists = []
    for _ in range(200):
        x = rng.normal(size=(8, len(FEATURES)))
        x[:, COVERED] = rng.permutation(8)
        lists.append((x, [int(np.argmax(x[:, COVERED])), int(np.argmin(x[:, COVERED]))]))
    model = fit_combiner(lists, l2=0.001)
    assert sum(first_is_gold(model.scores(x), g) for x, g in lists) >= 190
    assert abs(model.weights[COVERED]) == np.abs(model.weights).max()  # either end of the coverage order is right
    x = np.zeros((3, len(FEATURES)))
    x[:, FEATURES.index("head")] = [3.0, 2.0, 1.0]  # the fixed sum puts row 0 first
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index("head")] = -1.0  # the learned order puts row 2 first, by 2.0
    unit = (np.zeros(len(FEATURES)), np.ones(len(FEATURES)))
    assert int(np.argmax(ChainCombiner(weights, *unit, {"margin": 1.5}).scores(x))) == 2
    assert int(np.argmax(ChainCombiner(weights, *unit, {"margin": 2.5}).scores(x))) == 0


def test_a_combiner_saves_and_loads_and_refuses_other_features(tmp_path: Path) -> None:
    model = fit_combiner(_lists(50, 2), l2=0.1, fold=1)
    model.save(tmp_path / "c.json")
    back = ChainCombiner.load(tmp_path / "c.json")
    x = _lists(1, 3)[0][0]
    assert np.allclose(back.scores(x), model.scores(x)) and back.card["fold"] == 1 and back.card["l2"] == 0.1
    data = json.loads((tmp_path / "c.json").read_text())
    data["features"] = data["features"][::-1]
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="features"):
        ChainCombiner.load(tmp_path / "bad.json")


def test_reorder_by_a_combine_function_keeps_the_score_ladder() -> None:
    store = _store(FASHION)
    paths = [RelPath(((store.relation_id[r], True),), [np.array([0]), np.array([1])], score=s)
             for r, s in (("head_office", 3.0), ("founded_by", 2.0), ("chief_executive", 1.0))]
    reranker = _Fixed({"chief executive": 5.0}, w=0.0)
    assert reranker.reorder("x", store, paths) == paths  # w 0 and no combiner: the head's order
    got = reranker.reorder("x", store, paths, combine=lambda ps, z: -np.asarray([p.score for p in ps]))
    assert [p.steps[0][0] for p in got] == [store.relation_id[r] for r in ("chief_executive", "founded_by", "head_office")]
    assert [p.score for p in got] == [3.0, 2.0, 1.0]


def test_chain_features_of_a_reading() -> None:
    from graphhop.kgqa.pipeline import KGQA

    kgqa = KGQA(_store(FASHION), abstain=False)
    reading = kgqa.read("Who is the chief executive of Orla Veste?", kgqa.linker.link("Who is the chief executive of Orla Veste?")[0])
    top = reading.paths[:8]
    x = chain_features(kgqa, reading.text, top, np.arange(len(top), dtype=float))
    col = {name: x[:, i] for i, name in enumerate(FEATURES)}
    assert x.shape == (len(top), len(FEATURES))
    assert col["head_rank"].tolist() == list(range(len(top)))  # the head's order
    assert col["logit_rank"].tolist() == list(range(len(top)))[::-1]  # logits 0, 1, ...: the last is first
    assert col["hops"].tolist() == [len(p.steps) for p in top]
    chief = next(i for i, p in enumerate(top) if p.steps == ((kgqa.store.relation_id["chief_executive"], True),))
    assert col["covered"][chief] == max(col["covered"]) >= 1 and col["unnamed"][chief] == 0


def _weights_like(kind: str, w: float = 0.5) -> ChainCombiner:
    """A combiner that scores as the head alone (``head``) or as head + w x logit (``sum``), on unit-std features."""
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index("head")] = 1.0
    if kind == "sum":
        weights[FEATURES.index("logit")] = w
    return ChainCombiner(weights, np.zeros(len(FEATURES)), np.ones(len(FEATURES)), {})


@pytest.mark.parametrize("question", ["Which country was the boss of Orla Veste born in?", "Who runs Orla Veste?"])
def test_the_pipeline_option_reads_a_combiner_file(tmp_path: Path, question: str) -> None:
    """A combiner equal to head + 0.5 x logit answers as the shipped reranker; one equal to the head as no reranker."""
    from graphhop.kgqa.pipeline import KGQA

    store = _store(FASHION)
    for kind in ("sum", "head"):
        _weights_like(kind).save(tmp_path / f"{kind}.json")
    plain, shipped = (KGQA(store, abstain=False, rerank=r).ask(question) for r in (False, True))
    as_sum = KGQA(store, abstain=False, rerank=True, rerank_combine=str(tmp_path / "sum.json")).ask(question)
    as_head = KGQA(store, abstain=False, rerank=True, rerank_combine=str(tmp_path / "head.json")).ask(question)
    assert (as_sum["answer"], as_sum["trace"]["relation_path"]) == (shipped["answer"], shipped["trace"]["relation_path"])
    assert (as_head["answer"], as_head["trace"]["relation_path"]) == (plain["answer"], plain["trace"]["relation_path"])
    assert KGQA(store, abstain=False, rerank=False, rerank_combine=True).combiner is None  # no reranker, no combiner
