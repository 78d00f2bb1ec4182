"""Encoder backends side by side in one run: facts/s on a stride sample of a KB, and fact-level MRR.

For each backend the whole KB of one dev set is encoded, searched exactly (FAISS flat) with the dev
questions, and scored by fact-level MRR / Hits@1 / Hits@10 (a gold path triple in either stored
direction counts). The speed is timed on ``n`` facts taken at an even stride over the KB, after a
warm-up batch. The ``two-tier`` row is a static first stage re-scored by MiniLM over its top
``depth``: its build speed is the static backend's, its MRR that of the re-scored ranking.
"""

from __future__ import annotations

import os
import time
from typing import Any, Sequence

import numpy as np

from graphhop.eval.experiment import stride_sample
from graphhop.index.dense import DenseIndex, DenseOptions
from graphhop.index.directory import DocStore, dense_text, documents_from_facts
from graphhop.kb.loaders import iter_triples
from graphhop.kb.verbalize import normalize_question
from graphhop.metrics.ranking import ranking_metrics
from graphhop.models.backends import BACKENDS, get_threads, load_backend
from graphhop.retrieve.two_tier import rescore

__all__ = ["encode_benchmark", "stride_sample"]


def _unit(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def _rate(encoder: Any, texts: list[str], batch_size: int) -> float:
    encoder.encode(texts[:batch_size], batch_size=batch_size)  # warm-up (graph optimization, caches)
    start = time.perf_counter()
    encoder.encode(texts, batch_size=batch_size)
    return len(texts) / (time.perf_counter() - start)


def _mrr(doc_vecs: np.ndarray, q_vecs: np.ndarray, examples, docs: DocStore, k: int) -> tuple[dict[str, float], np.ndarray]:
    from graphhop.evaluation import fact_qrels

    index = DenseIndex.create(doc_vecs.shape[1], DenseOptions("flat"))
    index.add(doc_vecs)
    _, positions = index.search(q_vecs, k)
    rankings = _rankings(examples, docs, [[(int(p), 0.0) for p in row if p >= 0] for row in positions])
    return ranking_metrics(rankings, fact_qrels(examples, docs)), positions


def _rankings(examples, docs: DocStore, ranked: list[list[tuple[int, float]]]) -> dict:
    from graphhop.core import Hit

    return {ex.id: [Hit(docs.docs[p].id, s) for p, s in r] for ex, r in zip(examples, ranked)}


def encode_benchmark(
    dataset: str = "wc-p1",
    n: int = 2000,
    backends: Sequence[str] = BACKENDS,
    batch_size: int = 128,
    k: int = 100,
    depth: int = 100,
    limit: int | None = None,
    progress: Any = None,
    model: str | None = None,
) -> dict[str, Any]:
    """Measure every backend on one dev set; returns ``{"backends": {name: {...}}, "two_tier": {...}, ...}``."""
    from graphhop.datasets.kgqa import kb_path, load_dataset
    from graphhop.evaluation import fact_qrels

    say = progress or (lambda msg: None)
    examples = load_dataset(dataset, "dev")
    examples = stride_sample(examples, limit) if limit else examples
    docs = DocStore(list(documents_from_facts(iter_triples(kb_path(dataset)))))
    texts = [dense_text(d) for d in docs.docs]
    sample = stride_sample(texts, n)
    questions = [normalize_question(e.question) for e in examples]
    out: dict[str, Any] = {"dataset": dataset, "split": "dev", "questions": len(examples), "kb_facts": len(texts),
                           "sample": len(sample), "batch_size": batch_size, "threads": get_threads(),
                           "load_avg": [round(x, 2) for x in os.getloadavg()], "backends": {}}
    vectors: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name in backends:
        say(f"{name}: loading")
        encoder = load_backend(name, model)
        rate = _rate(encoder, sample, batch_size)
        say(f"{name}: {rate:.0f} facts/s; encoding the KB for MRR")
        doc_vecs = np.asarray(encoder.encode(texts, batch_size=batch_size), dtype=np.float32)
        q_vecs = np.asarray(encoder.encode(questions, batch_size=64), dtype=np.float32)
        metrics, positions = _mrr(doc_vecs, q_vecs, examples, docs, k)
        vectors[name] = (doc_vecs, q_vecs)
        row = {"facts_per_s": round(rate, 1), "mrr": round(metrics["MRR"], 4), "hits@1": round(metrics["Hits@1"], 4),
               "hits@10": round(metrics["Hits@10"], 4), "dim": int(doc_vecs.shape[1])}
        if "torch" in vectors and name != "torch" and doc_vecs.shape == vectors["torch"][0].shape:
            row["cos_to_torch"] = round(float((_unit(doc_vecs) * _unit(vectors["torch"][0])).sum(1).mean()), 4)
        out["backends"][name] = row
        if name == "static" and "torch" in vectors:
            tv, tq = (_unit(x) for x in vectors["torch"])
            first = _mrr(doc_vecs, q_vecs, examples, docs, depth)[1]
            ranked = rescore(tq, first, lambda pos: tv[pos])
            m = ranking_metrics(_rankings(examples, docs, [r[:k] for r in ranked]), fact_qrels(examples, docs))
            out["two_tier"] = {"first": "static", "second": "torch", "depth": depth, "build_facts_per_s": round(rate, 1),
                               "mrr": round(m["MRR"], 4), "hits@1": round(m["Hits@1"], 4), "hits@10": round(m["Hits@10"], 4)}
    return out
