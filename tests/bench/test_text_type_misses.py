"""``benchmarks/text_type_misses.py``: each missed non-plain question classified by its first cause."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_SPEC = importlib.util.spec_from_file_location("text_type_misses", Path(__file__).resolve().parents[2] / "benchmarks" / "text_type_misses.py")
bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bench)


def _row(kind: str, answers: list[str], gold: list[str], support=("p1",), right=False, **more) -> dict:
    return {"set": "s", "id": f"{kind}-{len(answers)}", "type": kind, "gold": gold, "gold_passages": ["p1"],
            "answers": answers, "support": list(support), "right": right, **more}


def test_list_causes_tell_dropped_wrong_unread_and_short_support() -> None:
    read = [{"text": t} for t in ("A", "B", "C")]
    assert bench.cause(_row("list", ["A"], ["A", "B"], readings=read)) == "gold item dropped"
    assert bench.cause(_row("list", ["A", "C"], ["A", "B"], readings=read)) == "dropped and wrong kept"
    assert bench.cause(_row("list", ["A", "B", "C"], ["A", "B"], readings=read)) == "wrong items kept"
    assert bench.cause(_row("list", ["A"], ["A", "D"], readings=read)) == "gold item not read"
    assert bench.cause(_row("list", ["A", "B"], ["A", "B"], support=(), readings=read)) == "items right, support short"
    assert bench.cause(_row("list", [], ["A"])) == "no answer"


def test_yes_no_count_and_comparison_causes() -> None:
    assert bench.cause(_row("yes/no", ["no"], ["yes"], trace={"identity": "A"})) == "said no (identity)"
    assert bench.cause(_row("yes/no", ["yes"], ["no"])) == "said yes"
    assert bench.cause(_row("count", ["1"], ["3"])) == "too few" and bench.cause(_row("count", ["4"], ["3"])) == "too many"
    assert bench.cause(_row("comparison", ["B"], ["A"])) == "wrong option"
    assert bench.cause(_row("comparison", ["A"], ["A"], support=())) == "right, support short"
    lines = bench.table([_row("count", ["1"], ["3"]), _row("count", ["3"], ["3"], right=True)])
    assert lines[2] == "| count | 2 | 1 | too few | 1 |  |"
