"""``graphhop eval-qa`` and ``graphhop ask`` (default kgqa) from the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from graphhop.cli import app

REGRESSION = Path(__file__).resolve().parents[1] / "regression" / "kg_companies"


def test_eval_qa_json_on_a_suite_folder() -> None:
    result = CliRunner().invoke(app, ["eval-qa", str(REGRESSION), "--sample", "6", "--hops", "4", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output.strip().splitlines()[-1])
    assert out["n"] == 6 and out["of"] >= 30 and out["method"] == "kgqa"
    assert set(out) >= {"dataset", "split", "n", "answer_hits1", "em", "support_recall", "right_reason", "abstained",
                        "by_hops", "by_qtype"}
    assert 0.0 <= out["answer_hits1"] <= 1.0 and out["right_reason"] <= out["answer_hits1"]


def test_eval_qa_rejects_bad_input() -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["eval-qa", "no-such-dataset", "--json"])
    assert bad.exit_code != 0 and "unknown dataset" in str(bad.exception)
    assert runner.invoke(app, ["eval-qa", str(REGRESSION), "--sample", "0"]).exit_code != 0
    assert runner.invoke(app, ["eval-qa", str(REGRESSION), "--method", "magic"]).exit_code != 0


def test_ask_defaults_to_kgqa_on_a_fact_index(tmp_path: Path) -> None:
    from graphhop.index.directory import build_index, documents_from_facts
    from graphhop.kb.loaders import iter_triples

    build_index(documents_from_facts(iter_triples(REGRESSION / "kb.tsv")), tmp_path / "idx", dense=None, progress=False)
    result = CliRunner().invoke(app, ["ask", "Who designed the Vanta Phone?", "--index", str(tmp_path / "idx"), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output.strip().splitlines()[-1])
    assert out["method"] == "kgqa" and out["answer"] == "Caspar Threlk"
    assert [n["facts"] for n in out["support_graph"]["nodes"] if n.get("facts")] == [[["Vanta Phone", "designed by", "Caspar Threlk"]]]


def test_eval_qa_passes_pipeline_options() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["eval-qa", str(REGRESSION), "--sample", "3", "--hops", "4", "--json",
                                 "--option", "answer_order=name", "-o", "end_typing=false"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index('{"dataset"'):])
    assert out["options"] == {"answer_order": "name", "end_typing": "false"} and out["n"] == 3
    for bad in (["--option", "answer_order"], ["--option", "colour=blue"], ["--option", "end_typing=maybe"]):
        res = runner.invoke(app, ["eval-qa", str(REGRESSION), "--sample", "1", *bad])
        assert res.exit_code != 0 and res.exception is not None and "Traceback" not in res.output


def test_train_kgqa_names_each_bad_option(tmp_path: Path) -> None:
    """Each bad ``train kgqa`` count gets its own one-line message naming it (checked before any training)."""
    import subprocess
    import sys

    runner = CliRunner()
    for option, value in (("--train-limit", "0"), ("--epochs", "0"), ("--metaqa-limit", "0"), ("--synthetic", "-1"),
                          ("--schemas", "-1"), ("--schema-variants", "-1")):
        res = runner.invoke(app, ["train", "kgqa", "--out", str(tmp_path / "out"), option, value])
        assert res.exit_code != 0 and str(res.exception) == f"{option} must be at least {0 if value == '-1' else 1} (got {value})"
    res = runner.invoke(app, ["train", "kgqa", "--out", str(tmp_path / "out"), "--lures"])
    assert res.exit_code != 0 and str(res.exception).startswith("--lures needs --hard")
    (tmp_path / "a-file").write_text("x")
    for bad in (tmp_path / "a-file", tmp_path / "nowhere" / "epochs"):  # refused before the corpus is built
        res = runner.invoke(app, ["train", "kgqa", "--out", str(tmp_path / "out"), "--epoch-dir", str(bad)])
        assert res.exit_code != 0 and str(res.exception).startswith(f"--epoch-dir {bad}: not a folder")
    for inside in (tmp_path / "out", tmp_path / "out" / "epochs"):  # the final head would be refused at the end
        res = runner.invoke(app, ["train", "kgqa", "--out", str(tmp_path / "out"), "--epoch-dir", str(inside), "--overwrite"])
        assert res.exit_code != 0 and str(res.exception).startswith(f"--epoch-dir {inside}: is --out")
    r = subprocess.run([sys.executable, "-c", "from graphhop.cli import main; main()", "train", "kgqa", "--out",
                        str(tmp_path / "out"), "--train-limit", "0"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [r.stderr.strip()] and "--train-limit" in r.stderr
    assert not (tmp_path / "out").exists()
