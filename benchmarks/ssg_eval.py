"""SSG (NeuralDB's support-set generator) beside the pool baselines, closed setting, BGR-table metrics.

Trains SSG on a builder dataset's train split (every 10th training question held out as the selection
set: epoch, threshold and actions per state are chosen there), then scores SSG and the random / BM25 /
dense / MDR-chain baselines (``k`` = gold set size, shapes chosen on the selection set) on dev (and on
test when a ``test.jsonl`` lies beside it) with ``benchmarks/bgr_eval.py``'s metrics and table.

    python benchmarks/ssg_eval.py --dataset pq-2h --data-dir runs/bgr-data/pq-2h --out runs/ssg
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from graphhop.datasets.builder import read_records  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=Path("runs/ssg"))
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"))
    ap.add_argument("--train-limit", type=int, default=1000)
    ap.add_argument("--select-limit", type=int, default=100, help="selection questions (every 10th training question)")
    ap.add_argument("--eval-first", type=int, default=0,
                    help="score only the first N questions of each split (0: all), to match an earlier run's examples")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--max-minutes", type=float, default=4.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--ged-timeout", type=float, default=1.0)
    args = ap.parse_args()
    import torch

    from bgr_eval import breakdown_table, table

    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.eval.bgr import choose_shapes, evaluate_methods
    from graphhop.train.bgr_data import EmbeddingCache, load_examples
    from graphhop.train.ssg import ssg_graph, train_ssg

    torch.set_num_threads(args.threads)
    set_threads(args.threads)
    t_start = time.perf_counter()
    recs = {s: list(read_records(args.data_dir / f"{s}.jsonl")) for s in ("train", "dev", "test")
            if (args.data_dir / f"{s}.jsonl").exists()}
    if "train" not in recs or "dev" not in recs:
        sys.exit(f"error: {args.data_dir}: needs train.jsonl and dev.jsonl")
    cache = EmbeddingCache(args.cache)
    select_recs = recs["train"][9::10]
    train_recs = [r for i, r in enumerate(recs["train"]) if i % 10 != 9]
    train = load_examples(train_recs, cache, args.train_limit)
    select = load_examples(select_recs, cache, args.select_limit)
    evals = {s: load_examples(recs[s][: args.eval_first or None], cache) for s in ("dev", "test") if recs.get(s)}
    log = lambda m: print(m, file=sys.stderr)  # noqa: E731
    model, card = train_ssg(train, select, args.out / args.dataset / "model", cache.encode,
                            epochs=args.epochs, max_minutes=args.max_minutes, log=log)
    cache.save()
    log(f"# SSG trained in {card['train_seconds']} s, best epoch {card['best_epoch']}; "
        f"chosen {card['selection']['threshold']} / {card['selection']['max_branch']}")
    bm25 = PoolBM25(dict.fromkeys(e["text"] for split in recs.values() for r in split for e in r["evidence"]))
    shapes = choose_shapes(select, bm25, cache.encode)
    result = {"dataset": args.dataset, "train": len(train), "select": len(select), "ssg": card,
              "baseline_shapes": shapes, "eval": {}}
    for name, exs in evals.items():
        result["eval"][name] = evaluate_methods(None, exs, ("random", "bm25", "dense", "mdr"), bm25=bm25,
                                                encode=cache.encode, shapes=shapes, ged_timeout=args.ged_timeout,
                                                graphs={"ssg": lambda ex: ssg_graph(model, ex, cache.encode)})
        cache.save()
    result["total_seconds"] = round(time.perf_counter() - t_start, 1)
    out = args.out / args.dataset
    (out / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    sel = card["selection"]
    md = [f"#### {args.dataset}", "", f"SSG: {len(train)} training questions ({card['train_states']} states), selection "
          f"{len(select)} (every 10th training question); {card['train_seconds']} s, best epoch {card['best_epoch']}; "
          f"chosen threshold {sel['threshold']}, actions per state {sel['max_branch']}, max steps "
          f"{model.cfg.max_steps}; baseline shapes {shapes}; wall time {result['total_seconds']} s", ""]
    for name, rows in result["eval"].items():
        md += [f"##### {args.dataset} {name} (closed pools)", "", table(rows), "", "F1 by graph type:", "",
               breakdown_table(rows, "by_type"), ""]
    (out / "results.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
