"""Graph-hop retrieval (BGR) vs. baselines (Graph-hop paper, Table 3), closed and open settings, in Experiments.

One dataset per run: trains BGR on cached frozen-MiniLM vectors; its best epoch, thresholds, branching
and merge rule are chosen on a **chain-disjoint carve of train** (every 10th group of training
questions sharing a question, gold fact or gold sentence; :func:`graphhop.datasets.splits.carve_selection`),
so dev and test (EntailmentBank: v2 task-1 and task-2 dev) only report. One Experiment per report
split scores random / BM25 / dense / MDR (the registry's pool pipelines) twice, with k = gold set size
(labelled oracle) and with the k in 1..``--max-k`` of best evidence F1 on the carve, optionally GoldEn, and
BGR forward / backward / bidirectional and every merge rule with EM/P/R/F1, GM, GS and GED, by gold
graph type and depth; ``--open`` adds the open setting (library: :mod:`graphhop.eval.bgr_bench`).

Issue 5's ablations: the matcher flags (``--path-text``, ``--vector-dropout``, ``--interactions-only``,
``--wide-pair``, ``--no-pair-features``), ``--finetune-encoder`` (fine-tune the encoder first on the training
questions; every method then uses it) with ``--crossfit`` (the encoder on the first half of the training
questions, BGR on the rest), ``--reselect`` (with ``--reuse-model``: choose thresholds, branching and merge
again on the carve), ``--add-golden`` (only add GoldEn rows to an earlier run's results) and ``--ged-timeout``.

    GRAPHHOP_DATA=/work/shared/data python benchmarks/bgr_eval.py --dataset pq-2h \\
        --data-dir runs/datasets/pq-2h --out runs/bgr --train-limit 1000 --eval-limit 200 --open
    GRAPHHOP_DATA=/work/shared/data python benchmarks/bgr_eval.py --dataset entailmentbank --out runs/bgr --open
    python benchmarks/bgr_eval.py --report runs/bgr      # cross-dataset summary;  --tables runs/bgr: every table
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from graphhop.eval import bgr_bench as B
from graphhop.eval.script import benchmark_parser, parse_benchmark_args

SELECT = "train-carve"
MODEL_FLAGS = {"path_text": "path_text_feature", "vector_dropout": "vector_dropout", "interactions_only": "interactions_only",
               "wide_pair": "wide_pair"}


def parse() -> argparse.Namespace:
    ap = benchmark_parser(__doc__)
    ap.add_argument("--report", type=Path, help="only print the cross-dataset summary of <dir>/*/results.json")
    ap.add_argument("--tables", type=Path, help="only print every dataset's tables under <dir> (for docs/RESULTS.md)")
    ap.add_argument("--dataset", help="name: a builder dataset (pq-2h, wc-c, ...) or entailmentbank")
    ap.add_argument("--data-dir", type=Path, help="builder dataset folder (train/dev/test.jsonl)")
    ap.add_argument("--split", default="dev,test", help="report splits: dev, test or both (test: a file beside dev; "
                    "by default only when present)")
    ap.add_argument("--out", type=Path, default=Path("runs/bgr"))
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"))
    ap.add_argument("--train-limit", type=int, default=1000, help="training questions, spread evenly over what the carve leaves")
    ap.add_argument("--select-limit", type=int, default=200, help="most questions in the selection carve")
    ap.add_argument("--eval-limit", type=int, default=200, help="questions per report split, spread evenly (stride)")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--max-minutes", type=float, default=8.0)
    ap.add_argument("--open", action="store_true", help="also run the open setting")
    ap.add_argument("--open-limit", type=int, default=100)
    ap.add_argument("--top-n", type=int, default=25)
    ap.add_argument("--max-k", type=int, default=6, help="set baselines' k is chosen in 1..max-k on the carve")
    ap.add_argument("--path-text", action="store_true", help="add the path-text feature (MDR query cosine)")
    ap.add_argument("--vector-dropout", type=float, default=0.0, help="training: drop a row's whole vector block with this probability")
    ap.add_argument("--interactions-only", action="store_true", help="matcher without the raw code/candidate vectors")
    ap.add_argument("--wide-pair", action="store_true", help="pair features also enter the logit linearly (wide & deep)")
    ap.add_argument("--no-pair-features", action="store_true", help="the paper's matcher: encoder vectors only")
    ap.add_argument("--reuse-model", action="store_true", help="load <out>/<dataset>/model instead of training")
    ap.add_argument("--reselect", action="store_true", help="with --reuse-model: choose the inference settings again on the carve")
    ap.add_argument("--finetune-encoder", action="store_true",
                    help="fine-tune the encoder first (MDR-style pairs from the gold graphs; baselines use it too)")
    ap.add_argument("--encoder-minutes", type=float, default=10.0)
    ap.add_argument("--crossfit", action="store_true",
                    help="with --finetune-encoder: fit the encoder on the first half of the training questions, BGR on the rest")
    ap.add_argument("--ged-timeout", type=float, default=1.0, help="seconds of GED search per graph (then an upper bound)")
    ap.add_argument("--golden", action="store_true", help="add GoldEn (pool query generator trained on train) as a baseline")
    ap.add_argument("--golden-limit", type=int, default=400, help="training questions for GoldEn's generator")
    ap.add_argument("--golden-epochs", type=int, default=1)
    ap.add_argument("--add-golden", action="store_true", help="only add GoldEn rows to an earlier run's results.json")
    args = parse_benchmark_args(ap, need_data=False)  # the builder datasets need only --data-dir
    if args.crossfit and not args.finetune_encoder:
        ap.error("--crossfit needs --finetune-encoder")
    if args.reselect and not args.reuse_model:
        ap.error("--reselect needs --reuse-model")
    args.golden = args.golden or args.add_golden
    return args


def examples(args: argparse.Namespace, out: Path, recs: dict[str, list]) -> tuple[Any, list, list, dict[str, list]]:
    """The vector cache and the train / selection / report examples; with ``--finetune-encoder`` the encoder is
    fine-tuned first (on the first half of the training questions with ``--crossfit``, BGR then on the rest)."""
    from graphhop.eval.experiment import stride_sample
    from graphhop.train.bgr_encoder import finetune_encoder
    from graphhop.train.bgr_data import EmbeddingCache, load_examples

    cache, train_recs = EmbeddingCache(args.cache), stride_sample(recs["train"], args.train_limit)
    need_train = not args.reuse_model or args.golden or args.finetune_encoder
    train = load_examples(train_recs, cache) if need_train else []
    if args.finetune_encoder:
        edir, fit = (out / "encoder").resolve(), train[: len(train) // 2] if args.crossfit else train
        if not (edir / "graphhop_card.json").exists():
            card = finetune_encoder(fit, edir, max_minutes=args.encoder_minutes, progress=False)
            print(f"# encoder fine-tuned: {json.dumps(card)}", file=sys.stderr)
        cache = EmbeddingCache(out / "emb-cache", model=str(edir))
        train = load_examples(train_recs, cache)[len(fit) if args.crossfit else 0:]
    evals = {k: load_examples(stride_sample(v, args.eval_limit), cache) for k, v in B.report_splits(args.dataset, recs).items()}
    return cache, train, load_examples(recs["select"], cache), evals


def train_or_load(args: argparse.Namespace, out: Path, train: list, select: list, cache: Any) -> tuple[Any, dict]:
    """Train BGR (choices on the carve) or load ``<out>/model`` (``--reselect``: choose its settings again)."""
    from graphhop.retrieve.graphhop import BGRConfig, load_model, save_model
    from graphhop.train.bgr import TrainConfig, select_inference, train_bgr

    if args.reuse_model:
        model, card = load_model(out / "model")
        if args.reselect:
            card["selection"] = select_inference(model, select, encode=cache.encode)
            save_model(model, out / "model", {k: v for k, v in card.items() if k not in ("config", "kind", "version", "saved")})
        return model, {"train_seconds": None, "best_epoch": None, "history": [], **card}
    cfg = BGRConfig(encoder=cache.model_name, pair_features=not args.no_pair_features,
                    **{f: getattr(args, a) for a, f in MODEL_FLAGS.items()})
    return train_bgr(train, select, out / "model", cfg, TrainConfig(epochs=args.epochs, max_minutes=args.max_minutes,
                                                                    dev_limit=len(select), threads=args.threads),
                     progress=False, log=lambda m: print(m, file=sys.stderr), encode=lambda t: cache.encode(t),
                     card_extra={"dataset": args.dataset, "select_split": SELECT})


def golden_chains(args: argparse.Namespace, out: Path, train: list, bm25: Any) -> tuple[dict, dict]:
    """GoldEn's pool query generator, trained on train (or reused from ``<out>/golden-generator``), as a chain baseline."""
    from graphhop.eval.bgr import golden_generator, golden_pool_method
    from graphhop.train.bgr import train_pool_generator

    gdir = out / "golden-generator"
    if not (gdir / "model.safetensors").exists():
        train_pool_generator(train, bm25, gdir, limit=args.golden_limit, epochs=args.golden_epochs, progress=False)
    generator = golden_generator(gdir)
    oracle = json.loads((gdir / "model_card.json").read_text()).get("oracle")
    return {"golden": golden_pool_method(generator, bm25)}, {"generator": generator, "golden_generator": oracle}


