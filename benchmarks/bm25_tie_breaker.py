"""BM25's best-fields tie-breaker on a passage index: GoldEn's BM25 table with each value.

Issue 16 made passage indexes score ``best field + 0.7 × the other fields`` (indexes built before it
read 0 from their manifest). This shows what that alone does to ``eval-golden``'s BM25 row::

    GRAPHHOP_DATA=../shared/data python benchmarks/bm25_tie_breaker.py --dataset hotpotqa --split dev
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

from graphhop.datasets.textqa import load_text_dataset
from graphhop.eval.golden import evaluate_methods
from graphhop.datasets.kgqa import data_root
from graphhop.eval.script import run_script
from graphhop.index.directory import build_index, documents_from_passages
from graphhop.kb.loaders import iter_passages


def main() -> None:
    """Build a BM25-only index of the dataset's corpus once; print the BM25 row for each tie-breaker."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="hotpotqa")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--values", default="0.7,0.0", help="Comma-separated tie-breakers.")
    args = parser.parse_args()
    examples, corpus = load_text_dataset(args.dataset, args.split, data_root())
    index = build_index(documents_from_passages(iter_passages(corpus)), Path(tempfile.mkdtemp()) / "idx",
                        dense=None, overwrite=True)
    print("| tie_breaker | n | R@2 | R@5 | R@10 | all@2 | all@10 |\n|---:|---:|---:|---:|---:|---:|---:|")
    for value in (float(v) for v in args.values.split(",")):
        index.sparse.options = dataclasses.replace(index.sparse.options, tie_breaker=value)
        row = evaluate_methods(examples, index, ["bm25"], None, args.split).rows[0]
        print(f"| {value} | {row['n']} | " + " | ".join(f"{row[m]:.3f}" for m in ("R@2", "R@5", "R@10", "all@2", "all@10")) + " |")


if __name__ == "__main__":
    run_script(main)
