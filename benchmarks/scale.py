"""Scale: 10k / 100k / 1M facts on one machine — build time, bytes/fact, peak RAM, q/s at top-1000 and
top-10 for flat and hnsw-sq (one search thread), recall of hnsw-sq vs flat, MRR loss vs exact.

    GRAPHHOP_DATA=/work/shared/data python benchmarks/scale.py --size 100000 [--backend static]

One size per process, so peak RAM is that size's. Facts: the shared KBs (~150k, stride-sampled below
that) plus synthetic facts above it (see graphhop.bench.scale.fact_pool). Vectors come from the
``--backend`` encoder (static by default: MiniLM torch on 1M facts would take hours on this machine);
queries are MetaQA-1h dev questions (an even stride), encoded by the same backend. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import faiss
import numpy as np

from graphhop.bench.scale import answer_mrr, build_dense, fact_pool, peak_rss_mb, recall, time_search
from graphhop.datasets.kgqa import data_root, load_dataset
from graphhop.index.dense import DenseOptions
from graphhop.kb.verbalize import Verbalizer, normalize_question
from graphhop.models.backends import load_backend, set_threads


def encode(facts, backend: str, chunk: int = 65536) -> tuple[np.ndarray, float]:
    """All fact vectors (float32, preallocated) and the encoding rate."""
    verbalize = Verbalizer()
    encoder = load_backend(backend)
    out = np.zeros((len(facts), encoder.get_embedding_dimension()), dtype=np.float32)
    start = time.perf_counter()
    for i in range(0, len(facts), chunk):
        out[i : i + chunk] = encoder.encode([verbalize(f) for f in facts[i : i + chunk]], batch_size=1024)
        print(f"  encoded {min(i + chunk, len(facts))}/{len(facts)} ({time.perf_counter() - start:.0f}s)", flush=True)
    return out, len(facts) / (time.perf_counter() - start)


def ef_sweep(index, queries, examples, facts, exact, efs: list[int]) -> list[dict]:
    """hnsw-sq re-timed at each ef_search: q/s, recall vs flat and answer MRR, top-10 and top-1000."""
    from dataclasses import replace

    rows = []
    base = index.options
    for ef in efs:
        index.options = replace(base, ef_search=ef)
        qps10, _, pos10 = time_search(index, queries, 10)
        qps1000, _, pos1000 = time_search(index, queries, 1000)
        rows.append({"ef_search": ef, "qps_top10": round(qps10, 1), "recall@10": round(recall(pos10, exact[1]), 4),
                     "qps_top1000": round(qps1000, 1), "recall@1000": round(recall(pos1000, exact[0]), 4),
                     "answer_mrr@1000": round(answer_mrr(examples, facts, pos1000), 4)})
        print(f"  ef_search {ef}: {rows[-1]}", flush=True)
    index.options = base
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--backend", default="static")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--m", type=int, default=32)
    parser.add_argument("--ef-construction", type=int, default=80)
    parser.add_argument("--ef-search", type=int, default=128)
    parser.add_argument("--build-threads", type=int, default=2)
    parser.add_argument("--ef-sweep", default="", help="Comma-separated ef_search values to re-time hnsw-sq with.")
    args = parser.parse_args()
    set_threads(args.build_threads)
    facts, synthetic = fact_pool(data_root(), args.size)
    vectors, rate = encode(facts, args.backend)
    dev = load_dataset("metaqa-1h", "dev")
    examples = [dev[int(i * len(dev) / args.queries)] for i in range(min(args.queries, len(dev)))]
    queries = load_backend(args.backend).encode([normalize_question(e.question) for e in examples], batch_size=256)
    row = {"size": len(facts), "synthetic": synthetic, "backend": args.backend, "dim": int(vectors.shape[1]),
           "encode_facts_per_s": round(rate, 1), "queries": len(examples), "load_avg": [round(x, 2) for x in os.getloadavg()]}
    results = {}
    for kind in ("flat", "hnsw-sq"):
        faiss.omp_set_num_threads(args.build_threads)
        index, build_s, nbytes = build_dense(vectors, DenseOptions(kind, args.m, args.ef_construction, args.ef_search))
        print(f"  {kind}: built in {build_s:.0f}s", flush=True)
        faiss.omp_set_num_threads(1)
        qps1000, _, pos1000 = time_search(index, queries, 1000)
        qps10, _, pos10 = time_search(index, queries, 10)
        results[kind] = (pos1000, pos10)
        if kind == "hnsw-sq" and args.ef_sweep:
            row["ef_sweep"] = ef_sweep(index, queries, examples, facts, results["flat"],
                                       [int(x) for x in args.ef_sweep.split(",")])
        row[kind] = {"build_s": round(build_s, 1), "bytes_per_fact": round(nbytes / len(facts), 1),
                     "qps_top1000": round(qps1000, 1), "qps_top10": round(qps10, 1),
                     "answer_mrr@1000": round(answer_mrr(examples, facts, pos1000), 4)}
        del index
    row["hnsw_recall@10"] = round(recall(results["hnsw-sq"][1], results["flat"][1]), 4)
    row["hnsw_recall@1000"] = round(recall(results["hnsw-sq"][0], results["flat"][0]), 4)
    row["mrr_loss_vs_exact"] = round(row["flat"]["answer_mrr@1000"] - row["hnsw-sq"]["answer_mrr@1000"], 4)
    row["peak_rss_mb"] = round(peak_rss_mb())
    print(json.dumps(row))


if __name__ == "__main__":
    main()