def add_golden(out: Path, evals: dict[str, list], chains: dict, golden: dict, measures: list, bm25: Any, cache: Any) -> None:
    """Add GoldEn's rows (one Experiment per report split, its graph shape a chain) to ``<out>/results.json``."""
    from graphhop.eval.experiment import Experiment
    from graphhop.eval.tasks import bgr_systems, builder_golds
    from graphhop.io import atomic_write_text

    path = out / "results.json"
    if not path.exists():
        sys.exit(f"error: {path}: no earlier results to add GoldEn to")
    result = json.loads(path.read_text(encoding="utf-8"))
    for name, exs in evals.items():
        old = result["eval"].get(name)
        if old is None:
            continue
        table = Experiment(measures, report=name, select=SELECT, title=old["title"]).run(
            bgr_systems(None, exs, list(chains), bm25, cache.encode, None, chains), [ex.question for ex in exs], builder_golds(exs))
        labels = {r["method"] for r in table.rows}
        old["rows"] = [r for r in old["rows"] if r["method"] not in labels] + table.rows
        for key, rows in table.groups.items():
            old.setdefault("groups", {})[key] = [r for r in old["groups"].get(key, []) if r["method"] not in labels] + rows
    result.update({k: v for k, v in golden.items() if k != "generator"})
    atomic_write_text(path, json.dumps(result, indent=1) + "\n")
    atomic_write_text(out / "results.md", B.results_markdown(result))
    print(B.results_markdown(result))


