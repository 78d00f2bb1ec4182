"""Why `ask` misses the non-plain questions of the selection sets: each miss classified by cause.

    python benchmarks/text_list_eval.py ask SET... --out runs/types/base.json --types list count yes/no comparison
    python benchmarks/text_type_misses.py runs/types/base.json [--show]
    python benchmarks/text_type_misses.py --ask-dir DIR SET... [--show]   # the tables text_ask_eval.py wrote to DIR

Reads the per-question rows ``text_list_eval.py ask`` writes (answers, support, the answer's trace, and a list's
candidate readings) and prints one markdown table: per type, how many were asked, right, and missed for each cause
(``--show`` lists the questions of each cause). From ``text_ask_eval.py``'s tables (``--ask-dir``) there is no trace
nor candidate list: a list's ``gold item not read`` and the yes/no route are not told. Causes, first that applies:

list
    ``no answer``; ``gold item not read`` (a gold item among no candidate reading); ``items right, support short``;
    ``wrong items kept`` (every gold item kept, others too); ``gold item dropped`` (some gold item read but not kept,
    nothing wrong kept); ``dropped and wrong kept``.
yes/no, count, comparison
    ``no answer``; ``right, support short`` (the answer right, a gold passage not in the support); ``said yes`` /
    ``said no`` (yes/no: the verdict the wrong way, split by the route that decided it: ``claim``, ``identity``,
    ``same``, ``compare``); ``too many`` / ``too few`` (count); ``wrong option`` (comparison).
"""

from __future__ import annotations

import argparse
import collections
import json
import re
from pathlib import Path


def _plain(text: str) -> str:
    text = re.sub(r"\b(?:a|an|the)\b", " ", re.sub(r"[^\w\s]", " ", text.lower()))
    return " ".join(text.split())


def _route(trace: dict) -> str:
    """Which rule of the yes/no reader decided (from its trace)."""
    if "identity" in trace:
        return "identity"
    if "side_questions" in trace:
        return "same"
    if "chosen" in trace or "first" in trace:
        return "compare"
    return "claim"


def cause(row: dict) -> str:
    """The first cause (module docstring) of a missed question; ``right`` when it is right."""
    if row["right"]:
        return "right"
    if not row["answers"]:
        return "no answer"
    gold = {_plain(a) for a in row["gold"]}
    support_ok = set(row["gold_passages"]) <= set(row["support"])
    if row["type"] == "list":
        read = {_plain(r["text"]) for r in row["readings"]} if "readings" in row else gold
        kept = {_plain(a) for a in row["answers"]}
        if not gold <= read:
            return "gold item not read"
        if kept == gold:
            return "items right, support short"
        wrong, dropped = kept - gold, gold - kept
        return "wrong items kept" if not dropped else ("gold item dropped" if not wrong else "dropped and wrong kept")
    answer = _plain(row["answers"][0])
    if answer in gold:
        return "right, support short"
    if row["type"] in ("yes/no", "boolean"):
        return f"said {answer} ({_route(row['trace'])})" if "trace" in row else f"said {answer}"
    if row["type"] == "count":
        try:
            value, truth = float(answer), min(float(_plain(g)) for g in row["gold"] if _plain(g).isdigit())
        except ValueError:
            return "not a number"
        return "too many" if value > truth else "too few"
    return "wrong option"


def ask_rows(folder: Path, sets: list[str]) -> list[dict]:
    """The non-plain rows of ``text_ask_eval.py``'s tables in ``folder`` (``<set>-text.json``), with their gold."""
    data = Path(__file__).resolve().parents[1] / "tests" / "pipeline" / "data"
    rows = []
    for name in sets:
        traces = json.loads((folder / f"{name}-text.json").read_text(encoding="utf-8"))["traces"]["text"]
        questions = [json.loads(line) for line in (data / name / "questions.jsonl").read_text().splitlines() if line]
        for q, t in zip(questions, traces):
            if q.get("type") in ("list", "count", "yes/no", "boolean", "comparison"):
                rows.append({"set": name, "id": q["id"], "type": q["type"], "gold": q.get("answers", []),
                             "gold_passages": q.get("gold_passages", []), "answers": t["answers"],
                             "support": t["support"], "right": right(t, q)})
    return rows


def right(trace: dict, q: dict) -> bool:
    """Right for the right reason, as ``text_ask_eval.py`` scores it."""
    from graphhop.metrics.qa import right_for_right_reason

    return right_for_right_reason(trace["answer"], trace["answers"], trace["support"], bool(trace["answers"]),
                                  q["type"], q.get("answers", []), q.get("gold_passages", []))


def table(rows: list[dict], show: bool = False) -> list[str]:
    """Markdown rows: per type the questions, right, and the misses of each cause."""
    lines = ["| type | n | right | cause of the miss | n | questions |", "|---|---:|---:|---|---:|---|"]
    for kind in dict.fromkeys(r["type"] for r in rows):
        of = [r for r in rows if r["type"] == kind]
        by: dict[str, list[str]] = collections.defaultdict(list)
        for r in of:
            by[cause(r)].append(r["id"])
        right = len(by.pop("right", []))
        for i, (why, ids) in enumerate(sorted(by.items(), key=lambda kv: -len(kv[1]))):
            head = f"| {kind} | {len(of)} | {right} |" if i == 0 else "| | | |"
            lines.append(f"{head} {why} | {len(ids)} | {', '.join(ids) if show else ''} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="+", help="text_list_eval.py's rows (JSON), or the set names with --ask-dir")
    ap.add_argument("--ask-dir", type=Path, default=None, help="read text_ask_eval.py's tables in this folder")
    ap.add_argument("--show", action="store_true", help="list the questions of each cause")
    args = ap.parse_args()
    rows = ask_rows(args.ask_dir, args.rows) if args.ask_dir else json.loads(Path(args.rows[0]).read_text(encoding="utf-8"))
    print("\n".join(table(rows, args.show)))


if __name__ == "__main__":
    main()
