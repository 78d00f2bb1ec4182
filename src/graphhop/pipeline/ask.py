"""Answering one question: retrieval -> evidence graph -> question-type operation -> answer.

:func:`answer_question` is what ``graphhop ask`` and the demo run: retrieval (``method``) ->
evidence graph (:func:`graphhop.read.facts.retrieve_evidence`: facts chained from the question's
entities) -> question type (:func:`graphhop.read.ops.detect_qtype`) -> the type's operation with
the fact reader -> the answer, its score, the supporting evidence and timings.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional

from graphhop.core import InputError

__all__ = ["ASK_METHODS", "make_ask_retriever", "answer_question"]

#: Retrieval methods ``ask`` knows.
ASK_METHODS = ("dense", "bm25", "hybrid", "difar2", "golden", "bgr")


def make_ask_retriever(index: Any, method: str, reranker: Optional[Path] = None, rerank_k: int = 50,
                       query_generator: Optional[Path] = None) -> Any:
    """The fact retriever of ``method`` over ``index`` (``bgr`` builds graphs itself: returns None)."""
    from graphhop.retrieve import make_retriever

    if method in ("bm25", "dense", "hybrid"):
        return make_retriever(index, method)
    if method == "difar2":
        if reranker is None:
            raise InputError("--method difar2 needs --reranker DIR (a model from `graphhop train reranker`): "
                             "an untrained cross-encoder head would rank at random")
        from graphhop.retrieve.rerank import CrossEncoderReranker, RerankedRetriever

        return RerankedRetriever(make_retriever(index, "dense"), CrossEncoderReranker(str(reranker), index), rerank_k=rerank_k)
    if method == "golden":
        from graphhop.retrieve.golden import GoldEnRetriever, GoldEnSearch, QuestionQueryGenerator, SpanQueryGenerator

        if query_generator is not None:
            from graphhop.models.span import SpanSelector

            generator: Any = SpanQueryGenerator(SpanSelector.load(str(query_generator)))
        else:
            generator = QuestionQueryGenerator()
        return GoldEnRetriever(GoldEnSearch(index), generator)
    if method == "bgr":
        return None
    raise InputError(f"unknown method {method!r}; choose one of {', '.join(ASK_METHODS)}")


def answer_question(
    question: str,
    index: Any,
    method: str = "dense",
    k: int = 20,
    hops: int = 3,
    qtype: Optional[str] = None,
    reader: Any = None,
    retriever: Any = None,
    bgr_model: Optional[Path] = None,
    span_reader: Any = None,
) -> dict[str, Any]:
    """Answer one question over a :class:`~graphhop.index.directory.KnowledgeIndex`.

    Returns ``{question, qtype, answer, score, answers, support, trace, graph, support_graph,
    method, timings}`` (``graph``/``support_graph`` are :class:`~graphhop.graph.EvidenceGraph`).
    Pass ``reader`` (an :class:`~graphhop.read.ops.OperationReader`) and ``retriever`` to reuse them;
    ``span_reader`` (a :class:`~graphhop.read.span.SpanReader`) answers plain queries instead of
    the fact reader (count/boolean/comparison still use the operations).
    """
    from graphhop.read.facts import retrieve_evidence, support_graph
    from graphhop.read.ops import OperationReader

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    reader = reader or OperationReader()
    if method == "bgr":
        if bgr_model is None:
            raise InputError("--method bgr needs --bgr-model DIR (a model from `graphhop train bgr`)")
        from graphhop.pipeline.bgr import ask_bgr

        graph = ask_bgr(question, str(bgr_model), index=str(index.path))
        timings["retrieve_s"] = time.perf_counter() - t0
    else:
        retriever = retriever or make_ask_retriever(index, method)
        timings["load_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        graph = retrieve_evidence(retriever, index.docs, [question], k=k, hops=hops)[0]
        timings["retrieve_s"] = time.perf_counter() - t1
    t2 = time.perf_counter()
    from graphhop.read.ops import OperationResult, detect_qtype

    kind = qtype or detect_qtype(question)
    if span_reader is not None and kind == "query":
        span = span_reader.answer(question, graph)
        result = OperationResult("query", span, [span.text], {"reader": "span"})
    else:
        result = reader.run(question, graph, qtype=kind)
    timings["read_s"] = time.perf_counter() - t2
    timings["total_s"] = time.perf_counter() - t0
    return {
        "question": question,
        "method": method,
        "qtype": result.qtype,
        "answer": result.answer.text,
        "score": result.answer.score,
        "answers": result.answers,
        "support": list(result.answer.support),
        "trace": result.trace,
        "graph": graph,
        "support_graph": support_graph(graph, result.answer.support),
        "timings": timings,
    }
