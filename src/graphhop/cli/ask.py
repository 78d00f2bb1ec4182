"""``graphhop ask``: parse the options, build the named pipeline (:mod:`graphhop.pipeline.registry`), print its answer.

Nothing is downloaded: the default reader scores with the bundled MiniLM bi-encoder; ``--reader-model DIR``
uses a trained cross-encoder (``graphhop train reranker``) instead.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional

import typer

from graphhop.core import InputError
from graphhop.pipeline.ask import AskResult

__all__ = ["ask", "pipelines", "register"]


def register(app: typer.Typer) -> None:
    """Add ``ask`` and ``pipelines`` to ``app``."""
    app.command("ask")(ask)
    app.command("pipelines")(pipelines)


def pipelines(as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """List the registered pipelines (what --method takes), the index kinds each runs over, and what it does."""
    from graphhop.cli.common import print_table
    from graphhop.pipeline.registry import pipeline_names, pipeline_spec

    rows = [{"method": n, "kinds": ",".join(pipeline_spec(n).kinds), "text": pipeline_spec(n).help} for n in pipeline_names()]
    print_table("pipelines", rows, as_json)


def ask(
    question: str = typer.Argument(..., help="The question."),
    index: Optional[Path] = typer.Option(None, "--index", "-i", help="Index directory (`graphhop index`); default: the bundled demo KB."),
    method: str = typer.Option("auto", "--method", "-m", help="Pipeline: kgqa, text, dense, bm25, hybrid, difar2, golden, mdr, bgr, ... (`graphhop pipelines` lists them; auto: kgqa on an index of facts, text on a passages index, else dense, or bm25 on a BM25-only index)."),
    k: int = typer.Option(20, "-k", help="Facts retrieved for the question (hop 1); later hops add 10 per frontier entity."),
    hops: Optional[int] = typer.Option(None, "--hops", help="Longest reasoning chain (facts); default: the pipeline's own (kgqa: 4, the 1-4 hop questions it reads; retrieval pipelines: 3)."),
    qtype: Optional[str] = typer.Option(None, "--qtype", help="Force the question type: query, count, boolean, comparison, relation."),
    reader_model: Optional[Path] = typer.Option(None, "--reader-model", help="Trained cross-encoder dir to score facts (default: MiniLM bi-encoder, untrained)."),
    reranker: Optional[Path] = typer.Option(None, "--reranker", help="Cross-encoder dir for --method difar2."),
    rerank_k: int = typer.Option(50, "--rerank-k", help="First-stage hits reranked by difar2."),
    query_generator: Optional[Path] = typer.Option(None, "--query-generator", help="Span-selector dir for --method golden (default: the question as query)."),
    bgr_model: Optional[Path] = typer.Option(None, "--bgr-model", help="BGR model dir for --method bgr."),
    ssg_model: Optional[Path] = typer.Option(None, "--ssg-model", help="SSG model dir (`graphhop train ssg`) for --method ssg."),
    llm_url: Optional[str] = typer.Option(None, "--llm-url", help="--method llm: OpenAI-compatible base URL (key in $GRAPHHOP_LLM_API_KEY)."),
    llm_model: Optional[str] = typer.Option(None, "--llm-model", help="--method llm: model name sent to the endpoint."),
    llm_template: Optional[str] = typer.Option(None, "--llm-template", help="--method llm: direct, step, forward, backward or edges."),
    llm_shots: Optional[Path] = typer.Option(None, "--llm-shots", help="--method llm: builder dataset folder whose train.jsonl gives few-shot examples."),
    span_model: Optional[Path] = typer.Option(None, "--span-reader", help="Span reader dir (`graphhop train reader`) for plain queries."),
    pipeline_option: list[str] = typer.Option([], "--option", "-o", help="KEY=VALUE option of the pipeline, repeatable (kgqa: abstain=false answers even where the learned confidence would withhold; `graphhop pipelines` lists the pipelines)."),
    full_graph: bool = typer.Option(False, "--full-graph", help="Print the whole evidence graph, not only the answer's support."),
    max_chars: Optional[int] = typer.Option(None, "--max-question-chars", help="Longest question accepted (default 2,000 or $GRAPHHOP_MAX_QUESTION_CHARS)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Answer a question: on facts, the trained KGQA over the whole KB (default); else retrieval -> evidence graph -> operation."""
    from graphhop.cli.common import key_values
    from graphhop.models.locate import check_model
    from graphhop.questions import check_question

    question = check_question(question, max_chars)
    for option, value, needs in (("--reader-model", reader_model, ()), ("--reranker", reranker, ()),
                                 ("--query-generator", query_generator, ()), ("--bgr-model", bgr_model, ("bgr.pt",)),
                                 ("--span-reader", span_model, ())):
        check_model(value, option, needs)
    if method == "difar2" and reranker is None:
        raise InputError("--method difar2 needs --reranker DIR (a model from `graphhop train reranker`)")
    if method == "bgr" and bgr_model is None:
        raise InputError("--method bgr needs --bgr-model DIR (a model from `graphhop train bgr`)")
    from rich.console import Console

    from graphhop.index.directory import KnowledgeIndex
    from graphhop.pipeline.registry import build_pipeline, default_pipeline, pipeline_names
    from graphhop.read.ops import QTYPES

    if qtype is not None and qtype not in QTYPES:
        raise InputError(f"--qtype: unknown type {qtype!r}; choose one of {', '.join(QTYPES)}")
    if method not in (*pipeline_names(), "auto"):
        raise InputError(f"--method: unknown method {method!r}; choose one of {', '.join(pipeline_names())}")
    if not 1 <= k <= 1000 or (hops is not None and not 1 <= hops <= 5):
        raise InputError(f"-k must be in 1..1000 and --hops in 1..5 (got {k}, {hops})")
    t0 = time.perf_counter()
    if index is None:
        from graphhop.demo import demo_index

        kindex = demo_index(progress=not as_json)
    else:
        kindex = KnowledgeIndex.open(index)
    if method == "auto":
        method = default_pipeline(kindex)
    options = {"k": k, "hops": hops, "reader_model": reader_model, "span_model": span_model, "reranker": reranker,
               "rerank_k": rerank_k if reranker else None, "query_generator": query_generator, "bgr_model": bgr_model,
               "ssg_model": ssg_model, "llm_url": llm_url, "llm_model": llm_model, "llm_template": llm_template,
               "llm_shots": llm_shots, **key_values(pipeline_option)}
    pipe = build_pipeline(method, kindex, **options)
    _ = pipe.reader  # load the reader now: setup time is reported apart from answering
    setup = time.perf_counter() - t0
    res = pipe.ask(question, qtype=qtype)
    res.timings = {"setup_s": setup, **res.timings}
    if as_json:
        print(json.dumps(res.to_json(), ensure_ascii=False, default=float))
        return
    _print_answer(Console(), res, full_graph)


