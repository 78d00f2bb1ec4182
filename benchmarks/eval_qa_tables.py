"""Markdown tables from ``graphhop eval-qa --json`` outputs: one row per dataset, then one per question
type (``by_qtype``), with a second method's figures (e.g. the previous default, ``--method dense``) beside
each row when its output for the same dataset is given (``--beside`` may be given several times, one pair of
columns each, named by ``--label``: e.g. the previous default and the start of the session).

    graphhop eval-qa metaqa-1h --split dev --sample 300 --json > new/metaqa-1h.json     # likewise the others
    graphhop eval-qa metaqa-1h --split dev --sample 300 --method dense --json > old/metaqa-1h.json
    python benchmarks/eval_qa_tables.py new/*.json --beside old/*.json [--by-type] [--min-n 3]
    python benchmarks/eval_qa_tables.py new/*.json --beside old/*.json --label dense --beside before/*.json --label before

Rows of the second method over a different sample (another ``n``) are still put beside; the table gives both n.
With ``--min-n K`` the question types with fewer than K questions are pooled into one ``other`` row (means
weighted by n; PathQuestion has a type per relation chain).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

COLUMNS = ("answer_hits1", "em", "support_recall", "right_reason", "abstained")


def _load(paths: list[str]) -> dict[str, dict[str, Any]]:
    out = {}
    for p in paths:
        text = Path(p).read_text(encoding="utf-8").strip()
        if not text:
            raise SystemExit(f"{p}: empty (did the eval-qa run finish?)")
        d = json.loads(text.splitlines()[-1])
        out[d["dataset"]] = d
    return out


def _cells(block: dict[str, Any] | None) -> str:
    if block is None:
        return "— | —"
    fmt = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
    return f"{block['n']} | " + " / ".join(fmt(block.get(c)) for c in ("answer_hits1", "right_reason"))


def pooled(blocks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Blocks merged: n summed, each measure the n-weighted mean of those that have it."""
    if not blocks:
        return None
    out: dict[str, Any] = {"n": sum(b["n"] for b in blocks)}
    for c in COLUMNS:
        have = [b for b in blocks if b.get(c) is not None]
        out[c] = sum(b[c] * b["n"] for b in have) / sum(b["n"] for b in have) if have else None
    return out


def _types(d: dict[str, Any], olds: list[dict[str, Any] | None], min_n: int) -> list[tuple[str, Any, list]]:
    other_types = [(o or {}).get("by_qtype", {}) for o in olds]
    big = [(t, b, [ot.get(t) for ot in other_types]) for t, b in sorted(d["by_qtype"].items()) if b["n"] >= min_n]
    small = [t for t, b in d["by_qtype"].items() if b["n"] < min_n]
    if small:
        rest = pooled([d["by_qtype"][t] for t in small])
        big.append((f"other ({len(small)} types, n<{min_n} each)", rest,
                    [pooled([ot[t] for t in small if t in ot]) for ot in other_types]))
    return big


def table(new: dict[str, dict[str, Any]], old: dict[str, dict[str, Any]] | list[dict[str, dict[str, Any]]], by_type: bool,
          min_n: int = 1, labels: list[str] | None = None) -> list[str]:
    """The markdown lines: dataset rows (and question-type rows under each with ``by_type``); ``old`` is one
    method's outputs by dataset, or a list of them (one pair of columns each, headed by ``labels``)."""
    olds = old if isinstance(old, list) else [old]
    labels = list(labels or []) + ["beside"] * (len(olds) - len(labels or []))
    head = "| " + " | ".join(["dataset", "question type", "n", *COLUMNS] + [
        f"{lab}: n | {lab}: Hits@1 / right reason" for lab in labels]) + " |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 3 + 2 * len(olds))]
    for name, d in new.items():
        os_ = [o.get(name) for o in olds]
        rows = [("all", d, os_)]
        if by_type:
            rows += _types(d, os_, min_n)
        for qtype, block, others in rows:
            vals = " | ".join("—" if block.get(c) is None else f"{block[c]:.3f}" for c in COLUMNS)
            label = f"{block['n']} of {d['of']}" if qtype == "all" else str(block["n"])
            lines.append("| " + " | ".join([name, qtype, label, vals] + [_cells(o) for o in others]) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outputs", nargs="+", help="eval-qa --json outputs of the method reported")
    ap.add_argument("--beside", nargs="*", action="append", default=[],
                    help="eval-qa --json outputs of a method put beside (repeatable: one pair of columns each)")
    ap.add_argument("--label", action="append", default=[], help="the name of each --beside group, in order")
    ap.add_argument("--by-type", action="store_true", help="a row per question type under each dataset")
    ap.add_argument("--min-n", type=int, default=1, help="pool the question types with fewer questions into one row")
    args = ap.parse_args()
    print("\n".join(table(_load(args.outputs), [_load(b) for b in args.beside], args.by_type, args.min_n, args.label)))


if __name__ == "__main__":
    main()
