"""Evidence-set baselines for graph retrieval (Graph-hop paper, Table 3).

All take ``k`` (the paper's protocol: ``k`` = the gold set size, an oracle size) and return the
top-``k`` evidence ids over a candidate pool; :func:`ids_to_graph` turns a list into an evidence
graph so graph metrics can be computed:

* ``chain``: question -> id1 -> id2 -> ... in rank (or hop) order;
* ``star``: question -> each id.

Methods: :func:`random_topk` (seeded uniform sample), :class:`PoolBM25` (Okapi BM25, k1 = 1.5,
b = 0.75, IDF from a given document collection; ties broken by pool order), :func:`dense_topk`
(inner product of frozen encoder vectors), and :func:`mdr_chain` (MDR-style dense chain: hop ``h``
encodes ``question [SEP] evidence_1 [SEP] ... evidence_{h-1}`` and takes the best unused candidate;
beam search, chain score = sum of hop scores; inference recipe with the frozen encoder).
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from typing import Callable, Iterable, Sequence

import numpy as np

from graphhop.graph import EvidenceGraph

__all__ = ["tokenize", "PoolBM25", "random_topk", "dense_topk", "mdr_chain", "ids_to_graph"]

_TOKEN = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an the of is was in to and or for on by with what who which where when how does did do 's s".split())


def tokenize(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens without a few stop words (underscores split words)."""
    return [t for t in _TOKEN.findall(text.lower().replace("_", " ")) if t not in _STOP]


class PoolBM25:
    """BM25 over any candidate list, with document frequencies from ``collection`` (the textual DB)."""

    def __init__(self, collection: Iterable[str], k1: float = 1.5, b: float = 0.75) -> None:
        df: Counter[str] = Counter()
        n = 0
        total = 0
        for text in collection:
            toks = tokenize(text)
            df.update(set(toks))
            total += len(toks)
            n += 1
        self.n = max(n, 1)
        self.avgdl = total / self.n if n else 1.0
        self.df = df
        self.k1, self.b = k1, b

    def idf(self, term: str) -> float:
        """Okapi IDF, floored at 0 (Lucene's ``log(1 + (N - df + 0.5) / (df + 0.5))``)."""
        d = self.df.get(term, 0)
        return math.log(1 + (self.n - d + 0.5) / (d + 0.5))

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """BM25 score of each text for ``query``."""
        q = tokenize(query)
        out = np.zeros(len(texts))
        for i, text in enumerate(texts):
            toks = tokenize(text)
            tf = Counter(toks)
            norm = self.k1 * (1 - self.b + self.b * len(toks) / self.avgdl)
            out[i] = sum(self.idf(t) * tf[t] * (self.k1 + 1) / (tf[t] + norm) for t in q if t in tf)
        return out

    def topk(self, query: str, ids: Sequence[str], texts: Sequence[str], k: int) -> list[str]:
        """Top ``k`` ids (stable: ties keep pool order)."""
        s = self.scores(query, texts)
        order = sorted(range(len(ids)), key=lambda i: (-s[i], i))
        return [ids[i] for i in order[:k]]


def random_topk(ids: Sequence[str], k: int, seed: int | str = 13) -> list[str]:
    """``k`` ids drawn uniformly without replacement (seeded)."""
    rng = random.Random(seed)
    return rng.sample(list(ids), min(k, len(ids)))


def dense_topk(question_vec: np.ndarray, ids: Sequence[str], vectors: np.ndarray, k: int) -> list[str]:
    """Top ``k`` ids by inner product (stable ties)."""
    s = vectors @ question_vec
    order = sorted(range(len(ids)), key=lambda i: (-float(s[i]), i))
    return [ids[i] for i in order[:k]]


def mdr_chain(question: str, ids: Sequence[str], texts: Sequence[str], vectors: np.ndarray, hops: int,
              encode: Callable[[list[str]], np.ndarray], beam: int = 3, sep: str = " [SEP] ") -> list[str]:
    """MDR-style dense chain of ``hops`` evidence over a pool: the best chain's ids in hop order."""
    beams: list[tuple[float, tuple[int, ...]]] = [(0.0, ())]
    for _ in range(min(hops, len(ids))):
        queries = [sep.join([question, *(texts[i] for i in chain)]) for _, chain in beams]
        qv = encode(queries)
        cand: list[tuple[float, tuple[int, ...]]] = []
        for (score, chain), v in zip(beams, qv):
            s = vectors @ v
            for i in np.argsort(-s, kind="stable")[: beam + len(chain)]:
                if int(i) not in chain:
                    cand.append((score + float(s[i]), chain + (int(i),)))
        cand.sort(key=lambda x: -x[0])
        seen: set[tuple[int, ...]] = set()
        beams = []
        for c in cand:
            if c[1] not in seen:
                seen.add(c[1])
                beams.append(c)
            if len(beams) >= beam:
                break
    return [ids[i] for i in beams[0][1]] if beams else []


def ids_to_graph(question: str, ids: Sequence[str], texts: dict[str, str] | None = None, shape: str = "chain",
                 facts: dict[str, list] | None = None) -> EvidenceGraph:
    """An evidence graph from an ordered id list: a ``chain`` or a ``star`` under the question."""
    g = EvidenceGraph(question)
    prev = g.root
    for eid in dict.fromkeys(ids):
        g.add_evidence(eid, (texts or {}).get(eid, ""), (facts or {}).get(eid, []))
        g.add_edge(prev if shape == "chain" else g.root, eid)
        prev = eid
    return g
