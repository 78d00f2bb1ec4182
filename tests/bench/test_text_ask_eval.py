"""``benchmarks/text_ask_eval.py``: ``--walk KEY=VALUE`` options parsed and checked against the walk reader."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("text_ask_eval", Path(__file__).resolve().parents[2] / "benchmarks" / "text_ask_eval.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def test_walk_options_parse_values_and_reject_unknown_keys_in_one_line() -> None:
    from graphhop.core import InputError

    assert bench.walk_options(["relation_scale=5", "match_mode=always", "soft=null"]) == {
        "relation_scale": 5, "match_mode": "always", "soft": None}
    with pytest.raises(InputError, match="'relation_sclae' is not a walk reader option"):
        bench.walk_options(["relation_sclae=5"])
    with pytest.raises(InputError, match="expected KEY=VALUE"):
        bench.walk_options(["relation_scale"])
    with pytest.raises(InputError, match="not a walk reader option"):  # passed separately by the pipeline
        bench.walk_options(["relation_matcher=x"])
