"""``benchmarks/open_graph_eval.py``: bad arguments fail in one line before any work."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("open_graph_eval", Path(__file__).resolve().parents[2] / "benchmarks" / "open_graph_eval.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)
ARGV = ["open_graph_eval.py", "--data-dir", "data", "--model", "model", "--out", "out"]


def test_a_negative_answer_reach_fails_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [*ARGV, "--answer-reaches", "0", "-1"])
    with pytest.raises(SystemExit) as exit_:
        bench.parse_args()
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith("--answer-reaches: entity links cannot be negative, got 0 -1")


def test_answer_reaches_zero_and_up_are_accepted(monkeypatch):
    monkeypatch.setattr(sys, "argv", [*ARGV, "--answer-reaches", "0", "1", "2"])
    assert bench.parse_args().answer_reaches == [0, 1, 2]


def test_reused_settings_cannot_be_chosen_again(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [*ARGV, "--settings", "results.json", "--select-open", "60"])
    with pytest.raises(SystemExit) as exit_:
        bench.parse_args()
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith("not with --select-open or --closed-settings")


def test_a_missing_settings_file_fails_before_any_work(tmp_path, monkeypatch):
    from graphhop.core import InputError

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [*ARGV, "--settings", "nope.json"])
    with pytest.raises(InputError, match="cannot read it"):
        bench.main()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("extra, message", [(["--later-thresholds", "1.5"], "a match threshold is between 0 and 1"),
                                            (["--select-branches", "0"], "a branching is at least 1"),
                                            (["--keep-paths", "-1"], "a path count cannot be negative, got -1"),
                                            (["--stop", "fit"], "--stop reads the relation words: give --relation too"),
                                            (["--relation", "fit", "--stop", "fit", "--stop-select", "0"],
                                             "--stop-select: at least one carve question, got 0")])
def test_bad_grid_values_fail_in_one_line(monkeypatch, capsys, extra, message):
    monkeypatch.setattr(sys, "argv", [*ARGV, *extra])
    with pytest.raises(SystemExit) as exit_:
        bench.parse_args()
    assert exit_.value.code == 2 and capsys.readouterr().err.strip().splitlines()[-1].endswith(message)


def test_a_bad_stop_head_fails_before_any_work(tmp_path, monkeypatch):
    from graphhop.core import InputError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "stop.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", [*ARGV, "--relation", "fit", "--stop", "stop.json"])
    with pytest.raises(InputError, match="not a stop head"):
        bench.main()
    assert not (tmp_path / "out").exists()
