"""Stage constructors for composing pipelines by hand (the registry's built-ins are made of these).

>>> from graphhop.pipeline import stages as S
>>> pipe = (S.bm25(index) + S.dense(index)) >> S.hops(index) >> S.reader()
>>> pipe.ask("In which country was the painter of the Mona Lisa born?").answer
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

from graphhop.core import Ranking, Stage

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["HopGraphs", "ReaderStage", "bm25", "dense", "rerank", "hops", "bgr", "reader", "mdr", "golden"]


class HopGraphs(Stage):
    """Evidence graphs of facts chained from the question's entities (:func:`graphhop.retrieve.hops.retrieve_evidence`).

    After a retriever (``retriever >> hops``) the retriever runs at every hop: ``k`` facts for the
    question, then up to ``per_entity`` per frontier entity, chains of at most ``max_hops`` facts.
    Over a fixed candidate ranking (:meth:`graphs`) it chains the candidates only.
    """

    name = "hops"

    def __init__(self, docs: Any, k: int = 20, max_hops: int = 3, loops: bool = False) -> None:
        self.docs, self.k, self.max_hops, self.loops = docs, k, max_hops, loops

    def build(self, first: Stage, questions: list[str]) -> list["EvidenceGraph"]:
        """Hop-wise retrieval with ``first`` at every hop."""
        from graphhop.retrieve.hops import retrieve_evidence

        return retrieve_evidence(first, self.docs, questions, k=self.k, hops=self.max_hops, loops=self.loops)

    def graphs(self, questions: Sequence[str], rankings: Sequence[Ranking]) -> list["EvidenceGraph"]:
        """Graphs over the given candidates only (no further search)."""
        from graphhop.read.graphs import build_evidence_graph

        out = []
        for q, ranking in zip(questions, rankings):
            facts = [(h.id, self.docs[h.id].fact.triple) for h in ranking if self.docs[h.id].fact is not None]
            texts = {h.id: self.docs[h.id].text for h in ranking}
            out.append(build_evidence_graph(q, facts, texts, max_hops=self.max_hops, loops=self.loops))
        return out


class ReaderStage(Stage):
    """The question-type operations with the fact reader (:class:`~graphhop.read.ops.OperationReader`).

    ``reader_model``: a trained cross-encoder dir (default: the MiniLM bi-encoder); ``span_model``:
    a span reader for plain queries; ``reader``: an already loaded OperationReader to share. Models
    load on first use.
    """

    name = "reader"

    def __init__(self, reader_model: Optional[str] = None, max_hops: int = 3, span_model: Optional[str] = None,
                 reader: Any = None) -> None:
        self.reader_model, self.max_hops, self.span_model = reader_model, max_hops, span_model
        self._reader, self._span = reader, None

    @property
    def loaded(self) -> bool:
        """Whether the reader's models are loaded."""
        return self._reader is not None

    def load(self) -> Any:
        """The OperationReader (loaded once)."""
        if self._reader is None:
            from graphhop.read.facts import FactReader
            from graphhop.read.ops import OperationReader

            self._reader = OperationReader(FactReader.from_model(self.reader_model, max_hops=self.max_hops))
        if self.span_model is not None and self._span is None:
            from graphhop.read.span import SpanReader

            self._span = SpanReader.load(str(self.span_model))
        return self._reader

    def read(self, question: str, graph: "EvidenceGraph", qtype: Optional[str] = None) -> Any:
        """The :class:`~graphhop.read.ops.OperationResult` of ``question`` over ``graph``."""
        from graphhop.read.ops import OperationResult, detect_qtype

        reader = self.load()
        kind = qtype or detect_qtype(question)
        if self._span is not None and kind == "query":
            span = self._span.answer(question, graph)
            return OperationResult("query", span, [span.text], {"reader": "span"})
        return reader.run(question, graph, qtype=kind)


def bm25(index: Any) -> Stage:
    """BM25 (tantivy) over ``index``."""
    from graphhop.retrieve.bm25 import BM25Retriever

    return BM25Retriever(index)


def dense(index: Any, model: Optional[str] = None) -> Stage:
    """DiFaR: dense retrieval over ``index`` (``model``: the encoder the index was built with)."""
    from graphhop.retrieve.dense import DenseRetriever

    return DenseRetriever(index, model=model)


def rerank(index: Any, model_dir: str | Path, depth: int = 100) -> Stage:
    """DiFaR²'s cross-encoder (a ``graphhop train reranker`` dir) over the first stage's top ``depth``."""
    from graphhop.retrieve.rerank import CrossEncoderReranker

    return CrossEncoderReranker(str(model_dir), index, depth=depth)


def mdr(index: Any, max_hops: int = 2, beam: int = 5, model: Optional[str] = None) -> Stage:
    """MDR: multi-hop dense retrieval (the question plus the previous hit is the next query)."""
    from graphhop.retrieve.dense import DenseRetriever
    from graphhop.retrieve.mdr import MDRRetriever

    return MDRRetriever(DenseRetriever(index, model=model), hops=max_hops, beam=beam)


def golden(index: Any, query_generator: Optional[str | Path] = None, max_hops: int = 2,
           path_queries: bool = False) -> Stage:
    """GoldEn: iterative queries (``query_generator``: a trained span selector; without one the question,
    or with ``path_queries`` the question plus the previous hop's best passage)."""
    from graphhop.retrieve.golden import (GoldEnRetriever, GoldEnSearch, PathQueryGenerator, QuestionQueryGenerator,
                                          SpanQueryGenerator)

    if query_generator is not None:
        from graphhop.models.span import SpanSelector

        generator: Any = SpanQueryGenerator(SpanSelector.from_pretrained(str(query_generator)))
    else:
        generator = PathQueryGenerator() if path_queries else QuestionQueryGenerator()
    return GoldEnRetriever(GoldEnSearch(index), generator, max_hops=max_hops)


def hops(index: Any, k: int = 20, max_hops: int = 3, loops: bool = False) -> HopGraphs:
    """Hop-wise evidence graphs over ``index``'s facts (see :class:`HopGraphs`)."""
    return HopGraphs(index.docs, k, max_hops, loops)


def bgr(model_dir: str | Path, index: Any = None, mode: str = "bidirectional", top_n: int = 25) -> Stage:
    """Graph-hop retrieval with a trained BGR model over the first stage's top ``top_n``."""
    from graphhop.pipeline.bgr import BGRGraphs

    return BGRGraphs(model_dir, docs=None if index is None else index.docs, top_n=top_n, mode=mode)


def reader(reader_model: Optional[str] = None, max_hops: int = 3, span_model: Optional[str] = None,
           shared: Any = None) -> ReaderStage:
    """The question-type operations with the fact reader (see :class:`ReaderStage`)."""
    return ReaderStage(reader_model, max_hops, span_model, shared)
