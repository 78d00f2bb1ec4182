"""EntailmentBank task 3's Experiment: gold leaf sets with unmapped leaves as misses, evidence-set measures."""

from __future__ import annotations

import pytest


def test_unmapped_leaves_stay_in_the_gold_and_count_as_misses():
    from graphhop.eval.experiment import Experiment, System
    from graphhop.eval.leaves import _star, leaf_golds
    from graphhop.eval.measures import Prediction
    from graphhop.train.leaves import LeafExample

    examples = [LeafExample("a", "q1", ["s1", "s2"], 3), LeafExample("b", "q2", ["s3"], 5)]
    golds = leaf_golds(examples)
    assert golds[0].evidence == {"s1", "s2", "__unmapped_0"} and golds[0].groups == {"leaves": "3-4"}
    assert len(golds[1].evidence) == 5 and golds[1].groups == {"leaves": "5+"}
    preds = [Prediction(graph=_star("q1", ["s1", "s9"])), Prediction(graph=_star("q2", []))]
    table = Experiment(("evidence P", "evidence R", "evidence F1", "size"), report="dev", select="carve").run(
        {"m": System(lambda qs: preds)}, ["q1", "q2"], golds)
    row = table.rows[0]
    assert row["evidence P"] == pytest.approx(0.25)                 # 1/2 and 0 (nothing predicted)
    assert row["evidence R"] == pytest.approx((1 / 3) / 2)
    assert row["evidence F1"] == pytest.approx((2 * 0.5 * (1 / 3) / (0.5 + 1 / 3)) / 2)
    assert row["size"] == pytest.approx(1.0)


def test_deep_recall_measures_the_first_stage_ranking():
    from graphhop.core import Hit
    from graphhop.eval.leaves import LEAF_MEASURES, leaf_golds
    from graphhop.eval.measures import Prediction, get_measure
    from graphhop.train.leaves import LeafExample

    assert "R@25" in LEAF_MEASURES and "R@50" in LEAF_MEASURES
    golds = leaf_golds([LeafExample("a", "q", ["g1", "g2"], 2)])
    ranking = [Hit(f"x{i}", 1.0) for i in range(30)]
    ranking[20], ranking[29] = Hit("g1", 1.0), Hit("g2", 1.0)
    pred = [Prediction(ranking=ranking)]
    assert get_measure("R@25").score(pred, golds) == [0.5] and get_measure("R@50").score(pred, golds) == [1.0]
