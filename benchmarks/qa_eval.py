"""End-to-end QA on the KGQA sets: registry pipelines (retrieval -> evidence graph -> fact reader) in one Experiment.

Each method is the registry's ask pipeline (``build_pipeline(method, index, k=.., hops=.., loops=..,
reader=..)``): hop-wise fact retrieval (``k`` facts for the question, ``hops`` = the dataset's hop
count as in the papers; on every set but WC-C only walks of exactly ``hops`` facts give answers; on
PathQuestion walks may revisit entities, as its gold paths do), the evidence graph, question-type
detection and the untrained MiniLM fact reader (``--reader-model DIR``: a trained cross-encoder), one
reader shared by all methods. ``gold`` reads the gold paths' graph (the reader's ceiling, labelled
oracle; MetaQA's gold paths are derived from the KB by question type). ``--sample`` questions are
spread evenly over the split's file (stride): MetaQA's files are grouped by question type.

Columns: QA EM / QA F1 of the top answer (SQuAD-normalized, best over gold answers; for MetaQA
this EM is answer Hits@1), set F1 of the predicted answer set, answer in graph (the retrieval
ceiling), qtype acc (share read as a plain query, which every question of these sets is), s/q.
``--builder FILES``: QA EM by question type reading builder records' gold graph and whole pool.

    GRAPHHOP_DATA=/work/shared/data python benchmarks/qa_eval.py --datasets pq-2h,metaqa-1h \\
        --methods bm25,dense,gold --sample 100 --split dev --json runs/qa/qa_eval.jsonl   # --split test: a test file beside dev
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from graphhop.eval.experiment import Experiment, Table
from graphhop.eval.measures import ANSWER_IN_GRAPH, QA, QTYPE_ACC

MEASURES = [*QA, ANSWER_IN_GRAPH, QTYPE_ACC]
GOLD = "gold"


def dataset_table(name: str, args: argparse.Namespace, rerankers: dict[str, str]) -> Table:
    """One Experiment: every method on ``name``'s split."""
    from graphhop.datasets.kgqa import DATASETS, kb_path
    from graphhop.eval.experiment import ask_system, read_system
    from graphhop.eval.tasks import qa_examples, qa_golds
    from graphhop.evaluation import dataset_index
    from graphhop.index.dense import DenseOptions
    from graphhop.pipeline.registry import build_pipeline
    from graphhop.pipeline.stages import ReaderStage
    from graphhop.read.facts import FactReader
    from graphhop.read.graphs import graph_from_paths
    from graphhop.read.ops import OperationReader

    spec, methods = DATASETS[name], args.methods.split(",")
    examples = qa_examples(name, args.split, args.sample)
    hops = max([spec.hops] + [len(p) for ex in examples for p in ex.gold_paths])
    loops = spec.family == "pathquestion"  # PathQuestion's gold paths revisit entities (a -children- b -parents- a)
    # join_starts: an entity reached from two question entities adds both walks' scores (WC-C's conjunctions)
    reader = OperationReader(FactReader.from_model(args.reader_model, max_hops=hops, min_hops=1 if name == "wc-c" else hops,
                                                   join_starts=not args.no_join, loops=loops))
    dense = not set(methods) <= {"bm25", "gold", "golden"}
    index = dataset_index(kb_path(name), DenseOptions("flat") if dense else None, progress=args.progress)
    systems: dict[str, Any] = {}
    for m in methods:
        if m == "gold":
            systems[GOLD] = read_system([graph_from_paths(ex.question, ex.gold_paths) for ex in examples],
                                        ReaderStage(reader=reader), oracle="the gold paths' graph, the reader's ceiling")
        elif m != "difar2" or spec.family in rerankers:
            opts = {"reranker": rerankers[spec.family], "rerank_k": 50} if m == "difar2" else {}
            systems[m] = ask_system(build_pipeline(m, index, k=args.k, hops=hops, loops=loops, reader=reader, **opts))
    table = Experiment(MEASURES, report=args.split, title=name).run(systems, [ex.question for ex in examples], qa_golds(examples))
    table.meta["dataset"] = name
    return table


def builder_table(paths: list[str], split: str) -> Table:
    """QA EM by question type on builder JSONL files, reading each record's gold graph and whole pool."""
    from graphhop.eval.experiment import read_system
    from graphhop.eval.tasks import builder_qa
    from graphhop.pipeline.stages import ReaderStage

    questions, gold_graphs, pool_graphs, golds = builder_qa(paths)
    reader = ReaderStage()
    systems = {"gold graph": read_system(gold_graphs, reader, oracle="the gold graph"), "pool graph": read_system(pool_graphs, reader)}
    return Experiment(["QA EM", QTYPE_ACC], report=split, title="builder").run(systems, questions, golds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="pq-2h,pq-3h,wc-p1,wc-p2,wc-c,metaqa-1h,metaqa-2h,metaqa-3h")
    ap.add_argument("--methods", default="bm25,dense,hybrid,gold", help="registry pipelines (bm25, dense, hybrid, difar2, golden) and gold")
    ap.add_argument("--sample", type=int, default=100, help="N questions per dataset, spread evenly (stride)")
    ap.add_argument("--split", default="dev", help="dev or test")
    ap.add_argument("-k", type=int, default=20, help="facts retrieved for the question (hop 1)")
    ap.add_argument("--reranker", action="append", default=[], help="family=DIR for difar2 (pathquestion, wc2014, metaqa)")
    ap.add_argument("--reader-model", default=None, help="trained cross-encoder dir for the fact reader")
    ap.add_argument("--no-join", action="store_true", help="do not join walks from several question entities")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--json", help="append each table (one JSON line per dataset) to this file")
    ap.add_argument("--by-type", action="store_true", help="also print each table by question type")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--builder", help="comma-separated builder JSONL files: QA EM by question type instead")
    args = ap.parse_args()
    from graphhop.models.encoder import set_threads

    set_threads(args.threads)
    if args.builder:
        table = builder_table(args.builder.split(","), args.split)
        print(table.markdown() + "\n\n" + table.markdown("type"))
        return
    rerankers = dict(r.split("=", 1) for r in args.reranker)
    for name in args.datasets.split(","):
        table = dataset_table(name.strip(), args, rerankers)
        print(f"\n### {name} {args.split} ({table.meta['n']} questions, strided)\n\n{table.markdown()}", flush=True)
        if args.by_type and "qtype" in table.groups:
            print("\n" + table.markdown("qtype"), flush=True)
        if args.json:
            with open(args.json, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(table.to_json(), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
