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

GoldEn over a pool (:class:`PoolSearch`, :func:`golden_chain`): GoldEn's hop loop with a query
generator (a trained span selector) and BM25 over the pool; hop ``h`` takes its best unused hit, and
the next context is the question plus the hop's top ``per_hop`` hits (as GoldEn builds it).
Builder sentences have no titles, so GoldEn's title-match rerank has nothing to act on here.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from graphhop.core import Hit, Ranking
from graphhop.graph import EvidenceGraph

if TYPE_CHECKING:
    from graphhop.retrieve.golden import QueryGenerator

__all__ = ["tokenize", "PoolBM25", "PoolSearch", "random_topk", "dense_topk", "mdr_chain", "golden_chain", "ids_to_graph"]

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

    def doc_stats(self, texts: Sequence[str]) -> list[tuple[Counter[str], float]]:
        """Term counts and length norm of each text (computed once, scored many times)."""
        out = []
        for text in texts:
            toks = tokenize(text)
            out.append((Counter(toks), self.k1 * (1 - self.b + self.b * len(toks) / self.avgdl)))
        return out

    def score_stats(self, query: str, stats: Sequence[tuple[Counter[str], float]]) -> np.ndarray:
        """BM25 score of each pre-tokenized text (:meth:`doc_stats`) for ``query``."""
        q = tokenize(query)
        return np.array([sum(self.idf(t) * tf[t] * (self.k1 + 1) / (tf[t] + norm) for t in q if t in tf)
                         for tf, norm in stats], dtype=float)

    def scores(self, query: str, texts: Sequence[str]) -> np.ndarray:
        """BM25 score of each text for ``query``."""
        return self.score_stats(query, self.doc_stats(texts))

    def topk(self, query: str, ids: Sequence[str], texts: Sequence[str], k: int) -> list[str]:
        """Top ``k`` ids (stable: ties keep pool order)."""
        s = self.scores(query, texts)
        order = sorted(range(len(ids)), key=lambda i: (-s[i], i))
        return [ids[i] for i in order[:k]]


class PoolSearch:
    """GoldEn's search over one question's pool: BM25 (:class:`PoolBM25`) ranks the pool's passages.

    It has what GoldEn's oracle and hop loop use of :class:`~graphhop.retrieve.golden.GoldEnSearch`:
    ``search(queries, k)``, ``candidates`` and ``index.docs`` (id -> document, with ``in``)."""

    def __init__(self, bm25: PoolBM25, ids: Sequence[str], texts: Sequence[str], candidates: int = 50) -> None:
        from graphhop.index.directory import Document

        self.ids = list(ids)
        self.candidates = candidates
        self.bm25 = bm25
        self._stats = bm25.doc_stats(texts)
        self.index = SimpleNamespace(docs={i: Document(i, t) for i, t in zip(self.ids, texts)}, path="<candidate pool>")

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Pool ranking per query, best first (ties: pool order); zero-score passages are not hits."""
        out = []
        for query in queries:
            s = self.bm25.score_stats(query, self._stats)
            order = sorted(range(len(self.ids)), key=lambda i: (-s[i], i))
            out.append([Hit(self.ids[i], float(s[i])) for i in order[:k] if s[i] > 0])
        return out


def golden_chain(question: str, search: Any, generator: "QueryGenerator", hops: int, per_hop: int = 5,
                 max_words: int = 50) -> list[str]:
    """GoldEn's hop loop for ``hops`` hops over ``search`` (a :class:`PoolSearch`, or a
    :class:`~graphhop.retrieve.golden.GoldEnSearch` over a whole index): each hop's query comes from
    ``generator`` (question + the previous hop's top ``per_hop`` hits as context) and contributes its
    best hit not yet taken; returns the ids in hop order (fewer when a query retrieves nothing new)."""
    from graphhop.retrieve.golden import HopInput, build_context

    docs = search.index.docs
    context = question.strip()
    chain: list[str] = []
    for hop in range(1, hops + 1):
        query = generator.generate([HopInput(question, context, hop)])[0].query
        ranking = search.search([query], hops + per_hop)[0]
        new = next((h.id for h in ranking if h.id not in chain), None)
        if new is not None:
            chain.append(new)
        context = build_context(question, (docs[h.id] for h in ranking[:per_hop]), max_words)
    return chain


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
