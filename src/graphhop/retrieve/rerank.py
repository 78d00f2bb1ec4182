"""DiFaR²: rerank a first stage's top-K facts with a cross-encoder (question, verbalized fact).

Usage::

    reranker = CrossEncoderReranker(model_dir, index, depth=100)   # index: KnowledgeIndex or DocStore
    retriever = make_retriever(index, "dense") >> reranker          # reranks the dense top 100
    retriever.search(["who directed [Top Gun]"], k=10)

The reranker needs the text of each hit: it takes a :class:`~graphhop.index.directory.KnowledgeIndex`,
a :class:`~graphhop.index.directory.DocStore` or any ``id -> text`` callable. Texts are what the
bi-encoder saw (``head [SEP] relation [SEP] tail`` for facts); questions are normalized like facts
(:func:`~graphhop.kb.verbalize.normalize_question`), exactly as in training
(:mod:`graphhop.train.difar`).

Scores are the cross-encoder's raw logits (higher is better). Ties are broken by first-stage rank,
so equal scores keep the first stage's order.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

from graphhop.core import GraphhopError, Ranking, Stage
from graphhop.kb.verbalize import normalize_question
from graphhop.models.cross_encoder import load_sequence_classifier, score_pairs

__all__ = ["CrossEncoderReranker", "with_rerank"]


def _text_lookup(docs: Any) -> Callable[[str], str]:
    """``id -> text`` from a KnowledgeIndex, DocStore, mapping or callable."""
    from graphhop.index.directory import DocStore, KnowledgeIndex, _dense_text

    if isinstance(docs, KnowledgeIndex):
        docs = docs.docs
    if isinstance(docs, DocStore):
        store = docs
        return lambda doc_id: _dense_text(store[doc_id])
    if isinstance(docs, dict):
        return docs.__getitem__
    if callable(docs):
        return docs
    raise TypeError("docs must be a KnowledgeIndex, a DocStore, a dict or an id -> text callable")


class CrossEncoderReranker(Stage):
    """Re-scores hits with a cross-encoder; implements :class:`graphhop.core.Reranker` (``first >> reranker``).

    ``docs`` gives the hit texts (KnowledgeIndex, DocStore, dict or ``id -> text`` callable).
    ``depth``: how many first-stage hits a composition hands it. ``seconds`` accumulates the time
    spent scoring (the "added time" of reranking).
    """

    name = "rerank"

    def __init__(
        self,
        model_dir_or_name: str | Path | None,
        docs: Any = None,
        batch_size: int = 64,
        max_length: int = 96,
        normalize: bool = True,
        depth: int = 100,
    ) -> None:
        if depth < 1:
            raise GraphhopError("the rerank depth must be at least 1")
        self.depth = depth
        if docs is None:
            raise GraphhopError("CrossEncoderReranker needs the documents (an index, DocStore or id -> text callable)")
        self.model_name = str(model_dir_or_name) if model_dir_or_name is not None else None
        self.model, self.tokenizer = load_sequence_classifier(model_dir_or_name)
        self.text = _text_lookup(docs)
        self.batch_size = batch_size
        self.max_length = max_length
        self.normalize = normalize
        self.seconds = 0.0
        self.pairs_scored = 0

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Scores of ``texts`` for one (raw) query."""
        q = normalize_question(query) if self.normalize else query
        return score_pairs(self.model, self.tokenizer, [q] * len(texts), texts, self.batch_size, self.max_length)

    def rerank(self, queries: Sequence[str], rankings: Sequence[Ranking], k: int = 10) -> list[Ranking]:
        """Top ``k`` of each ranking by cross-encoder score (all pairs of the batch scored together)."""
        if len(queries) != len(rankings):
            raise ValueError(f"{len(queries)} queries but {len(rankings)} rankings")
        start = time.perf_counter()
        # each distinct (question, text) pair is scored once: duplicate texts (e.g. a fact stored
        # in both directions) get identical scores, and the first-stage order breaks the tie
        unique: dict[tuple[str, str], int] = {}
        slots: list[int] = []
        for query, ranking in zip(queries, rankings):
            q = normalize_question(query) if self.normalize else query
            for hit in ranking:
                slots.append(unique.setdefault((q, self.text(hit.id)), len(unique)))
        pairs = list(unique)
        scored = score_pairs(self.model, self.tokenizer, [p[0] for p in pairs], [p[1] for p in pairs], self.batch_size, self.max_length) if pairs else []
        scores = [scored[i] for i in slots]
        out: list[Ranking] = []
        pos = 0
        for ranking in rankings:
            n = len(ranking)
            s = scores[pos : pos + n]
            pos += n
            order = sorted(range(n), key=lambda i: (-s[i], i))
            out.append([ranking[i]._replace(score=float(s[i])) for i in order[:k]])
        self.seconds += time.perf_counter() - start
        self.pairs_scored += len(pairs)
        return out


def with_rerank(retriever: Stage, index: Any, rerank: str | Path | None, rerank_k: int) -> Stage:
    """``retriever >> cross-encoder`` over its top ``rerank_k`` (``retriever`` unchanged when ``rerank`` is None)."""
    if rerank is None:
        return retriever
    return retriever >> CrossEncoderReranker(str(rerank), index, depth=rerank_k)
