"""GoldEn vs single-hop BM25 / dense / hybrid / MDR-style chains, and the oracle-query ceiling.

Prints the markdown tables quoted in docs/RESULTS.md (issue 6): paragraph Recall@2/5/10, all@k (every
gold passage found; "both" for 2-hop questions) and any@k (at least one found), overall and by
question type, on the dev split of each dataset.

    GRAPHHOP_DATA=/path/to/data python benchmarks/golden_eval.py --model .cache/golden/query-generator

Indexes are built (BM25 + flat MiniLM) under ``--index-dir`` on first use and reused afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="data root (default: $GRAPHHOP_DATA)")
    parser.add_argument("--model", type=Path, required=True, help="trained query generator directory")
    parser.add_argument("--index-dir", type=Path, default=Path(".cache/golden"))
    parser.add_argument("--datasets", default="hotpotqa,musique,entailmentbank")
    parser.add_argument("--split", default="dev")
    parser.add_argument(
        "--methods", default="bm25,dense,hybrid,mdr,oracle,golden,golden-learned,golden-rule", help="comma-separated"
    )
    parser.add_argument("--limit", type=int, default=None, help="first N questions per dataset")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, default=Path("runs/golden_eval.json"))
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from graphhop.eval.golden import evaluate_methods, format_table, open_or_build_index
    from graphhop.datasets.kgqa import data_root
    from graphhop.datasets.textqa import load_text_dataset

    root = data_root(args.data)
    methods = [m for m in args.methods.split(",") if m]
    everything = {}
    for name in args.datasets.split(","):
        t0 = time.perf_counter()
        examples, corpus = load_text_dataset(name, args.split, root)
        if args.limit:
            examples = examples[: args.limit]
        index = open_or_build_index(name, corpus, args.index_dir)
        results = evaluate_methods(examples, index, methods, args.model)
        everything[name] = results
        n_gold = sum(len(e.gold) + e.unmapped for e in examples)
        print(f"\n### {name} / {args.split}: {len(examples)} questions, {n_gold} gold passages, corpus {len(index.docs)}"
              f" ({time.perf_counter() - t0:.0f}s)\n")
        print(format_table(results))
        if len({e.qtype for e in examples}) > 1:
            print()
            print(format_table(results, split="by_type"))
        print("\nseconds per method: " + ", ".join(f"{m} {r['seconds']:.1f}" for m, r in results.items()))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(everything, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
