"""``benchmarks/eval_qa_tables.py``: eval-qa outputs to markdown, small question types pooled, a method beside."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("eval_qa_tables", Path(__file__).resolve().parents[2] / "benchmarks" / "eval_qa_tables.py")
tables = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tables)


def _block(n: int, hits: float, recall: float | None = 1.0) -> dict:
    return {"n": n, "answer_hits1": hits, "em": hits, "support_recall": recall, "right_reason": hits, "abstained": 0.0}


def test_small_types_are_pooled_weighted_by_n_and_the_other_method_sits_beside() -> None:
    new = {"pq-2h": {"dataset": "pq-2h", "of": 10, **_block(10, 0.8),
                     "by_qtype": {"a > b": _block(6, 1.0), "c > d": _block(3, 0.0, None), "e > f": _block(1, 0.0)}}}
    old = {"pq-2h": {"dataset": "pq-2h", "of": 10, **_block(10, 0.3), "by_qtype": {"a > b": _block(6, 0.5)}}}
    lines = tables.table(new, old, by_type=True, min_n=5)
    assert lines[2] == "| pq-2h | all | 10 of 10 | 0.800 | 0.800 | 1.000 | 0.800 | 0.000 | 10 | 0.300 / 0.300 |"
    assert lines[3] == "| pq-2h | a > b | 6 | 1.000 | 1.000 | 1.000 | 1.000 | 0.000 | 6 | 0.500 / 0.500 |"
    assert lines[4].startswith("| pq-2h | other (2 types, n<5 each) | 4 | 0.000 |") and lines[4].endswith("| — | — |")
    rest = tables.pooled([_block(3, 1.0, None), _block(1, 0.0, 0.5)])
    assert rest["n"] == 4 and rest["answer_hits1"] == pytest.approx(0.75) and rest["support_recall"] == pytest.approx(0.5)
    assert tables.pooled([]) is None
    two = tables.table(new, [old, {}], by_type=False, labels=["dense"])
    assert two[0].endswith("| dense: n | dense: Hits@1 / right reason | beside: n | beside: Hits@1 / right reason |")
    assert two[2].endswith("| 10 | 0.300 / 0.300 | — | — |") and two[1].count("---") == 12
    alone = tables.table(new, [], by_type=False)
    assert alone[0].endswith("| abstained |") and alone[2].endswith("| 0.000 |") and alone[1].count("---") == 8
