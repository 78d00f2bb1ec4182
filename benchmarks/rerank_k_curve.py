"""DiFaR² K curve (paper Figure 3): quality and added time when reranking the top-K, K = 1..100.

For each K the first stage (DiFaR, bundled MiniLM, flat index) is computed once, then its top-K is
reranked by the cross-encoder, for the first ``--limit`` dev questions. Reported per K: fact-level
Hits@1 and MRR (RR@1000: hits below K keep their first-stage order), answer Hits@1, and the
reranking time per query (wall clock of the cross-encoder scoring only; the first stage is the same
for every K and is reported once). Each K is a separate reranking run, so times are real.

    GRAPHHOP_DATA=/work/shared/data python benchmarks/rerank_k_curve.py --dataset pq-3h \\
        --reranker runs/rr-pq --limit 60 --ks 1,5,10,20,50,100
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from graphhop.datasets.kgqa import kb_path
from graphhop.evaluation import dataset_index, evaluate_rankings
from graphhop.index.dense import DenseOptions
from graphhop.retrieve import make_retriever
from graphhop.pipeline.ops import Rerank
from graphhop.retrieve.rerank import CrossEncoderReranker


def main() -> None:
    import faiss
    import torch

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="pq-3h")
    ap.add_argument("--reranker", required=True, help="cross-encoder directory (graphhop train reranker)")
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--ks", default="1,5,10,20,50,100")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("runs/rerank_k_curve"))
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    faiss.omp_set_num_threads(1)

    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from difar_tables import Cached, examples_for, table

    exs = examples_for(args.dataset, args.limit)
    index = dataset_index(kb_path(args.dataset), DenseOptions("flat"), progress=False)
    dense = make_retriever(index, "dense")
    t0 = time.perf_counter()
    first = {}
    for ex, r in zip(exs, dense.search([e.question for e in exs], 1000)):
        first[ex.question] = r
    first_ms = 1000 * (time.perf_counter() - t0) / len(exs)
    rows = []
    res = evaluate_rankings("DiFaR", exs, {ex.id: first[ex.question] for ex in exs}, index.docs)
    rows.append({"K": 0, "fact Hits@1": res.fact["Hits@1"], "fact MRR": res.fact["MRR"], "answer Hits@1": res.answer["Hits@1"], "rerank ms/q": 0.0, "pairs/q": 0.0})
    reranker = CrossEncoderReranker(args.reranker, index, batch_size=args.batch_size)
    reranker.score("warm up", ["warm up"])
    for k in [int(x) for x in args.ks.split(",")]:
        reranker.seconds, reranker.pairs_scored = 0.0, 0
        rr = Rerank(Cached(first, "dense"), reranker, depth=k)
        out = {}
        for i in range(0, len(exs), 16):
            batch = exs[i : i + 16]
            for ex, r in zip(batch, rr.search([e.question for e in batch], 1000)):
                out[ex.id] = r
        res = evaluate_rankings(f"rerank@{k}", exs, out, index.docs)
        rows.append(
            {
                "K": k,
                "fact Hits@1": res.fact["Hits@1"],
                "fact MRR": res.fact["MRR"],
                "answer Hits@1": res.answer["Hits@1"],
                "rerank ms/q": 1000 * reranker.seconds / len(exs),
                "pairs/q": reranker.pairs_scored / len(exs),
            }
        )
        print(f"K={k}: {rows[-1]}", flush=True)
    print(f"\n### DiFaR² K curve: {args.dataset} dev, first {len(exs)} questions; first stage {first_ms:.1f} ms/q (K=0 = no reranking)\n")
    print(table(rows, ["K", "fact Hits@1", "fact MRR", "answer Hits@1", "rerank ms/q", "pairs/q"]))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"k_curve_{args.dataset}.json").write_text(json.dumps({"args": vars(args) | {"out": str(args.out)}, "first_stage_ms_per_q": first_ms, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
