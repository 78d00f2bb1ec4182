"""DiFaR² K curve (paper Figure 3): quality and added time when reranking the top-K, K = 1..100, in one Experiment.

Each K is the registry's ``difar2`` pipeline (DiFaR, bundled MiniLM, flat index >> the cross-encoder
over its top K; ``K = 0`` is ``dense`` alone), scored on ``--limit`` questions of ``--split`` spread
evenly (stride): fact-level Hits@1 and MRR (RR@1000: hits below K keep their first-stage order),
answer Hits@1, seconds per question, and the reranking time per question (s/q minus the K = 0 row's;
on a loaded machine a rough figure). MetaQA dev: over its evaluation part (the first 1000 questions).

    GRAPHHOP_DATA=/work/shared/data python benchmarks/rerank_k_curve.py --dataset pq-3h \\
        --reranker runs/rr-pq --limit 60 --ks 1,5,10,20,50,100 --split dev
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="pq-3h")
    ap.add_argument("--split", default="dev", help="dev or test")
    ap.add_argument("--reranker", required=True, help="cross-encoder directory (graphhop train reranker)")
    ap.add_argument("--limit", type=int, default=60, help="N questions, spread evenly (stride)")
    ap.add_argument("--ks", default="1,5,10,20,50,100")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("runs/rerank_k_curve"))
    args = ap.parse_args()
    from graphhop.datasets.kgqa import DATASETS, kb_path
    from graphhop.eval.experiment import Experiment, ranking_system
    from graphhop.eval.measures import Gold
    from graphhop.eval.tasks import qa_examples
    from graphhop.evaluation import dataset_index, fact_qrels
    from graphhop.index.dense import DenseOptions
    from graphhop.io import atomic_write_text
    from graphhop.models.encoder import set_threads
    from graphhop.pipeline.registry import build_pipeline
    from graphhop.train.data import METAQA_EVAL_N

    set_threads(args.threads)
    head = METAQA_EVAL_N if DATASETS[args.dataset].family == "metaqa" and args.split == "dev" else None
    exs = qa_examples(args.dataset, args.split, args.limit, max_paths=200, head=head)
    index = dataset_index(kb_path(args.dataset), DenseOptions("flat"), progress=False)
    reranker = str(Path(args.reranker).resolve())
    systems = {"K=0 (dense)": ranking_system(build_pipeline("dense", index), docs=index.docs, batch=16)}
    for k in [int(x) for x in args.ks.split(",")]:
        systems[f"K={k}"] = ranking_system(build_pipeline("difar2", index, reranker=reranker, rerank_k=k), docs=index.docs, batch=16)
    qrels = fact_qrels(exs, index.docs)
    golds = [Gold(ex.id, list(ex.answers), qrels[ex.id]) for ex in exs]
    table = Experiment(["fact Hits@1", "fact MRR", "answer Hits@1"], report=args.split, title=args.dataset).run(
        systems, [ex.question for ex in exs], golds)
    base = table.rows[0]["s/q"]
    for row in table.rows:
        row["rerank ms/q"] = round(1000 * (row["s/q"] - base), 1)
    table.measures.append("rerank ms/q")
    print(f"\n### DiFaR² K curve: {args.dataset} {args.split}, {len(exs)} questions (strided)\n\n{table.markdown()}")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / f"k_curve_{args.dataset}.json", json.dumps(table.to_json(), indent=1))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
