"""Statistics of the ReasonGraphQA-style datasets built from PathQuestion, WC2014, MetaQA and
KQA Pro programs, and of EntailmentBank dev (docs/RESULTS.md (issue 4) quotes this output).

    GRAPHHOP_DATA=/path/to/data python benchmarks/dataset_stats.py --out runs/datasets

Each dataset is built with ``graphhop build-dataset``'s defaults (seed 13, 12 distractors,
bundled MiniLM for the dense third, templates) and timed; MetaQA reads the first ``--metaqa-limit``
dev questions per hop count (the whole dev set takes longer than the 3-minute budget per run).
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from graphhop.datasets.builder import (  # noqa: E402
    BuildConfig,
    DatasetStats,
    build_named_dataset,
    stats_table,
    write_dataset,
)
from graphhop.datasets.entailmentbank import iter_entailmentbank_records  # noqa: E402
from graphhop.eval.script import benchmark_parser, parse_benchmark_args  # noqa: E402

KGQA = ["pq-2h", "pq-3h", "pql-2h", "pql-3h", "wc-p1", "wc-p2", "wc-c", "metaqa-1h", "metaqa-2h", "metaqa-3h"]


def main() -> None:
    ap = benchmark_parser(__doc__, seed=13)
    ap.add_argument("--out", default="runs/datasets", help="where the built datasets go")
    ap.add_argument("--datasets", default=",".join(KGQA + ["kqapro", "entailmentbank"]))
    ap.add_argument("--metaqa-limit", type=int, default=2000, help="MetaQA dev questions read per hop count")
    ap.add_argument("--kqapro-kb", default="wc-c", help="dataset whose KB grounds the KQA Pro programs")
    args = parse_benchmark_args(ap)
    from graphhop.models.encoder import load_encoder

    encoder = load_encoder(None)
    rows, kinds, drops, times, sizes = [], {}, {}, {}, {}
    eb_note = ""
    for name in args.datasets.split(","):
        out = Path(args.out) / name
        t0 = time.perf_counter()
        if name == "entailmentbank":
            stats = write_dataset(iter_entailmentbank_records(args.data), out, name)
            per_task: dict[str, DatasetStats] = {}
            from graphhop.datasets.builder import read_records

            for rec in read_records(out / "dev.jsonl"):
                per_task.setdefault(rec["qtype"], DatasetStats(f"entailmentbank {rec['qtype']} dev")).add(rec)
            times[name] = time.perf_counter() - t0
            leaves = in_pool = 0
            for rec in read_records(out / "dev.jsonl"):
                if rec["qtype"] == "task_3":
                    nodes = rec["graph"]["nodes"]
                    leaves += sum(1 for n in nodes if n["kind"] == "evidence")
                    in_pool += sum(1 for e in rec["evidence"] if e["gold"])
            eb_note = (f"entailmentbank task_3 dev: {in_pool} of {leaves} gold leaf sentences (task-1 trees) "
                       f"are in the retrieved 25-sentence context ({100 * in_pool / max(leaves, 1):.1f}%)")
            rows += [per_task[k].row() for k in sorted(per_task)]
            rows.append(stats["train"].row())
            continue
        limit = args.metaqa_limit if name.startswith("metaqa") else None
        splits = ["dev"] if name.startswith("metaqa") else ["train", "dev"]
        stats = build_named_dataset(name, out, args.data, splits, limit, BuildConfig(seed=args.seed), encoder,
                                    kb=args.kqapro_kb if name == "kqapro" else None)
        times[name] = time.perf_counter() - t0
        rows.append(stats["all"].row())
        sizes[name] = [stats[s].n for s in ("train", "dev", "test")]
        kinds[name] = stats["all"].distractor_kinds
        drops[name] = stats["all"].dropped
        print(f"# built {name} in {times[name]:.0f} s", file=sys.stderr, flush=True)

    print("## Dataset statistics (all splits of each built dataset; EntailmentBank per task)\n")
    print(stats_table(rows))
    print("\n## Distractor kinds (share of distractors), output split sizes, dropped questions\n")
    print("| dataset | dense % | same-head % | random % | train | dev | test | dropped (reason: count) | build s |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
    for name in kinds:
        k: Counter = kinds[name]
        n = max(sum(k.values()), 1)
        d = "; ".join(f"{r}: {c}" for r, c in drops[name].most_common()) or "-"
        tr, dv, te = sizes[name]
        print(f"| {name} | {100 * k['dense'] / n:.1f} | {100 * k['same-head'] / n:.1f} | {100 * k['random'] / n:.1f} "
              f"| {tr} | {dv} | {te} | {d} | {times[name]:.0f} |")
    if "entailmentbank" in times:
        print(f"\nentailmentbank converted in {times['entailmentbank']:.0f} s; {eb_note}")


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
