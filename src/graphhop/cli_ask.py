"""``graphhop ask`` and ``graphhop train reader`` (command functions; :mod:`graphhop.cli` registers them).

``ask`` runs the whole pipeline for one question: retrieval (``--method``) -> evidence graph
(:func:`graphhop.read.facts.retrieve_evidence`: facts chained from the question's entities) ->
question type (:func:`graphhop.read.ops.detect_qtype`) -> the type's operation with the fact
reader -> the answer, its score, the supporting evidence as a tree, and timings. Nothing is
downloaded: the default reader scores with the bundled MiniLM bi-encoder; ``--reader-model DIR``
uses a trained cross-encoder (``graphhop train reranker``) instead.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Optional

import typer

from graphhop.core import GraphhopError, InputError

__all__ = ["ASK_METHODS", "make_ask_retriever", "answer_question", "ask", "train_reader"]

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
        try:
            from graphhop.cli_bgr import ask_bgr
        except ImportError as exc:  # pragma: no cover - depends on the BGR module being present
            raise GraphhopError(f"the BGR retriever is not available: {exc}") from None
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


def ask(
    question: str = typer.Argument(..., help="The question."),
    index: Optional[Path] = typer.Option(None, "--index", "-i", help="Index directory (`graphhop index`); default: the bundled demo KB."),
    method: str = typer.Option("dense", "--method", "-m", help="Retrieval: dense, bm25, hybrid, difar2, golden or bgr."),
    k: int = typer.Option(20, "-k", help="Facts retrieved for the question (hop 1); later hops add 10 per frontier entity."),
    hops: int = typer.Option(3, "--hops", help="Longest reasoning chain (facts)."),
    qtype: Optional[str] = typer.Option(None, "--qtype", help="Force the question type: query, count, boolean, comparison, relation."),
    reader_model: Optional[Path] = typer.Option(None, "--reader-model", help="Trained cross-encoder dir to score facts (default: MiniLM bi-encoder, untrained)."),
    reranker: Optional[Path] = typer.Option(None, "--reranker", help="Cross-encoder dir for --method difar2."),
    rerank_k: int = typer.Option(50, "--rerank-k", help="First-stage hits reranked by difar2."),
    query_generator: Optional[Path] = typer.Option(None, "--query-generator", help="Span-selector dir for --method golden (default: the question as query)."),
    bgr_model: Optional[Path] = typer.Option(None, "--bgr-model", help="BGR model dir for --method bgr."),
    span_model: Optional[Path] = typer.Option(None, "--span-reader", help="Span reader dir (`graphhop train reader`) for plain queries."),
    full_graph: bool = typer.Option(False, "--full-graph", help="Print the whole evidence graph, not only the answer's support."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Answer a question: retrieval -> evidence graph -> question-type operation -> answer."""
    from rich.console import Console

    from graphhop.index.directory import KnowledgeIndex
    from graphhop.read.facts import FactReader
    from graphhop.read.ops import QTYPES, OperationReader

    if qtype is not None and qtype not in QTYPES:
        raise InputError(f"--qtype: unknown type {qtype!r}; choose one of {', '.join(QTYPES)}")
    if method not in ASK_METHODS:
        raise InputError(f"--method: unknown method {method!r}; choose one of {', '.join(ASK_METHODS)}")
    if not 1 <= k <= 1000 or not 1 <= hops <= 5:
        raise InputError(f"-k must be in 1..1000 and --hops in 1..5 (got {k}, {hops})")
    t0 = time.perf_counter()
    if index is None:
        from graphhop.demo import demo_index

        kindex = demo_index(progress=not as_json)
    else:
        kindex = KnowledgeIndex.open(index)
    reader = OperationReader(FactReader.from_model(str(reader_model) if reader_model else None, max_hops=hops))
    retriever = None if method == "bgr" else make_ask_retriever(kindex, method, reranker, rerank_k, query_generator)
    span_reader = None
    if span_model is not None:
        from graphhop.read.span import SpanReader

        span_reader = SpanReader.load(str(span_model))
    setup = time.perf_counter() - t0
    out = answer_question(question, kindex, method, k, hops, qtype, reader, retriever, bgr_model, span_reader)
    out["timings"] = {"setup_s": setup, **out["timings"]}
    if as_json:
        payload = {key: out[key] for key in ("question", "method", "qtype", "answer", "score", "answers", "support", "trace", "timings")}
        if not math.isfinite(payload["score"]):
            payload["score"] = None  # no answer: keep the output strict JSON
        payload["graph"] = out["graph"].to_json()
        payload["support_graph"] = out["support_graph"].to_json()
        print(json.dumps(payload, ensure_ascii=False, default=float))
        return
    console = Console()
    _print_answer(console, out, full_graph)


