"""``benchmarks/text_list_eval.py``: list and count questions compared between two runs, per set."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("text_list_eval", Path(__file__).resolve().parents[2] / "benchmarks" / "text_list_eval.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def _row(qid: str, kind: str, right: bool, name: str = "volcanoes") -> dict:
    return {"set": name, "id": qid, "type": kind, "gold": [], "answers": [], "support": [], "right": right}


def test_compare_counts_list_and_count_questions_right_before_and_after_and_names_won_and_lost() -> None:
    base = [_row("v10", "list", False), _row("v12", "list", True), _row("v18", "count", True), _row("c11", "list", False, "clocks")]
    new = [_row("v10", "list", True), _row("v12", "list", True), _row("v18", "count", False), _row("c11", "list", False, "clocks")]
    lines = bench.compare(base, new)
    assert lines[2] == "| volcanoes | 2 | 1 | 2 | 1 | 1 | 0 | v10 | v18 |"
    assert lines[3] == "| clocks | 1 | 0 | 0 | 0 | 0 | 0 | – | – |"
