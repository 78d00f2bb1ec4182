"""The benchmarks' library half: BGR benchmark splits (chain-disjoint carve, --split), gold relabelling,
reader systems over given graphs and the QA measures beside them."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from graphhop.core import InputError
from graphhop.datasets.splits import canonical_path
from graphhop.eval.bgr_bench import benchmark_records, relabel_gold, report_splits, results_markdown
from graphhop.eval.experiment import Experiment, read_system
from graphhop.eval.measures import Gold
from graphhop.graph import ROOT, EvidenceGraph


def _record(i: int, chain: int, split: str) -> dict:
    path = [(f"p{chain}", "parents", f"m{chain}"), (f"m{chain}", "nationality", f"n{chain}")]
    nodes = [{"id": f"e{j}", "kind": "evidence", "text": " ".join(t), "facts": [list(t)]} for j, t in enumerate(path)]
    return {"id": f"{split}-{i}", "question": f"question {i} about chain {chain}", "answers": [f"n{chain}"], "hops": 2,
            "evidence": [{"id": n["id"], "text": n["text"], "facts": n["facts"]} for n in nodes],
            "graph": {"root": ROOT, "question": "q", "nodes": nodes, "edges": [[ROOT, "e0"], ["e0", "e1"]]}}


def _folder(tmp_path, splits=("train", "dev")):
    for split in splits:  # train: 40 chains, each asked three times at spread-out lines
        recs = [_record(i, i % 40, split) for i in range(120)] if split == "train" else [_record(i, 100 + i, split) for i in range(5)]
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return tmp_path


def _chains(recs: list[dict]) -> set[str]:
    return {canonical_path([tuple(n["facts"][0]) for n in r["graph"]["nodes"]]) for r in recs}


def test_benchmark_records_carve_selection_off_train_chain_disjointly(tmp_path) -> None:
    recs = benchmark_records("pq-2h", _folder(tmp_path), tmp_path, select_limit=9)
    assert set(recs) == {"train", "select", "dev"}  # the default test split is optional when its file is missing
    assert 0 < len(recs["select"]) <= 9 and len(recs["select"]) % 3 == 0  # whole chains: three questions each
    assert not _chains(recs["select"]) & _chains(recs["train"])
    assert len(recs["select"]) + len(recs["train"]) == 120
    assert list(report_splits("pq-2h", recs)) == ["dev"]


def test_benchmark_records_take_split_test_and_refuse_a_missing_file(tmp_path) -> None:
    folder = _folder(tmp_path, ("train", "dev", "test"))
    assert list(report_splits("pq-2h", benchmark_records("pq-2h", folder, tmp_path, splits=["test"]))) == ["test"]
    (folder / "test.jsonl").unlink()
    with pytest.raises(InputError, match="test.jsonl: no such file"):
        benchmark_records("pq-2h", folder, tmp_path, splits=["test"])
    with pytest.raises(InputError, match="not an evaluation split"):
        benchmark_records("pq-2h", folder, tmp_path, splits=["train"])


def test_relabel_gold_renames_by_text_and_counts_unreachable() -> None:
    gold = EvidenceGraph("q")
    gold.add_evidence("e0", "Paris is in  France.", [])
    gold.add_evidence("e1", "not in the db", [])
    gold.add_edge(ROOT, "e0")
    gold.add_edge("e0", "e1")
    relabelled, missing = relabel_gold(SimpleNamespace(gold=gold, id="x"), {"paris is in france.": "d7"})
    assert missing == 1 and set(relabelled.evidence_ids) == {"d7", "missing:x:e1"}
    assert ("d7", "missing:x:e1") in set(relabelled.edges)


def test_read_system_and_qa_measures_on_hand_made_graphs() -> None:
    graph = EvidenceGraph("q")
    graph.add_evidence("f1", "Ann was born in Paris.", [["Ann", "born_in", "Paris"]])
    graph.add_edge(ROOT, "f1")
    reader = SimpleNamespace(read=lambda q, g: SimpleNamespace(answer=SimpleNamespace(text="Paris"), answers=["Paris", "Rome"],
                                                                 qtype="query" if "where" in q else "count"))
    golds = [Gold("a", ["Paris"]), Gold("b", ["Lyon"], groups={"op": "count"})]
    table = Experiment(["QA EM", "set F1", "answer in graph", "qtype acc", "size"], report="dev").run(
        {"gold": read_system([graph, graph], reader, oracle="the gold graph")}, ["where was Ann born?", "how many?"], golds)
    (row,) = table.rows
    assert row["method"] == "gold (oracle: the gold graph)"
    assert row["QA EM"] == 0.5 and row["set F1"] == pytest.approx((2 / 3 + 0) / 2)
    assert row["answer in graph"] == 0.5 and row["qtype acc"] == 1.0 and row["size"] == 1.0


def test_results_markdown_shows_each_report_split_and_the_carve() -> None:
    table = {"title": "t", "measures": ["F1"], "rows": [{"method": "bgr-forward", "n": 2, "F1": 0.5, "s/q": 0.1}],
             "groups": {"type": [{"method": "bgr-forward", "type": "chain", "n": 2, "F1": 0.5}],
                        "depth": [{"method": "bgr-forward", "depth": "depth 2", "n": 2, "F1": 0.5}]}, "n": 2}
    md = results_markdown({"dataset": "pq-2h", "train": 10, "select": 3, "train_seconds": 1.0, "selection": {"merge": "union"},
                           "baseline_shapes": {}, "eval": {"dev": table, "test": table}})
    assert "### pq-2h dev (closed pools)" in md and "### pq-2h test (closed pools)" in md
    assert "chain-disjoint carve" in md and "| bgr-forward | 2 | 0.500 | 0.100 |" in md


def test_closed_latency_pads_pools_to_the_size_asked() -> None:
    import numpy as np

    from graphhop.eval.bgr_bench import closed_latency

    sizes: list[int] = []
    pool = lambda n, tag: SimpleNamespace(ids=[f"{tag}{i}" for i in range(n)], texts=["t"] * n, vectors=np.ones((n, 2)))  # noqa: E731
    examples = [SimpleNamespace(id=f"q{j}", pool=pool(4, f"q{j}-"), question="q", question_vec=np.ones(2), query="q") for j in range(3)]
    ret = SimpleNamespace(retrieve_pool=lambda q, p, v, query: sizes.append(len(p.ids)))
    out = closed_latency(ret, examples, 10)
    assert sizes == [10, 10, 10] and out["n"] == 3 and out["pool"] == 10 and out["p50_ms"] >= 0


@pytest.mark.slow
def test_bgr_eval_script_runs_issue_5_ablation_flags_on_a_tiny_dataset(tmp_path) -> None:
    """benchmarks/bgr_eval.py with matcher ablation flags and --ged-timeout trains, then --reuse-model --reselect
    chooses the settings again on the carve; both write their Experiment tables."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "bgr_eval.py"
    folder, out = tmp_path / "data", tmp_path / "runs"
    folder.mkdir()  # 10 chains asked three times each; 3 dev questions
    (folder / "train.jsonl").write_text("".join(json.dumps(_record(i, i % 10, "train")) + "\n" for i in range(30)))
    (folder / "dev.jsonl").write_text("".join(json.dumps(_record(i, 100 + i, "dev")) + "\n" for i in range(3)))
    base = [sys.executable, str(script), "--dataset", "pq-2h", "--data-dir", str(folder), "--out", str(out),
            "--cache", str(tmp_path / "cache"), "--train-limit", "12", "--select-limit", "6", "--eval-limit", "3",
            "--epochs", "1", "--ged-timeout", "0.1"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    run = subprocess.run(base + ["--wide-pair", "--vector-dropout", "0.2"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    card = json.loads((out / "pq-2h" / "model" / "model_card.json").read_text())
    assert card["config"]["wide_pair"] is True and card["config"]["vector_dropout"] == 0.2
    result = json.loads((out / "pq-2h" / "results.json").read_text())
    methods = [r["method"] for r in result["eval"]["dev"]["rows"]]
    assert "bgr-bidirectional" in methods and "mdr (oracle: k = gold set size)" in methods
    assert all(r["n"] == 3 and 0.0 <= r["F1"] <= 1.0 for r in result["eval"]["dev"]["rows"])
    again = subprocess.run(base + ["--reuse-model", "--reselect"], capture_output=True, text=True, env=env)
    assert again.returncode == 0, again.stderr[-2000:]
    assert json.loads((out / "pq-2h" / "model" / "model_card.json").read_text())["selection"]["merge"]
    refused = subprocess.run(base + ["--crossfit"], capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and "--crossfit needs --finetune-encoder" in refused.stderr