def _print_answer(console: Any, out: dict[str, Any], full_graph: bool = False) -> None:
    from rich.markup import escape

    console.print(f"[bold]Q:[/] {escape(out['question'])}  [dim]({out['qtype']}, {out['method']})[/]")
    extra = ""
    if len(out["answers"]) > 1:
        extra = f"  [dim]all: {escape(', '.join(out['answers'][:10]))}{' ...' if len(out['answers']) > 10 else ''}[/]"
    score = f"score {out['score']:.3f}" if math.isfinite(out["score"]) else "no supported answer"
    console.print(f"[bold green]A:[/] {escape(out['answer'] or '(no answer)')}  [dim]{score}[/]{extra}")
    graph = out["graph"] if full_graph else out["support_graph"]
    title = "evidence graph" if full_graph else f"supporting evidence ({len(out['support'])} of {len(out['graph'])} facts in the graph)"
    console.print(f"[bold]{title}:[/]")
    console.print(escape(graph.render_tree(width=120)), highlight=False)
    t = out["timings"]
    console.print("[dim]timings: " + ", ".join(f"{k[:-2]} {v * 1000:.0f} ms" for k, v in t.items()) + "[/]")


def train_reader(
    data: Path = typer.Argument(..., help="Builder dataset directory (train.jsonl, dev.jsonl) or a train .jsonl file."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to save the span reader (atomically)."),
    dev: Optional[Path] = typer.Option(None, "--dev", help="Dev .jsonl (default: dev.jsonl next to the training data)."),
    model: Optional[str] = typer.Option(None, "--model", help="HF encoder name or path (default: bundled MiniLM)."),
    evidence: str = typer.Option("gold", "--evidence", help="Evidence the reader sees in training: gold (the gold graph) or pool (gold + distractors)."),
    epochs: int = typer.Option(2, "--epochs"),
    batch_size: int = typer.Option(16, "--batch-size"),
    lr: float = typer.Option(1e-4, "--lr"),
    warmup: float = typer.Option(0.1, "--warmup", help="Fraction of steps for linear warm-up."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Use the first N training questions."),
    dev_limit: Optional[int] = typer.Option(200, "--dev-limit", help="Evaluate on the first N dev questions."),
    max_length: int = typer.Option(256, "--max-length", help="Word pieces per (question, evidence) pair."),
    max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Stop training after this many minutes (best checkpoint kept)."),
    threads: Optional[int] = typer.Option(None, "--threads", help="torch CPU threads."),
    seed: int = typer.Option(0, "--seed"),
) -> None:
    """Train the span reader on a builder dataset's (question, evidence, answer) triples."""
    from graphhop.models.encoder import set_threads
    from graphhop.read.span import SpanReader, examples_from_records
    from graphhop.train.reader import train_span_reader

    set_threads(threads)
    train_path = data / "train.jsonl" if data.is_dir() else data
    dev_path = dev or (train_path.parent / "dev.jsonl")
    if not train_path.exists():
        raise InputError(f"{train_path}: no such file")
    train_ex, skipped = examples_from_records(train_path, evidence=evidence, limit=limit)
    dev_ex: list = []
    if dev_path.exists():
        dev_ex, _ = examples_from_records(dev_path, evidence=evidence, limit=dev_limit)
    typer.echo(f"train: {len(train_ex)} examples ({skipped} questions without the answer in their evidence); dev: {len(dev_ex)}")
    reader = SpanReader.from_pretrained(model, max_length=max_length)
    result = train_span_reader(reader, train_ex, dev_ex, out=out, epochs=epochs, batch_size=batch_size, lr=lr,
                               warmup=warmup, seed=seed, max_minutes=max_minutes,
                               card={"data": str(train_path), "evidence": evidence})
    typer.echo(json.dumps({"out": str(out), "steps": result.steps, "seconds": round(result.seconds, 1),
                           "best_epoch": result.best_epoch, "best": result.best}, indent=2))
