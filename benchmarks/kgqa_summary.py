"""Summarise ``graphhop eval-qa --details`` files: right for the right reason and R / W / A per KB and mode.

R / W / A = answered right / answered wrong / withheld; utility = R - W. Files are ``DIR/<kb>.<mode>.details``
(as ``benchmarks/kgqa_oof.sh`` writes them, mode ``on`` / ``off``).

    python benchmarks/kgqa_summary.py OUT
    python benchmarks/kgqa_summary.py OUT --against BASE     # also the questions whose right-reason flag moved
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def summarise(folder: Path) -> list[str]:
    """One line per (KB, mode) with its question types and hop counts, then one total line per mode."""
    lines, totals = [], defaultdict(lambda: [0, 0, 0, 0, 0])
    by_group: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])  # (mode, field, value) -> [n, rr]
    for path in sorted(folder.glob("*.details")):
        kb, mode = path.name.rsplit(".", 2)[:2]
        rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
        rr = sum(bool(r["right_reason"]) for r in rows)
        withheld = sum(bool(r["abstained"]) for r in rows)
        right = sum(bool(r["hits1"]) and not r["abstained"] for r in rows)
        wrong = len(rows) - right - withheld
        groups = {field: defaultdict(lambda: [0, 0]) for field in ("qtype", "hops")}
        for r in rows:
            for field, counts in groups.items():
                counts[str(r.get(field))][0] += 1
                counts[str(r.get(field))][1] += bool(r["right_reason"])
                by_group[(mode, field, str(r.get(field)))][0] += 1
                by_group[(mode, field, str(r.get(field)))][1] += bool(r["right_reason"])
        parts = [" ".join(f"{k}:{v[1]}/{v[0]}" for k, v in sorted(g.items())) for g in groups.values()]
        lines.append(f"{kb:18s} {mode:4s} n={len(rows)} rr={rr} R/W/A={right}/{wrong}/{withheld} util={right - wrong} "
                     f"| {parts[0]} | hops {parts[1]}")
        t = totals[mode]
        t[0] += len(rows); t[1] += rr; t[2] += right; t[3] += wrong; t[4] += withheld
    for mode, t in totals.items():
        lines.append(f"TOTAL {mode}: n={t[0]} rr={t[1]} R/W/A={t[2]}/{t[3]}/{t[4]} util={t[2] - t[3]}")
        for field in ("qtype", "hops"):
            lines.append(f"TOTAL {mode} by {field}: " + " ".join(f"{v}:{c[1]}/{c[0]}" for (m, f, v), c in sorted(by_group.items())
                                                                 if m == mode and f == field))
    return lines


def _rows(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, filter(str.strip, path.open(encoding="utf-8")))}


def moved(folder: Path, base: Path) -> list[str]:
    """Markdown rows of the questions whose right-for-the-right-reason flag differs from ``base`` (same file names):
    mode, KB, id, hops, type, before -> after and the answers (``-`` withheld)."""
    lines = ["| mode | KB | question | hops | type | rr before -> after | answer before -> after |", "|---|---|---|---|---|---|---|"]
    for path in sorted(folder.glob("*.details")):
        kb, mode = path.name.rsplit(".", 2)[:2]
        if not (base / path.name).exists():
            continue
        old, new = _rows(base / path.name), _rows(path)
        for qid, r in new.items():
            o = old.get(qid)
            if o is not None and bool(o["right_reason"]) != bool(r["right_reason"]):
                said = [("-" if x["abstained"] else str(x["answer"])) for x in (o, r)]
                lines.append(f"| {mode} | {kb} | {qid} | {r['hops']} | {r['qtype']} | {bool(o['right_reason'])} -> "
                             f"{bool(r['right_reason'])} | {said[0]} -> {said[1]} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--against", type=Path, help="a base run's folder: list the questions that moved")
    args = ap.parse_args()
    print("\n".join(summarise(args.folder) + (moved(args.folder, args.against) if args.against else [])))


if __name__ == "__main__":
    main()
