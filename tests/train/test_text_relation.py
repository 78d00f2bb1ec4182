"""The text relation matcher's trainer (graphhop.train.text_relation): options checked before any work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphhop.eval.script import run_script
from graphhop.train import text_relation


@pytest.mark.parametrize("argv, words", [
    (["--per-set", "0"], "--per-set"),
    (["--epochs", "0"], "--epochs"),
    (["--names", "--side", "question"], "--side words"),
    (["--natural", "--side", "question"], "--side words"),
    (["--no-facts"], "--no-facts needs"),
])
def test_bad_options_stop_in_one_line_before_any_work(argv, words, tmp_path, monkeypatch, capsys):
    def no_work(*args, **kwargs):
        raise AssertionError("pairs were built before the options were checked")

    monkeypatch.setattr(text_relation, "training_pairs", no_work)
    monkeypatch.setattr(text_relation, "musique_pairs", no_work)
    monkeypatch.setattr(sys, "argv", ["text_relation", "--out", str(tmp_path / "m"), "--data", str(tmp_path), *argv])
    with pytest.raises(SystemExit) as stop:
        run_script(text_relation.main)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and words in err and err.startswith("error: ") and len(err.splitlines()) == 1
    assert not (tmp_path / "m").exists()


def test_the_module_cli_prints_one_line_without_a_traceback(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    done = subprocess.run([sys.executable, "-m", "graphhop.train.text_relation", "--out", str(tmp_path / "m"),
                           "--data", str(tmp_path), "--per-set", "0"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == ["error: --epochs and --per-set must be >= 1, got 6 and 0"]
