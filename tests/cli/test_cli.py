"""The command line: index, search, eval, demo; bad input is one line, never a traceback."""

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from graphhop.cli import app

runner = CliRunner()
GRAPHHOP = [sys.executable, "-c", "from graphhop.cli import main; main()"]


def run(*args, env=None):
    return subprocess.run([*GRAPHHOP, *args], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300)


@pytest.fixture(scope="module")
def kb_index(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    kb = d / "kb.tsv"
    kb.write_text("Mona_Lisa\tpainted_by\tLeonardo_da_Vinci\nLouvre\tlocated_in\tParis\nParis\tcapital_of\tFrance\n")
    out = d / "index"
    r = run("index", str(kb), "--out", str(out), "--dense", "flat")
    assert r.returncode == 0, r.stderr
    assert "indexed 3 facts" in r.stdout
    return out


def test_index_then_search_json(kb_index):
    r = run("search", str(kb_index), "who painted the mona lisa", "-k", "2", "--method", "bm25", "--json")
    assert r.returncode == 0, r.stderr
    (result,) = json.loads(r.stdout)
    assert result["hits"][0]["text"] == "Mona Lisa [SEP] painted by [SEP] Leonardo da Vinci"
    assert result["hits"][0]["rank"] == 1


def test_search_table_all_methods(kb_index):
    for method in ("dense", "hybrid"):
        r = runner.invoke(app, ["search", str(kb_index), "capital of France", "--method", method, "-k", "1"])
        assert r.exit_code == 0, r.output
        assert "Paris [SEP] capital of [SEP] France" in r.output


def test_bad_input_is_one_line_and_keeps_existing_index(kb_index, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\tc\nbroken line\n")
    before = (kb_index / "manifest.json").read_text()
    r = run("index", str(bad), "--out", str(kb_index), "--overwrite", "--dense", "none")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]  # exactly one line
    assert f"{bad}:2: expected 3 tab-separated fields, found 1" in r.stderr.replace("\n", "")
    assert "Traceback" not in r.stderr
    assert (kb_index / "manifest.json").read_text() == before


def test_skip_bad_lines_reports(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\tc\nbroken line\nd\te\tf\n")
    r = run("index", str(bad), "--out", str(tmp_path / "i"), "--dense", "none", "--skip-bad-lines")
    assert r.returncode == 0, r.stderr
    assert "indexed 2 facts" in r.stdout and "skipped 1 bad line(s)" in r.stderr


def test_corrupted_index_and_bad_options_one_line(kb_index, tmp_path):
    r = run("search", str(tmp_path), "q")
    assert r.returncode == 2 and "not a graphhop index" in r.stderr and "Traceback" not in r.stderr
    r = run("search", str(kb_index), "q", "-k", "5000")
    assert r.returncode == 2 and "-k: must be between 1 and 1000" in r.stderr


def test_help_of_each_command():
    for cmd in ("index", "search", "eval", "demo", "datasets"):
        r = runner.invoke(app, [cmd, "--help"])
        assert r.exit_code == 0 and "Usage" in r.output


@pytest.mark.data
def test_eval_on_real_data_prints_one_table(data_dir, tmp_path):
    r = run("eval", "pq-2h", "--methods", "bm25", "--data", str(data_dir), "--json", env={"GRAPHHOP_CACHE": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    table = json.loads(r.stdout.strip().splitlines()[-1])
    (row,) = table["rows"]
    assert row["method"] == "bm25" and row["n"] == 186
    # BM25 over cleaned facts (docs/RESULTS.md): a gold fact is usually at rank 1
    assert row["fact Hits@1"] > 0.6 and row["fact MRR"] > 0.75  # measured 0.651 / 0.804


def test_trainers_share_options_with_their_own_defaults(monkeypatch):
    """`train retriever` and `train reranker` read one option table; each gets its own defaults."""
    import graphhop.cli.train as train_cli

    seen = {}
    monkeypatch.setattr(train_cli, "_load", lambda datasets, data, limit, holdout, max_positives, seed:
                        (seen.update(load=(datasets, limit, max_positives, seed)) or (["pq-2h"], None, None)))
    monkeypatch.setattr(train_cli, "_run", lambda kind, out, names, train, val, cfg, as_json:
                        seen.update(kind=kind, out=str(out), cfg=cfg.to_dict()))
    assert runner.invoke(app, ["train", "retriever", "-o", "m", "--datasets", "pq-2h"]).exit_code == 0
    assert (seen["cfg"]["lr"], seen["cfg"]["hard_negatives"], seen["cfg"]["max_length"]) == (2e-5, 1, 64)
    assert (seen["cfg"]["random_negatives"], seen["cfg"]["scale"], seen["out"]) == (0, 20.0, "m")
    args = ["train", "reranker", "-o", "r", "--datasets", "pq-2h,wc-c", "--max-positives", "3", "--limit", "5", "--eval-k", "9"]
    assert runner.invoke(app, args).exit_code == 0
    assert (seen["cfg"]["lr"], seen["cfg"]["hard_negatives"], seen["cfg"]["max_length"]) == (3e-5, 3, 96)
    assert (seen["cfg"]["random_negatives"], seen["cfg"]["eval_k"], seen["load"]) == (1, 9, ("pq-2h,wc-c", 5, 3, 0))
    assert runner.invoke(app, ["train", "reranker", "--datasets", "pq-2h"]).exit_code == 2   # --out is required


def test_datasets_shows_which_splits_are_present_and_hints_without_a_root(tmp_path):
    """``datasets --json`` marks a dev file placed under the root and a missing test file; with no root at all it
    says how to give one (one line on stderr) instead of an unexplained empty column."""
    (tmp_path / "wc2014").mkdir()
    (tmp_path / "wc2014" / "WC-C.dev.txt").write_text("")
    r = run("datasets", "--data", str(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    row = next(x for x in json.loads(r.stdout)["rows"] if x["dataset"] == "wc-c")
    assert row["dev present"] is True and row["test present"] is False
    env = {k: v for k, v in os.environ.items() if k != "GRAPHHOP_DATA"}
    r = subprocess.run([*GRAPHHOP, "datasets"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and "no data root" in r.stderr
