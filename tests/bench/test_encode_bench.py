"""`graphhop bench encode --json`: every backend side by side on one dev set (tiny model: fast)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from graphhop.bench.encode import stride_sample
from graphhop.cli import app


def test_stride_sample_spans_the_whole_list():
    assert stride_sample(list(range(100)), 4) == [0, 25, 50, 75]
    assert stride_sample([1, 2], 5) == [1, 2]


@pytest.mark.data
def test_bench_encode_json_has_every_backend(data_dir, tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path))
    monkeypatch.setenv("GRAPHHOP_DATA", str(data_dir))
    r = CliRunner().invoke(app, ["bench", "encode", "--n", "200", "--dataset", "pq-2h", "--limit", "30", "--threads", "1",
                                 "--backends", "torch,onnx,static", "--model", tiny_model, "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(out["backends"]) == {"torch", "onnx", "static"} and out["questions"] == 30 and out["sample"] == 200
    for row in out["backends"].values():
        assert row["facts_per_s"] > 0 and 0 <= row["mrr"] <= row["hits@10"] <= 1
    assert out["backends"]["onnx"]["cos_to_torch"] > 0.999
    assert abs(out["backends"]["onnx"]["mrr"] - out["backends"]["torch"]["mrr"]) < 0.02
    assert out["two_tier"]["first"] == "static" and 0 <= out["two_tier"]["mrr"] <= 1
    assert out["threads"] == 1 and len(out["load_avg"]) == 3


def test_bench_encode_refuses_unknown_backend():
    r = CliRunner().invoke(app, ["bench", "encode", "--backends", "torch,gpu"])
    assert r.exit_code != 0 and "unknown backend gpu" in str(r.exception or r.output)
