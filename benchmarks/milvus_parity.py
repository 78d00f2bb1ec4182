"""Milvus (milvus-lite) vs FAISS + tantivy on one dev set: are the top-10 the same?

    GRAPHHOP_DATA=/work/shared/data python benchmarks/milvus_parity.py [--dataset pq-3h] [--backend torch]

Builds one index of the dataset's KB with a flat FAISS index and, from the same vectors, a Milvus
collection (FLAT, inner product; BM25 full-text function). For every dev question it compares the
top-10 of FAISS and Milvus (same question vector): identical ids in the same order, overlap, largest
score difference; and Milvus' built-in BM25 against graphhop's tantivy BM25 (different analyzers, so
not expected to be identical), with the fact-level MRR of each. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from graphhop.datasets.kgqa import kb_path, load_dataset
from graphhop.evaluation import fact_qrels
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import EncodingOptions, build_index, documents_from_facts
from graphhop.index.milvus import MilvusTarget
from graphhop.kb.loaders import iter_triples
from graphhop.metrics.ranking import ranking_metrics
from graphhop.retrieve import make_retriever


def compare(a: list, b: list) -> dict[str, float]:
    """Identical-order share, mean overlap@10 and the largest score gap between two ranking lists."""
    same = np.mean([[h.id for h in x] == [h.id for h in y] for x, y in zip(a, b)])
    overlap = np.mean([len({h.id for h in x} & {h.id for h in y}) / max(1, len(y)) for x, y in zip(a, b)])
    gaps = [abs(h.score - g.score) for x, y in zip(a, b) for h, g in zip(x, y) if h.id == g.id]
    return {"same_top10": round(float(same), 4), "overlap@10": round(float(overlap), 4),
            "max_score_diff": float(max(gaps)) if gaps else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dataset", default="pq-3h")
    parser.add_argument("--backend", default="torch")
    args = parser.parse_args()
    examples = load_dataset(args.dataset, "dev")
    questions = [e.question for e in examples]
    with tempfile.TemporaryDirectory() as tmp:
        target = MilvusTarget(str(Path(tmp) / "kb.db"), "parity")
        t0 = time.perf_counter()
        index = build_index(documents_from_facts(iter_triples(kb_path(args.dataset))), Path(tmp) / "kb",
                            dense=DenseOptions("flat"), encoding=EncodingOptions(backend=args.backend), milvus=target)
        build_s = time.perf_counter() - t0
        runs = {}
        for method in ("dense", "milvus-dense", "bm25", "milvus-bm25"):
            retriever = make_retriever(index, method)
            t0 = time.perf_counter()
            runs[method] = retriever.search(questions, 10)
            runs[method + "_qps"] = len(questions) / (time.perf_counter() - t0)
        qrels = fact_qrels(examples, index.docs)
        mrr = {m: round(ranking_metrics({e.id: r for e, r in zip(examples, runs[m])}, qrels)["MRR"], 4)
               for m in ("dense", "milvus-dense", "bm25", "milvus-bm25")}
        row = {"dataset": args.dataset, "questions": len(questions), "kb_facts": len(index.docs), "backend": args.backend,
               "build_s": round(build_s, 1), "load_avg": [round(x, 2) for x in os.getloadavg()],
               "dense": compare(runs["milvus-dense"], runs["dense"]), "bm25": compare(runs["milvus-bm25"], runs["bm25"]),
               "fact_mrr@10": mrr, "qps": {m: round(runs[m + "_qps"], 1) for m in ("dense", "milvus-dense", "bm25", "milvus-bm25")}}
    print(json.dumps(row))


if __name__ == "__main__":
    main()
