"""BM25 vs DiFaR (dense, unsupervised) vs hybrid on the KGQA sets: fact- and answer-level measures.

One Experiment per dataset (the registry's ``bm25``, ``dense``, ``hybrid`` pipelines, ranked to depth
1000); MetaQA is sampled evenly over each file (``--metaqa-sample``, stride). Prints a markdown table
per dataset; indexes are cached under $GRAPHHOP_CACHE.

    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_baselines.py --split dev --metaqa-sample 2000
"""

from __future__ import annotations

import argparse
import json

DATASETS = ["pq-2h", "pq-3h", "pql-2h", "pql-3h", "wc-p1", "wc-p2", "wc-c", "metaqa-1h", "metaqa-2h", "metaqa-3h"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--split", default="dev", help="dev or test")
    ap.add_argument("--methods", default="bm25,dense,hybrid")
    ap.add_argument("--metaqa-sample", type=int, default=2000, help="MetaQA questions per hop, spread evenly (stride)")
    ap.add_argument("--json", help="also write every table to this JSON file")
    args = ap.parse_args()
    from graphhop.eval.experiment import Experiment, ranking_system
    from graphhop.eval.measures import RANKING, TIES
    from graphhop.eval.tasks import kgqa_task
    from graphhop.models.encoder import set_threads
    from graphhop.pipeline.registry import build_pipeline

    set_threads()
    tables = []
    for name in args.datasets.split(","):
        sample = args.metaqa_sample if name.startswith("metaqa") else None
        index, questions, golds = kgqa_task(name, args.split, sample)
        systems = {m: ranking_system(build_pipeline(m, index), docs=index.docs) for m in args.methods.split(",")}
        measures = [m for m in RANKING if not m.startswith("fact") or any(g.evidence for g in golds)] + [TIES]
        table = Experiment(measures, report=args.split, title=name).run(systems, questions, golds)
        print(f"\n### {name} {args.split} ({len(questions)} questions; KB {len(index.docs)} facts)\n")
        print(table.markdown())
        tables.append(table.to_json())
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(tables, fh, indent=1)


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
