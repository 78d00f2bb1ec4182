"""DiFaR speed on the MetaQA KB (129k facts): encoding rate, index build time and size, q/s at
top-1000 for flat vs hnsw-sq (one search thread), and the MRR difference between them.

    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/dense_speed.py [--queries 1000]

The facts' vectors are taken from the cached flat index (built by `graphhop eval metaqa-1h`), so
the encoding rate is measured on a separate sample of facts.
"""

from __future__ import annotations

import resource
import time

import faiss
import numpy as np

from graphhop.datasets.kgqa import kb_path, load_dataset
from graphhop.evaluation import answer_qrels, dataset_index
from graphhop.index.dense import DenseIndex, DenseOptions
from graphhop.metrics.ranking import ranking_metrics
from graphhop.eval.script import benchmark_parser, parse_benchmark_args
from graphhop.models.encoder import load_encoder
from graphhop.retrieve.dense import DenseRetriever


def rss_mb() -> float:
    """Current resident set size (Linux /proc)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = benchmark_parser(__doc__, threads=None)  # a speed benchmark: all cores unless --threads
    parser.add_argument("--queries", type=int, default=1000, help="MetaQA-1h dev questions to time")
    parser.add_argument("--encode-sample", type=int, default=5000, help="facts encoded to time the encoder")
    parser.add_argument("--m", type=int, default=32)
    parser.add_argument("--ef-construction", type=int, default=80)
    parser.add_argument("--ef-search", type=int, default=1000)
    parser.add_argument("--encode-only", action="store_true", help="stop after timing the encoder")
    args = parse_benchmark_args(parser)
    from graphhop.eval.experiment import stride_sample

    index = dataset_index(kb_path("metaqa-1h", args.data), DenseOptions("flat"))
    n = len(index.docs)
    print(f"MetaQA KB: {n} facts; dense index built with {index.model}")

    encoder = load_encoder(None)
    sample = [d.text for d in stride_sample(index.docs.docs, args.encode_sample)]
    encoder.encode(sample[:256], batch_size=128)
    t0 = time.perf_counter()
    encoder.encode(sample, batch_size=128)
    enc_rate = len(sample) / (time.perf_counter() - t0)
    print(f"encoding: {enc_rate:.0f} facts/s ({len(sample)} facts, batch 128, {faiss.omp_get_max_threads()} threads)")

    if args.encode_only:
        return
    vectors = index.dense.index.reconstruct_n(0, n)
    faiss.omp_set_num_threads(1)
    builds = {}
    for kind in ("flat", "hnsw-sq"):
        rss0 = rss_mb()
        t0 = time.perf_counter()
        di = DenseIndex.create(vectors.shape[1], DenseOptions(kind, args.m, args.ef_construction, args.ef_search))
        di.add(vectors)
        build_s = time.perf_counter() - t0
        size_mb = faiss.serialize_index(di.index).nbytes / 2**20
        builds[kind] = di
        print(f"{kind}: build {build_s:.1f}s (1 thread, vectors given), index {size_mb:.0f} MB, RSS +{rss_mb() - rss0:.0f} MB")

    examples = stride_sample(load_dataset("metaqa-1h", "dev", args.data), args.queries)
    retriever = DenseRetriever(index)
    qvecs = retriever.encode_queries([e.question for e in examples])
    results = {}
    for kind, di in builds.items():
        di.search(qvecs[:10], 1000)
        t0 = time.perf_counter()
        scores, positions = di.search(qvecs, 1000)
        qps = len(examples) / (time.perf_counter() - t0)
        docs = index.docs.docs
        from graphhop.core import Hit

        rankings = {e.id: [Hit(docs[p].id, float(s)) for s, p in zip(sr, pr) if p >= 0] for e, sr, pr in zip(examples, scores, positions)}
        m = ranking_metrics(rankings, answer_qrels(examples, rankings, index.docs))
        results[kind] = m
        print(f"{kind}: {qps:.1f} queries/s at top-1000 (1 thread); answer MRR {m['MRR']:.4f}, Hits@1 {m['Hits@1']:.4f}")
    print(f"MRR difference hnsw-sq - flat: {results['hnsw-sq']['MRR'] - results['flat']['MRR']:+.4f}")


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
