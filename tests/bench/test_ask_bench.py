"""``graphhop bench ask``: question sampling, the latency summary, warm timing on the demo KB, a cold run."""

from __future__ import annotations

import pytest

from graphhop.bench.ask import bench_questions, cold_start, latency_summary, warm_latency
from graphhop.core import InputError


def test_latency_summary_percentiles() -> None:
    s = latency_summary([0.1, 0.2, 0.3, 0.4, 1.0])
    assert s == {"n": 5, "p50_ms": 300.0, "p95_ms": 880.0, "mean_ms": 400.0, "max_ms": 1000.0}
    assert latency_summary([]) == {"n": 0}


@pytest.mark.data
def test_questions_are_strided_over_each_dataset(data_dir) -> None:
    kb, qs = bench_questions(["metaqa-1h", "metaqa-2h", "metaqa-3h"], 7, data_dir)
    assert kb.name == "kb.txt" and [h for _, h in qs] == [1, 1, 1, 2, 2, 3, 3]
    from graphhop.kgqa.train import metaqa_part

    assert all(metaqa_part(q) == "report" for q, _ in qs)  # never the half the scorer was fit on
    with pytest.raises(InputError, match="share one KB"):
        bench_questions(["pq-2h", "metaqa-1h"], 4, data_dir)
    with pytest.raises(InputError, match="unknown dataset"):
        bench_questions(["nope"], 4, data_dir)


@pytest.fixture(scope="module")
def demo():
    from graphhop.demo import demo_index

    return demo_index(progress=False)


def test_warm_latency_times_every_question_with_the_default_pipeline(demo) -> None:
    qs = [("How many countries border Switzerland?", 1), ("Who painted the Mona Lisa?", 1), ("Where was Mozart born?", 2)]
    out = warm_latency(demo, qs)
    assert out["method"] == "kgqa" and out["n"] == 3 and set(out["by_hops"]) == {"1", "2"}
    assert out["by_hops"]["1"]["n"] == 2 and 0 < out["p50_ms"] <= out["max_ms"]


@pytest.mark.slow
def test_cold_start_runs_a_fresh_ask_process(demo) -> None:
    out = cold_start(demo.path, "How many countries border Switzerland?", runs=1)
    assert out["answer"] == "5" and out["runs"] == 1
    assert out["wall_s"] > out["setup_s"] > 0 and out["answer_s"] > 0
