"""Candidate recall per hop of the open retriever over a builder set's whole sentence DB (no BGR).

    python benchmarks/open_hop_recall.py --data-dir DATASET --out DIR [--split test] [--limit 100] \
        [--k 10 20 30] [--links mentions proper none]

For ``--limit`` questions of ``--split`` (stride) the gold graph is relabelled to DB ids (the DB: every
distinct evidence sentence of the folder's splits, `open_graph_eval.py`'s), and for every teacher-forced
forward prefix of it (root -> ... -> u) the open retriever's candidates for that path
(:meth:`graphhop.retrieve.texthop.HopSearch.candidates`, top k) are checked for u's gold children. Hop h
= prefix length + 1. Prints, per links mode and k, the share of (prefix, gold child) pairs found at each
hop and overall, and the mean candidates per path. ``mentions``: gazetteer entity links (hop 1 from the
question's entities, later hops from the last sentence's bridge entities) ranked first, then dense + BM25;
``proper``: proper-name links (the previous default); ``none``: dense + BM25 only.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any


def hop_recall(search: Any, examples: list, golds: list, k: int) -> dict[str, Any]:
    """``{"hop 1": share, ..., "all": share, "pairs": n, "mean_candidates": m}`` for the top ``k``."""
    from graphhop.train.bgr import forward_targets

    found: dict[int, list[int]] = defaultdict(list)
    sizes: list[int] = []
    for ex, gold in zip(examples, golds):
        targets = [(p, t) for p, t in forward_targets(gold, 64) if t]
        rankings = search.candidates(ex.query, [p for p, _ in targets], k)
        for (prefix, children), ranking in zip(targets, rankings):
            ids = {h.id for h in ranking}
            sizes.append(len(ids))
            found[len(prefix) + 1] += [c in ids for c in children]
    out: dict[str, Any] = {f"hop {h}": round(sum(v) / len(v), 4) for h, v in sorted(found.items())}
    every = [x for v in found.values() for x in v]
    out.update({"all": round(sum(every) / max(1, len(every)), 4), "pairs": len(every),
                "mean_candidates": round(sum(sizes) / max(1, len(sizes)), 1)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="folder of the DB index (shared with open_graph_eval --db-dir)")
    ap.add_argument("--split", default="test", help="dev or test")
    ap.add_argument("--limit", type=int, default=100, help="N questions, spread evenly (stride)")
    ap.add_argument("--k", type=int, nargs="+", default=[10, 20, 30], help="candidates per path")
    ap.add_argument("--max-df", type=int, default=100, help="mentions: names held by more passages are not followed")
    ap.add_argument("--links", nargs="+", default=["mentions", "none"], choices=["mentions", "mentions-only", "proper", "none"])
    args = ap.parse_args()
    from graphhop.datasets.builder import read_records
    from graphhop.eval.bgr_bench import relabel_gold
    from graphhop.eval.experiment import stride_sample
    from graphhop.eval.tasks import check_split
    from graphhop.io import atomic_write_text
    from graphhop.models.encoder import set_threads
    from graphhop.train.bgr_data import EmbeddingCache, load_examples
    from graphhop.train.bgr_open import builder_db, mention_search

    set_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    recs = [r for s in ("train", "dev", "test") if (args.data_dir / f"{s}.jsonl").exists()
            for r in read_records(args.data_dir / f"{s}.jsonl")]
    index, by_text = builder_db(recs, args.out)
    rows = stride_sample(list(read_records(args.data_dir / f"{check_split(args.split)}.jsonl")), args.limit)
    examples = load_examples(rows, EmbeddingCache(args.out / "cache", None))
    golds = [relabel_gold(ex, by_text)[0] for ex in examples]
    table: dict[str, Any] = {}
    for links in args.links:
        search = mention_search(index, recs, args.out, max(20, *args.k), links, args.max_df)
        for k in args.k:
            table[f"{links} k{k}"] = hop_recall(search, examples, golds, k)
            print(f"{links:8s} k {k:3d}: {json.dumps(table[f'{links} k{k}'])}", flush=True)
    meta = {"data": str(args.data_dir), "split": args.split, "n": len(examples), "db": len(index.docs), "max_df": args.max_df}
    atomic_write_text(args.out / f"hop-recall-{args.split}.json", json.dumps({"meta": meta, "recall": table}, indent=1))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
