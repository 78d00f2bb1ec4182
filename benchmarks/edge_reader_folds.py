"""Before/after tables of `ask` over passage sets from two `text_ask_eval.py` output folders (the edge reader's folds).

    python benchmarks/edge_reader_folds.py runs/base runs/after-foldA SET... [--label A]

Reads ``<dir>/<set>-text.json`` of both folders (the same question order as ``tests/pipeline/data/<set>``), scores
each question right-for-the-right-reason (:func:`text_type_misses.right`) and prints markdown: per set, per question
type (before / after / n) and the questions that moved (id, type, question, the answer after).
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from text_type_misses import right

DATA = Path(__file__).resolve().parents[1] / "tests" / "pipeline" / "data"


def rows(folder: Path, name: str) -> list[dict]:
    """One row per question of set ``name``: id, type, question, answer, right."""
    traces = json.loads((folder / f"{name}-text.json").read_text(encoding="utf-8"))["traces"]["text"]
    questions = [json.loads(line) for line in (DATA / name / "questions.jsonl").read_text().splitlines() if line]
    return [{"id": q["id"], "type": q.get("type", "plain"), "question": q["question"], "answer": t["answer"],
             "right": right(t, q)} for q, t in zip(questions, traces)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("sets", nargs="+")
    args = ap.parse_args()
    by_type: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    moved, total = [], [0, 0, 0]
    print("| set | n | before | after |\n|---|---:|---:|---:|")
    for name in args.sets:
        b, a = rows(args.before, name), rows(args.after, name)
        nb, na = sum(r["right"] for r in b), sum(r["right"] for r in a)
        print(f"| {name} | {len(b)} | {nb} | {na} |")
        total = [total[0] + len(b), total[1] + nb, total[2] + na]
        for rb, ra in zip(b, a):
            t = by_type[rb["type"]]
            t[0], t[1], t[2] = t[0] + 1, t[1] + rb["right"], t[2] + ra["right"]
            if rb["right"] != ra["right"]:
                moved.append(f"| {name} | {rb['id']} | {rb['type']} | {'+' if ra['right'] else '-'} | {rb['question']} | "
                             f"{rb['answer']} -> {ra['answer']} |")
    print(f"| **all** | {total[0]} | **{total[1]}** | **{total[2]}** |\n")
    print("| type | n | before | after |\n|---|---:|---:|---:|")
    for kind in sorted(by_type):
        n, nb, na = by_type[kind]
        print(f"| {kind} | {n} | {nb} | {na} |")
    print("\n| set | id | type | moved | question | answer before -> after |\n|---|---|---|---|---|---|")
    print("\n".join(moved))


if __name__ == "__main__":
    main()
