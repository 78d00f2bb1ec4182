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


@pytest.mark.parametrize("field, value, flag", [("grr", True, "--grr"), ("walk", ["depth=3"], "--walk"),
                                               ("relation_matcher", Path("m"), "--relation-matcher"),
                                               ("bgr_model", Path("m"), "--bgr-model"),
                                               ("ranker", "default", "--ranker")])
def test_text_kg_rejects_the_walk_options_in_one_line(field: str, value: object, flag: str) -> None:
    import argparse

    from graphhop.core import InputError

    args = argparse.Namespace(method="text-kg", grr=False, relation_matcher=None, walk=[], bgr_model=None, ranker=None)
    bench.check_method(args)  # none given
    setattr(args, field, value)
    with pytest.raises(InputError, match=f"^{flag} is an option of the walk reader"):
        bench.check_method(args)
    args.method = "text"
    bench.check_method(args)  # the walk reader takes it
