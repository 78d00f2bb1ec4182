"""Builder split leaks, before and after path grouping: how many dev/test examples share a gold chain
(either direction) with train, how many facts sit in two splits, and the split sizes.

    python benchmarks/split_leaks.py --datasets pq-2h,pq-3h,wc-p1,wc-p2,wc-c
"""

from __future__ import annotations

import argparse
from collections import Counter

from graphhop.datasets.kgqa import load_dataset
from graphhop.datasets.splits import assign_split, canonical_path, canonical_triple, grouped_splits


def old_split(paths, seed: int) -> str:
    """The builder's rule before issue 16: the smallest path string as written, each example alone."""
    return assign_split(min("||".join("#".join(t) for t in p) for p in paths), seed)


def leaks(examples, splits: dict) -> dict:
    """Split sizes, dev/test examples sharing a chain with train, facts (canonical) in two or more splits."""
    train_chains = {canonical_path(p) for k, ex in examples if splits[k] == "train" for p in ex.gold_paths}
    held = [(k, ex) for k, ex in examples if splits[k] != "train"]
    shared = sum(1 for _, ex in held if any(canonical_path(p) in train_chains for p in ex.gold_paths))
    fact_splits: dict = {}
    for k, ex in examples:
        for p in ex.gold_paths:
            for t in p:
                fact_splits.setdefault(canonical_triple(t), set()).add(splits[k])
    sizes = Counter(splits[k] for k, _ in examples)
    return {"train": sizes["train"], "dev": sizes["dev"], "test": sizes["test"],
            "dev/test sharing a chain with train": f"{shared}/{len(held)} ({100 * shared / max(1, len(held)):.1f}%)",
            "facts in 2+ splits": sum(1 for s in fact_splits.values() if len(s) > 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="pq-2h,pq-3h,wc-p1,wc-p2,wc-c")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    for name in args.datasets.split(","):
        examples = [(f"{s}/{ex.id}", ex) for s in ("train", "dev") for ex in load_dataset(name, s) if ex.gold_paths]
        before = {k: old_split(ex.gold_paths, args.seed) for k, ex in examples}
        after = grouped_splits([(k, ex.question, ex.gold_paths) for k, ex in examples], args.seed)
        for label, splits in (("before", before), ("after", after)):
            row = leaks(examples, splits)
            print(f"{name:6s} {label:6s} " + "  ".join(f"{k}: {v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
