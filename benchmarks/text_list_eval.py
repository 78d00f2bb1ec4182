"""List (and count) questions of the selection sets, asked one by one: per question the answers, support and right.

    python benchmarks/text_list_eval.py ask SET... --out runs/lists/new.json [--types list count]
    python benchmarks/text_list_eval.py compare runs/lists/base.json runs/lists/new.json

``ask`` asks each question of the given types (default: list and count, the questions whose answers go through
:func:`graphhop.read.text_lists.list_items`) with the walk reader, as ``benchmarks/text_ask_eval.py`` scores it
(right for the right reason), and writes one JSON row per question; ``compare`` prints per set the list and count
questions right before and after, and the questions won and lost (run ``ask`` at two commits to compare them).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "tests" / "pipeline" / "data"


def ask(sets: list[str], types: list[str], index_dir: Path) -> list[dict]:
    """Every question of ``types`` in ``sets``: id, set, type, question, gold answers and passages, the type
    detected, answers, support, the answer's trace, right."""
    from text_ask_eval import suite_index

    from graphhop.metrics.qa import right_for_right_reason
    from graphhop.pipeline.text import TextPipeline, load_suite

    rows = []
    for name in sets:
        pipe = TextPipeline(suite_index(DATA / name, index_dir))
        for q in load_suite(DATA / name):
            if q.get("type") not in types:
                continue
            res = pipe.ask(q["question"])
            right = right_for_right_reason(res.answer or "", res.answers, res.support, res.supported, q["type"],
                                           q.get("answers", []), q.get("gold_passages", []))
            rows.append({"set": name, "id": q["id"], "type": q["type"], "question": q["question"],
                         "gold": q.get("answers", []), "gold_passages": q.get("gold_passages", []),
                         "qtype": res.qtype, "answers": list(res.answers), "support": list(res.support),
                         "trace": json.loads(json.dumps(res.trace, default=str)), "right": bool(right),
                         "readings": readings(pipe, q) if q["type"] == "list" else []})
    return rows


def readings(pipe: Any, q: dict) -> list[dict]:
    """A list question's candidate readings as the reader reads it (answer, margin, holder, hops, type fit, path,
    sentence), best first: what the list's items are chosen from."""
    _, found = pipe.qa._read(q["question"])
    return [{"text": r.text, "margin": round(float(r.margin), 3), "holder": r.holder, "hops": r.hops,
             "type_fit": round(float(r.type_fit), 3), "path": list(r.path), "sentence": r.sentence}
            for r in sorted(found, key=lambda r: -r.margin)]


def compare(base: list[dict], new: list[dict]) -> list[str]:
    """Markdown rows: per set the list and count questions right before/after, won and lost."""
    old = {r["id"]: r for r in base}
    lines = ["| set | list n | before | after | count n | before | after | won | lost |", "|---|" + "---:|" * 6 + "---|---|"]
    for name in dict.fromkeys(r["set"] for r in new):
        rows = [r for r in new if r["set"] == name and r["id"] in old]
        cells = []
        for kind in ("list", "count"):
            of = [r for r in rows if r["type"] == kind]
            cells += [len(of), sum(old[r["id"]]["right"] for r in of), sum(r["right"] for r in of)]
        won = [r["id"] for r in rows if r["right"] and not old[r["id"]]["right"]]
        lost = [r["id"] for r in rows if old[r["id"]]["right"] and not r["right"]]
        lines.append(f"| {name} | " + " | ".join(map(str, cells)) + f" | {', '.join(won) or '–'} | {', '.join(lost) or '–'} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ask")
    a.add_argument("sets", nargs="+")
    a.add_argument("--out", type=Path, required=True)
    a.add_argument("--types", nargs="+", default=["list", "count"])
    c = sub.add_parser("compare")
    c.add_argument("base", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "ask":
        rows = ask(args.sets, args.types, args.out.parent / "index")
        args.out.write_text(json.dumps(rows, indent=1, default=float), encoding="utf-8")
        print(f"{sum(r['right'] for r in rows)} of {len(rows)} right", flush=True)
    else:
        print("\n".join(compare(json.loads(args.base.read_text()), json.loads(args.new.read_text()))))


if __name__ == "__main__":
    main()