def _print_answer(console: Any, res: AskResult, full_graph: bool = False) -> None:
    from rich.markup import escape

    console.print(f"[bold]Q:[/] {escape(res.question)}  [dim]({res.qtype}, {res.method})[/]")
    extra = ""
    if len(res.answers) > 1:
        extra = f"  [dim]all: {escape(', '.join(res.answers[:10]))}{' ...' if len(res.answers) > 10 else ''}[/]"
    score = f"score {res.score:.3f}" if res.score is not None else "no supported answer"
    console.print(f"[bold green]A:[/] {escape(res.answer or '(no answer)')}  [dim]{score}[/]{extra}")
    guess = res.trace.get("best_guess") if not res.supported else None
    if guess:
        why = res.trace.get("reason", "no supported answer")
        hint = "; `-o abstain=false` answers it" if "confidence" in res.trace else ""
        console.print(f"[yellow]withheld:[/] best guess {escape(', '.join(map(str, guess)))}  [dim]({escape(str(why))}{hint})[/]")
    graph = res.graph if full_graph else res.support_graph
    unit = "passages" if res.graph.text_evidence else "facts"
    title = "evidence graph" if full_graph else f"supporting evidence ({len(res.support)} of {len(res.graph)} {unit} in the graph)"
    console.print(f"[bold]{title}:[/]")
    console.print(escape(graph.render_tree(width=120)), highlight=False)
    t = res.timings
    console.print("[dim]timings: " + ", ".join(f"{k[:-2]} {v * 1000:.0f} ms" for k, v in t.items()) + "[/]")
