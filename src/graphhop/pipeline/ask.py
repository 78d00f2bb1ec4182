"""Answering questions: evidence graph -> question-type operation -> answer, as one stage.

:class:`AskPipeline` (``graphs >> reader``) is what :func:`graphhop.pipeline.registry.build_pipeline`
returns for the built-in methods: a graph stage builds each question's evidence graph (hop-wise
retrieval, :class:`graphhop.pipeline.stages.HopGraphs`, or BGR), the question type is detected
(:func:`graphhop.read.ops.detect_qtype`) and the type's operation runs with the fact reader.
:meth:`AskPipeline.ask` returns an :class:`AskResult`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from graphhop.core import Ranking, Stage

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
    """``graph_stage >> reader``: evidence graphs -> question type -> operation -> :class:`AskResult`.

    ``graph_stage`` builds one evidence graph per question (``retrieve_graph``) and ranks evidence
    (``search``); ``reader`` is a :class:`~graphhop.pipeline.stages.ReaderStage` (its models load on
    the first :meth:`ask`, so retrieval-only use never loads them).
    """

    def __init__(self, name: str, graph_stage: Stage, reader: Stage) -> None:
        self.name, self.graph_stage, self.reader_stage = name, graph_stage, reader

    @property
    def reader(self) -> Any:
        """The loaded reader (loads it now; ``graphhop ask`` does so to time setup apart)."""
        load = getattr(self.reader_stage, "load", None)
        return load() if load is not None else self.reader_stage

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """The method's ranking (its first stage's, for hop-wise graphs)."""
        return self.graph_stage.search(queries, k)

    def retrieve_graph(self, questions: Sequence[str]) -> list["EvidenceGraph"]:
        """One evidence graph per question."""
        return self.graph_stage.retrieve_graph(list(questions))

    def ask(self, question: str, qtype: Optional[str] = None) -> AskResult:
        """Answer one question (``qtype`` forces the question type)."""
        t0 = time.perf_counter()
        _ = self.reader
        timings = {"load_s": time.perf_counter() - t0}
        t1 = time.perf_counter()
        graph = self.retrieve_graph([question])[0]
        timings["retrieve_s"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        result = self.reader_stage.read(question, graph, qtype)
        timings["read_s"] = time.perf_counter() - t2
        timings["total_s"] = time.perf_counter() - t0
        return _result(question, self.name, graph, result, timings)


def _result(question: str, method: str, graph: "EvidenceGraph", result: Any, timings: dict[str, float]) -> AskResult:
    from graphhop.read.graphs import support_graph

    score = result.answer.score
    support = list(result.answer.support)
    return AskResult(
        question=question, method=method, qtype=result.qtype, answer=result.answer.text, answers=list(result.answers),
        score=float(score) if score is not None and math.isfinite(score) else None, support=support, graph=graph,
        support_graph=support_graph(graph, support), trace=result.trace, timings=timings,
    )
