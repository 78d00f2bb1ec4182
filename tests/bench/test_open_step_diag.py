"""``benchmarks/open_step_diag.py``: bad arguments fail in one line before any DB is built."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from graphhop.core import InputError

_SPEC = importlib.util.spec_from_file_location("open_step_diag", Path(__file__).resolve().parents[2] / "benchmarks" / "open_step_diag.py")
diag = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(diag)


def test_open_settings_from_results_needs_meta_open_settings(tmp_path):
    from graphhop.retrieve.bgr_open import OpenSettings

    good = tmp_path / "results.json"
    good.write_text(json.dumps({"meta": {"open_settings": {"k": 7, "answer_reach": 1}}}), encoding="utf-8")
    settings = OpenSettings.from_results(good)
    assert (settings.k, settings.answer_reach, settings.merge) == (7, 1, "forward")
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"meta": {"n": 3}}), encoding="utf-8")
    with pytest.raises(InputError, match="no meta.open_settings"):
        OpenSettings.from_results(bad)
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"meta": {"open_settings": {"k": 7, "beam": 2}}}), encoding="utf-8")
    with pytest.raises(InputError, match="not a set of open settings"):
        OpenSettings.from_results(odd)
    with pytest.raises(InputError, match="cannot read it"):
        OpenSettings.from_results(tmp_path / "missing.json")


@pytest.mark.parametrize("extra, message", [(["--fit-relation", "--relation", "r.json"], "not both"),
                                            (["--settings", "nope.json"], "cannot read it")])
def test_argument_conflicts_fail_before_the_db_is_built(tmp_path, monkeypatch, extra, message):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["open_step_diag.py", "--data-dir", "data", "--model", "model", "--db-dir", "db",
                                      "--out", "out", *extra])
    with pytest.raises(InputError, match=message):
        diag.main()
    assert not (tmp_path / "db").exists() and not (tmp_path / "out").exists()


def test_a_negative_answer_reach_fails_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["open_step_diag.py", "--data-dir", "data", "--model", "model", "--db-dir", "db",
                                      "--out", "out", "--answer-reach", "-1"])
    with pytest.raises(SystemExit) as exit_:
        diag.main()
    assert exit_.value.code == 2 and not (tmp_path / "out").exists()
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith("--answer-reach: entity links cannot be negative, got -1")
