"""Answering questions: evidence graph -> question-type operation -> answer, as one stage.

:class:`AskPipeline` is what :func:`graphhop.pipeline.registry.build_pipeline` returns for the
built-in methods: ``graphs`` builds each question's evidence graph (e.g. hop-wise retrieval,
:func:`graphhop.read.facts.retrieve_evidence`, or BGR), the question type is detected
(:func:`graphhop.read.ops.detect_qtype`) and the type's operation runs with the fact reader
(``span_model``: a span reader answers plain queries). :meth:`AskPipeline.ask` returns an
:class:`AskResult`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from graphhop.core import Ranking, Retriever, Stage

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["AskResult", "AskPipeline"]


@dataclass
class AskResult:
    """One answered question: the answer, every answer of its set, the score (None when no answer is
    supported), the supporting evidence ids, the evidence graph and the answer's support graph, the
    operation's trace and the timings (seconds)."""

    question: str
    method: str
    qtype: str
    answer: str
    answers: list[str]
    score: Optional[float]
    support: list[str]
    graph: "EvidenceGraph"
    support_graph: "EvidenceGraph"
    trace: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def supported(self) -> bool:
        """Whether the answer has a score and supporting evidence."""
        return self.score is not None and bool(self.support)

    def to_json(self) -> dict[str, Any]:
        """Strict JSON (graphs as :meth:`EvidenceGraph.to_json`, no NaN/inf)."""
        return {
            "question": self.question, "method": self.method, "qtype": self.qtype, "answer": self.answer,
            "answers": list(self.answers), "score": self.score, "supported": self.supported,
            "support": list(self.support), "graph": self.graph.to_json(), "support_graph": self.support_graph.to_json(),
            "trace": self.trace, "timings": dict(self.timings),
        }


class AskPipeline(Stage):
    """Evidence graphs from ``graphs`` (one per question) -> question type -> operation -> :class:`AskResult`.

    ``retriever`` (when the method ranks evidence) answers :meth:`search`. The reader loads on the
    first :meth:`ask` (so retrieval-only use never loads it); ``reader_model`` is a trained
    cross-encoder dir (default: the MiniLM bi-encoder), ``hops`` the longest chain it reads.
    """

    def __init__(self, method: str, graphs: Callable[[list[str]], list["EvidenceGraph"]],
                 retriever: Optional[Retriever] = None, hops: int = 3, reader_model: Optional[str] = None,
                 span_model: Optional[str] = None, reader: Any = None) -> None:
        self.name = method
        self.graphs, self.retriever, self.hops = graphs, retriever, hops
        self.reader_model, self.span_model = reader_model, span_model
        self._reader, self._span_reader = reader, None

    @property
    def reader(self) -> Any:
        """The :class:`~graphhop.read.ops.OperationReader` (loaded on first use)."""
        if self._reader is None:
            from graphhop.read.facts import FactReader
            from graphhop.read.ops import OperationReader

            self._reader = OperationReader(FactReader.from_model(self.reader_model, max_hops=self.hops))
            if self.span_model is not None:
                from graphhop.read.span import SpanReader

                self._span_reader = SpanReader.load(str(self.span_model))
        return self._reader

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """The method's ranking (the first stage of its graphs)."""
        if self.retriever is None:
            return super().search(queries, k)
        return self.retriever.search(queries, k)

    def retrieve_graph(self, questions: Sequence[str]) -> list["EvidenceGraph"]:
        """One evidence graph per question."""
        return self.graphs(list(questions))

    def ask(self, question: str, qtype: Optional[str] = None) -> AskResult:
        """Answer one question (``qtype`` forces the question type)."""
        t0 = time.perf_counter()
        reader = self.reader
        timings = {"load_s": time.perf_counter() - t0}
        t1 = time.perf_counter()
        graph = self.retrieve_graph([question])[0]
        timings["retrieve_s"] = time.perf_counter() - t1
        timings["read_s"], result = _read(question, graph, reader, self._span_reader, qtype)
        timings["total_s"] = time.perf_counter() - t0
        return _result(question, self.name, graph, result, timings)


def _read(question: str, graph: "EvidenceGraph", reader: Any, span_reader: Any, qtype: Optional[str]) -> tuple[float, Any]:
    from graphhop.read.ops import OperationResult, detect_qtype

    t0 = time.perf_counter()
    kind = qtype or detect_qtype(question)
    if span_reader is not None and kind == "query":
        span = span_reader.answer(question, graph)
        result = OperationResult("query", span, [span.text], {"reader": "span"})
    else:
        result = reader.run(question, graph, qtype=kind)
    return time.perf_counter() - t0, result


def _result(question: str, method: str, graph: "EvidenceGraph", result: Any, timings: dict[str, float]) -> AskResult:
    from graphhop.read.facts import support_graph

    score = result.answer.score
    support = list(result.answer.support)
    return AskResult(
        question=question, method=method, qtype=result.qtype, answer=result.answer.text, answers=list(result.answers),
        score=float(score) if score is not None and math.isfinite(score) else None, support=support, graph=graph,
        support_graph=support_graph(graph, support), trace=result.trace, timings=timings,
    )
