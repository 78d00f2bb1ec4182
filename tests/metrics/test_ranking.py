import pytest

from graphhop.core import Hit
from graphhop.metrics.ranking import per_query_metrics, ranking_metrics


def rk(*ids):
    return [Hit(i, 1.0 / (n + 1)) for n, i in enumerate(ids)]


def test_hand_computed_mrr_and_hits():
    rankings = {
        "q1": rk("a", "b", "c"),  # gold at rank 2 -> RR .5
        "q2": rk("x"),  # gold at rank 1 -> RR 1
        "q3": rk(*[f"d{i}" for i in range(11)], "g"),  # gold at rank 12 -> RR 1/12, not in top 10
        "q4": rk("n"),  # no gold retrieved -> 0
    }
    qrels = {"q1": {"b"}, "q2": {"x", "zz"}, "q3": {"g"}, "q4": {"m"}}
    per_q = per_query_metrics(rankings, qrels)
    assert per_q["q1"] == {"MRR": 0.5, "Hits@1": 0.0, "Hits@10": 1.0}
    assert per_q["q3"]["MRR"] == pytest.approx(1 / 12) and per_q["q3"]["Hits@10"] == 0.0
    agg = ranking_metrics(rankings, qrels)
    assert agg["MRR"] == pytest.approx((0.5 + 1 + 1 / 12 + 0) / 4)
    assert agg["Hits@1"] == pytest.approx(0.25)
    assert agg["Hits@10"] == pytest.approx(0.5)


def test_questions_without_gold_or_hits_count_as_zero():
    agg = ranking_metrics({"q1": rk("a"), "q2": [], "q3": rk("b")}, {"q1": {"a"}, "q3": set()})
    assert agg == {"MRR": pytest.approx(1 / 3), "Hits@1": pytest.approx(1 / 3), "Hits@10": pytest.approx(1 / 3)}


def test_ranking_order_is_kept_for_tied_scores():
    # trec_eval would re-sort ties by doc id ("z" after "a" reversed); our order must be used
    tied = {"q": [Hit("a", 1.0), Hit("z", 1.0)]}
    assert ranking_metrics(tied, {"q": {"z"}})["MRR"] == 0.5
    assert ranking_metrics(tied, {"q": {"a"}})["MRR"] == 1.0


def test_mrr_depth_is_1000():
    deep = {"q": rk(*[f"d{i}" for i in range(1000)], "g")}
    assert ranking_metrics(deep, {"q": {"g"}})["MRR"] == 0.0


def test_tie_share():
    from graphhop.evaluation import tie_share

    assert tie_share([[Hit("a", 2.0), Hit("b", 2.0)], [Hit("a", 2.0), Hit("b", 1.0)], [Hit("c", 1.0)], []]) == 0.25