def main() -> None:
    args = parse()
    if args.report or args.tables:
        print(B.report(args.report) if args.report else B.dataset_tables(args.tables))
        return
    if not args.dataset:
        sys.exit("--dataset is required")
    if args.data is None and (args.dataset == "entailmentbank" or args.open):
        sys.exit("error: set GRAPHHOP_DATA or pass --data")
    from graphhop.eval.bgr import BGR_METHODS, BASELINES, choose_ks, choose_shapes
    from graphhop.eval.experiment import Experiment
    from graphhop.eval.measures import graph_measures
    from graphhop.eval.tasks import bgr_systems, builder_golds
    from graphhop.io import atomic_write_text
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.retrieve.graphhop import MERGE_RULES, BGRRetriever

    out, t_start = args.out / args.dataset, time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    recs = B.benchmark_records(args.dataset, args.data_dir, args.data, args.select_limit, args.split.split(","))
    cache, train, select, evals = examples(args, out, recs)
    bm25 = PoolBM25(dict.fromkeys(e["text"] for split in recs.values() for r in split for e in r["evidence"]))
    chains, golden = golden_chains(args, out, train, bm25) if args.golden else ({}, {})
    if args.add_golden:
        return add_golden(out, evals, chains, golden, graph_measures(args.ged_timeout), bm25, cache)
    model, card = train_or_load(args, out, train, select, cache)
    shapes = choose_shapes(select, bm25, cache.encode)  # chosen on the carve too
    ks = choose_ks(select, bm25, model.cfg.encoder, BASELINES, args.max_k)  # the baselines' k: on the carve
    print(f"# baseline k chosen on {SELECT} ({len(select)} questions): {ks}", file=sys.stderr)
    methods = [*BASELINES, *chains, *BGR_METHODS, *(f"bgr-merge:{r}" for r in MERGE_RULES)]
    result = {"dataset": args.dataset, "train": card.get("train_examples", len(train)), "select": len(select), "train_seconds": card["train_seconds"],
              "selection": card["selection"], "best_epoch": card["best_epoch"], "history": card["history"],
              "baseline_shapes": shapes, "baseline_k": ks, "eval": {}, "latency": {}, **{k: v for k, v in golden.items() if k != "generator"}}
    for name, exs in evals.items():
        systems = bgr_systems(model, exs, methods, bm25, cache.encode, shapes, chains, ks)
        table = Experiment(graph_measures(args.ged_timeout), report=name, select=SELECT, title=f"{args.dataset} {name}").run(
            systems, [ex.question for ex in exs], builder_golds(exs))
        result["eval"][name] = table.to_json()
        cache.save()
    result["latency"]["closed"] = B.closed_latency(BGRRetriever(model, encode=cache.encode), next(iter(evals.values())), 25)
    if args.open:
        db = B.open_db(args.dataset, recs, args.data, cache)
        table, facts = B.open_setting(model, B.open_questions(args.dataset, recs, evals, cache, args.open_limit), db,
                                      args.top_n, out / "open-index", SELECT, shapes, golden.get("generator"), args.ged_timeout)
        result["open"] = {"table": table.to_json(), **facts}
    result["total_seconds"] = round(time.perf_counter() - t_start, 1)
    atomic_write_text(out / "results.json", json.dumps(result, indent=1) + "\n")
    atomic_write_text(out / "results.md", B.results_markdown(result))
    print(B.results_markdown(result))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
