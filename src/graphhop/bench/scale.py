"""Scale benchmark pieces: a fact pool of a given size, FAISS builds, timed searches, recall and MRR.

The pool is every shared KB's facts (MetaQA, PathQuestion, PQL, WC2014; ~150k), sampled at an even
stride below that size; above it, synthetic facts are appended: a real head entity with a numbered
suffix, a real relation and a real tail entity (``"Kate Winslet 17 [SEP] starred actors [SEP] Titanic"``),
so texts look like the real ones but are new facts. The real facts always come first, so the
MetaQA answers stay reachable at every size that includes the MetaQA KB.
"""

from __future__ import annotations

import resource
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import Fact
from graphhop.index.dense import DenseIndex, DenseOptions

__all__ = ["fact_pool", "build_dense", "time_search", "recall", "peak_rss_mb", "question_sets", "choose_nprobe"]

KB_FILES = ("metaqa/kb.txt", "pathquestion/2H-kb.txt", "pathquestion/3H-kb.txt", "pathquestion/PQL2-KB.txt",
            "pathquestion/PQL3-KB.txt", "wc2014/WC2014.txt")


def fact_pool(root: Path, size: int, seed: int = 0) -> tuple[list[Fact], int]:
    """``size`` facts: the shared KBs' (stride-sampled when fewer are asked) plus synthetic ones.

    Returns ``(facts, synthetic_count)``.
    """
    from graphhop.kb.loaders import iter_triples

    real: list[Fact] = []
    for rel in KB_FILES:
        path = root / rel
        if path.exists():
            real.extend(iter_triples(path, start_id=len(real)))
    if size <= len(real):
        return [real[int(i * len(real) / size)] for i in range(size)], 0
    rng = np.random.default_rng(seed)
    heads = [f.head for f in real]
    relations = sorted({f.relation for f in real})
    tails = [f.tail for f in real]
    extra = size - len(real)
    h = rng.integers(0, len(heads), extra)
    r = rng.integers(0, len(relations), extra)
    t = rng.integers(0, len(tails), extra)
    n0 = len(real)
    synthetic = [Fact(f"{heads[a]} {i % 97}", relations[b], tails[c], f"s{n0 + i}") for i, (a, b, c) in enumerate(zip(h, r, t))]
    return real + synthetic, extra


def question_sets(examples: Sequence[Any], n: int) -> tuple[list[Any], list[Any]]:
    """Two disjoint even-stride samples of ``n`` questions: ``(reported, selection)``.

    The selection set (offset half a stride) chooses search settings (``nprobe``); the reported set
    (offset 0, the one earlier runs reported) is only measured.
    """
    n = min(n, len(examples) // 2)
    reported = [int(i * len(examples) / n) for i in range(n)]
    selection = [int((i + 0.5) * len(examples) / n) for i in range(n)]
    if set(reported) & set(selection):
        raise ValueError("selection and reported questions overlap")
    return [examples[i] for i in reported], [examples[i] for i in selection]


def build_dense(vectors: np.ndarray, options: DenseOptions) -> tuple[DenseIndex, float, int]:
    """``(index, build seconds, serialized bytes)`` for ``vectors``; IVF quantizers train on an even-stride sample."""
    import faiss

    start = time.perf_counter()
    index = DenseIndex.create(vectors.shape[1], options, count=len(vectors))
    if options.kind == "ivf-pq":
        index.train(vectors[:: max(1, len(vectors) // index.train_size)])
    for i in range(0, len(vectors), 65536):
        index.add(vectors[i : i + 65536])
    index.flush()
    seconds = time.perf_counter() - start
    return index, seconds, int(faiss.serialize_index(index.index).nbytes)


def time_search(index: DenseIndex, queries: np.ndarray, k: int) -> tuple[float, np.ndarray, np.ndarray]:
    """``(queries/s, scores, positions)``: one batched search after a 10-query warm-up."""
    index.search(queries[:10], k)
    start = time.perf_counter()
    scores, positions = index.search(queries, k)
    return len(queries) / (time.perf_counter() - start), scores, positions


def choose_nprobe(index: DenseIndex, queries: np.ndarray, examples: Sequence[Any], facts: Sequence[Fact],
                  exact_mrr: float, max_loss: float, k: int = 1000) -> tuple[DenseIndex, list[dict]]:
    """The fewest cells (powers of two up to ``nlist``) whose answer-MRR loss vs exact is <= ``max_loss``.

    Measured on ``queries``/``examples`` — a selection set, never the reported one. Returns the index
    with that ``nprobe`` and every setting tried (nprobe, loss).
    """
    tried, nprobe = [], 1
    while True:
        candidate = index.with_options(nprobe=nprobe)
        loss = exact_mrr - answer_mrr(examples, facts, candidate.search(queries, k)[1])
        tried.append({"nprobe": nprobe, "mrr_loss": round(loss, 4)})
        if loss <= max_loss or nprobe >= index.options.nlist:
            return candidate, tried
        nprobe *= 2


def recall(approx: np.ndarray, exact: np.ndarray) -> float:
    """Mean share of the exact top-k positions that the approximate search also returned."""
    shares = [len(set(a[a >= 0]) & set(e[e >= 0])) / max(1, int((e >= 0).sum())) for a, e in zip(approx, exact)]
    return float(np.mean(shares)) if shares else 0.0


def answer_mrr(examples: Sequence[Any], facts: Sequence[Fact], positions: np.ndarray) -> float:
    """Answer-level MRR: rank of the first fact whose head or tail is a gold answer (0 when none)."""
    from graphhop.kb.verbalize import clean_entity

    total = 0.0
    for ex, row in zip(examples, positions):
        answers = {clean_entity(a).casefold() for a in ex.answers}
        for rank, p in enumerate(row, start=1):
            if p >= 0 and (clean_entity(facts[p].head).casefold() in answers or clean_entity(facts[p].tail).casefold() in answers):
                total += 1.0 / rank
                break
    return total / max(1, len(examples))


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (MB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
