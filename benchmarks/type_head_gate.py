"""The type head's gate for the ``kgqa`` pipeline: each set answered once per ``type_head`` mode (off / add /
only: :class:`graphhop.kgqa.end_type.EndTyper`), in one process (docs/RESULTS.md, Issue 12, Session 6 (typ12)).

    python benchmarks/type_head_gate.py tests/kgqa/data/kg_* --hops 4 --modes off,add,only [--head-weight 0.5]
    python benchmarks/type_head_gate.py metaqa-1h metaqa-2h metaqa-3h --sample 300 --modes off,add
    python benchmarks/type_head_gate.py pq-2h pq-3h pql-2h pql-3h wc-p1 wc-p2 wc-c --modes off,add

A set is a folder with kb.tsv + questions.jsonl or a dataset of ``graphhop eval-qa`` (dev split; ``--sample``:
an even stride, MetaQA only). Prints answer Hits@1, EM, right reason per set and mode, and the questions right
for the right reason in total per mode; ``--details DIR`` writes each run's per-question rows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    from graphhop.cli.kgqa import _make_ask
    from graphhop.kgqa.evaluate import evaluate_dataset

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--modes", default="off,add,only")
    ap.add_argument("--hops", type=int, default=3)
    ap.add_argument("--sample", type=int, default=None, help="questions per MetaQA set (even stride)")
    ap.add_argument("--details", type=Path, default=None)
    ap.add_argument("--head-weight", type=float, default=None,
                    help="weight of the head's probability in mode add (default: end_type.HEAD_WEIGHT)")
    args = ap.parse_args()
    if args.head_weight is not None:
        import graphhop.kgqa.end_type as end_type

        end_type.HEAD_WEIGHT = args.head_weight
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    totals = {m: [0, 0, 0] for m in modes}  # right reason, hits@1, questions
    print("| set | mode | n | answer Hits@1 | EM | right reason |")
    print("|---|---|---|---|---|---|")
    for name in args.sets:
        sample = args.sample if name.startswith("metaqa") else None
        for mode in modes:
            rows: list[dict] = []
            out = evaluate_dataset(name, "dev", _make_ask("kgqa", None, args.hops, extra={"type_head": mode}), sample,
                                   rows_out=rows)
            right = sum(bool(r["right_reason"]) for r in rows)
            hits = sum(bool(r["hits1"]) for r in rows)
            totals[mode][0] += right
            totals[mode][1] += hits
            totals[mode][2] += len(rows)
            print(f"| {Path(name).name} | {mode} | {out['n']} | {out['answer_hits1']:.3f} | {out['em']:.3f} | "
                  f"{out['right_reason']:.3f} ({right}) |", flush=True)
            if args.details:
                args.details.mkdir(parents=True, exist_ok=True)
                with open(args.details / f"{Path(name).name}-{mode}.jsonl", "w", encoding="utf-8") as fh:
                    fh.writelines(json.dumps(r) + "\n" for r in rows)
    for mode, (right, hits, n) in totals.items():
        print(f"total {mode}: right reason {right} / {n}, answer Hits@1 {hits} / {n}")


if __name__ == "__main__":
    main()
