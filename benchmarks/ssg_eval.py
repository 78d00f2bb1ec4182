"""SSG (NeuralDB's support-set generator) beside the pool baselines, closed setting, BGR-table measures, one Experiment per split.

Trains SSG on a builder dataset's train split minus a chain-disjoint selection carve (every 10th group
of training questions sharing a question, gold fact or gold sentence:
:func:`graphhop.datasets.splits.carve_selection`; epoch, threshold and actions per state are chosen
there), then scores SSG and the random / BM25 / dense / MDR-chain baselines (``k`` = gold set size,
labelled oracle; shapes chosen on the carve) on ``--split`` (dev, test or both; test: a ``test.jsonl``
beside dev), ``--eval-limit`` questions spread evenly (stride).

    python benchmarks/ssg_eval.py --dataset pq-2h --data-dir runs/bgr-data/pq-2h --out runs/ssg --split dev,test
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--split", default="dev,test", help="report splits: dev, test or both (test by default only when present)")
    ap.add_argument("--out", type=Path, default=Path("runs/ssg"))
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"))
    ap.add_argument("--train-limit", type=int, default=1000, help="training questions, spread evenly over what the carve leaves")
    ap.add_argument("--select-limit", type=int, default=100, help="most questions in the selection carve")
    ap.add_argument("--eval-limit", type=int, default=None, help="questions per report split, spread evenly (default: all)")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--max-minutes", type=float, default=4.0)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    from graphhop.eval import bgr_bench as B
    from graphhop.eval.bgr import BASELINES, choose_shapes
    from graphhop.eval.experiment import Experiment, System, stride_sample
    from graphhop.eval.measures import GRAPH, Prediction
    from graphhop.eval.tasks import bgr_systems, builder_golds
    from graphhop.io import atomic_write_text
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.train.bgr_data import EmbeddingCache, load_examples
    from graphhop.train.ssg import ssg_graph, train_ssg

    set_threads(args.threads)
    t_start, out = time.perf_counter(), args.out / args.dataset
    recs = B.benchmark_records(args.dataset, args.data_dir, args.data_dir, args.select_limit, args.split.split(","))
    cache = EmbeddingCache(args.cache)
    train, select = load_examples(stride_sample(recs["train"], args.train_limit), cache), load_examples(recs["select"], cache)
    model, card = train_ssg(train, select, out / "model", cache.encode, epochs=args.epochs, max_minutes=args.max_minutes,
                            log=lambda m: print(m, file=sys.stderr))
    cache.save()
    bm25 = PoolBM25(dict.fromkeys(e["text"] for split in recs.values() for r in split for e in r["evidence"]))
    shapes = choose_shapes(select, bm25, cache.encode)
    result = {"dataset": args.dataset, "train": len(train), "select": len(select), "ssg": card, "baseline_shapes": shapes, "eval": {}}
    sel = card["selection"]
    md = [f"#### {args.dataset}", "", f"SSG: {len(train)} training questions ({card['train_states']} states), selection "
          f"{len(select)} (a chain-disjoint carve of train); {card['train_seconds']} s, best epoch {card['best_epoch']}; "
          f"chosen threshold {sel['threshold']}, actions per state {sel['max_branch']}, max steps "
          f"{model.cfg.max_steps}; baseline shapes {shapes}", ""]
    for name, split_recs in B.report_splits(args.dataset, recs).items():
        exs = load_examples(stride_sample(split_recs, args.eval_limit), cache)
        systems = bgr_systems(None, exs, BASELINES, bm25, cache.encode, shapes)
        systems["ssg"] = System(lambda qs, exs=exs: [Prediction(graph=ssg_graph(model, ex, cache.encode)) for ex in exs])
        table = Experiment(GRAPH, report=name, select="train-carve", title=f"{args.dataset} {name}").run(
            systems, [ex.question for ex in exs], builder_golds(exs))
        result["eval"][name] = table.to_json()
        md += [f"##### {args.dataset} {name} (closed pools)", "", table.markdown(), "", "By graph type:", "", table.markdown("type"), ""]
        cache.save()
    result["total_seconds"] = round(time.perf_counter() - t_start, 1)
    atomic_write_text(out / "results.json", json.dumps(result, indent=1) + "\n")
    atomic_write_text(out / "results.md", "\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
