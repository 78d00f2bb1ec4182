"""``graphhop ask``: parse the options, run :func:`graphhop.pipeline.ask.answer_question`, print.

Nothing is downloaded: the default reader scores with the bundled MiniLM bi-encoder; ``--reader-model DIR``
uses a trained cross-encoder (``graphhop train reranker``) instead.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any, Optional

import typer

from graphhop.core import InputError
from graphhop.pipeline.ask import ASK_METHODS, answer_question, make_ask_retriever

__all__ = ["ask", "register"]


def register(app: typer.Typer) -> None:
    """Add ``ask`` to ``app``."""
    app.command("ask")(ask)


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
