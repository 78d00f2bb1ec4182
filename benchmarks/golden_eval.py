"""GoldEn vs single-hop BM25 / dense / hybrid / MDR-style chains, and the oracle-query ceiling (labelled oracle).

Prints the markdown tables quoted in docs/RESULTS.md (issue 6): paragraph Recall@2/5/10, all@k (every
gold passage found) and any@k (at least one found), overall and by question type; one Experiment per
dataset (``graphhop.eval.golden.evaluate_methods``). Indexes are built once under ``--index-dir``.

    GRAPHHOP_DATA=/path/to/data python benchmarks/golden_eval.py --model .cache/golden/query-generator --split dev
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=None, help="data root (default: $GRAPHHOP_DATA)")
    ap.add_argument("--model", type=Path, required=True, help="trained query generator directory")
    ap.add_argument("--index-dir", type=Path, default=Path(".cache/golden"))
    ap.add_argument("--datasets", default="hotpotqa,musique,entailmentbank")
    ap.add_argument("--split", default="dev", help="dev or test")
    ap.add_argument("--methods", default="bm25,dense,hybrid,mdr,oracle,golden,golden-learned,golden-rule")
    ap.add_argument("--sample", type=int, default=None, help="N questions per dataset, spread evenly (stride)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", type=Path, default=Path("runs/golden_eval.json"))
    args = ap.parse_args()
    from graphhop.datasets.kgqa import data_root
    from graphhop.datasets.textqa import load_text_dataset
    from graphhop.eval.experiment import stride_sample
    from graphhop.eval.golden import evaluate_methods, open_or_build_index
    from graphhop.eval.tasks import check_split
    from graphhop.models.encoder import set_threads

    set_threads(args.threads)
    tables = {}
    for name in args.datasets.split(","):
        examples, corpus = load_text_dataset(name, check_split(args.split), data_root(args.data))
        examples = stride_sample(examples, args.sample)
        index = open_or_build_index(name, corpus, args.index_dir)
        table = evaluate_methods(examples, index, [m for m in args.methods.split(",") if m], args.model, args.split)
        tables[name] = table.to_json()
        print(f"\n### {name} / {args.split}: {len(examples)} questions, corpus {len(index.docs)}\n")
        print(table.markdown() + "\n\n" + table.markdown("qtype"))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(tables, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
