"""BM25 vs DiFaR (dense, unsupervised) vs hybrid on the KGQA dev sets: fact- and answer-level metrics.

Usage (prints a markdown table per dataset; indexes are cached under $GRAPHHOP_CACHE):

    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_baselines.py [--metaqa-limit 2000]
"""

from __future__ import annotations

import argparse
import json
import time

from graphhop.datasets.kgqa import kb_path, load_dataset
from graphhop.evaluation import dataset_index, evaluate_retrievers
from graphhop.index.dense import DenseOptions
from graphhop.models.encoder import set_threads
from graphhop.retrieve import METHODS, make_retriever

DATASETS = ["pq-2h", "pq-3h", "pql-2h", "pql-3h", "wc-p1", "wc-p2", "wc-c", "metaqa-1h", "metaqa-2h", "metaqa-3h"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--metaqa-limit", type=int, default=2000, help="first N MetaQA dev questions per hop")
    parser.add_argument("--json", help="also write all rows to this JSON file")
    args = parser.parse_args()
    set_threads()
    all_rows = []
    for name in args.datasets.split(","):
        examples = load_dataset(name, "dev")
        total = len(examples)
        if name.startswith("metaqa") and args.metaqa_limit:
            examples = examples[: args.metaqa_limit]
        index = dataset_index(kb_path(name), DenseOptions("flat"))
        t0 = time.perf_counter()
        retrievers = {m: make_retriever(index, m) for m in METHODS}
        results = evaluate_retrievers(examples, retrievers, index.docs, k=1000, progress=False)
        print(f"\n### {name} dev ({len(examples)} of {total} questions; KB {len(index.docs)} facts; {time.perf_counter() - t0:.0f}s)\n")
        print("| method | fact MRR | fact Hits@1 | fact Hits@10 | answer MRR | answer Hits@1 | answer Hits@10 | ties@1 | q/s |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in results:
            f = r.fact or {}
            cells = [f.get("MRR"), f.get("Hits@1"), f.get("Hits@10"), r.answer["MRR"], r.answer["Hits@1"], r.answer["Hits@10"]]
            print(f"| {r.method} | " + " | ".join("–" if c is None else f"{c:.3f}" for c in cells) + f" | {r.extra['ties@1']:.2f} | {r.questions / r.seconds:.0f} |")
            all_rows.append({"dataset": name, **r.row()})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(all_rows, fh, indent=1)


if __name__ == "__main__":
    main()
