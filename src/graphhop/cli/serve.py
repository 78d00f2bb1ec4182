"""``graphhop serve``: the HTTP API and evidence-graph page."""

from __future__ import annotations

from typing import Optional

import typer

from graphhop.core import InputError

__all__ = ["serve", "register"]


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""
    app.command("serve")(serve)


def serve(
    index: Optional[list[str]] = typer.Option(None, "--index", "-i", help="Index to serve: DIR or NAME=DIR (repeatable; the first is the default). Default: the bundled demo KB."),
    host: str = typer.Option("127.0.0.1", "--host", help="Interface to listen on (127.0.0.1: this machine only)."),
    port: int = typer.Option(8000, "--port", help="TCP port."),
    method: Optional[str] = typer.Option(None, "--method", "-m", help="Default ask pipeline (`graphhop pipelines` lists them; default: kgqa on facts, text on passages)."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="A pipeline's build option, PIPELINE.KEY=VALUE (repeatable), e.g. difar2.reranker=DIR or bgr.bgr_model=DIR."),
    max_concurrency: int = typer.Option(2, "--max-concurrency", help="Requests worked on at once; more get 503."),
    timeout: float = typer.Option(30.0, "--timeout", help="Per-request time limit in seconds (then 504)."),
    threads: int = typer.Option(1, "--threads", help="torch CPU threads per worker."),
    max_question_chars: Optional[int] = typer.Option(None, "--max-question-chars", help="Longest question/query accepted (default: GRAPHHOP_MAX_QUESTION_CHARS or 2,000)."),
    warm: bool = typer.Option(True, "--warm/--no-warm", help="Load the default pipeline and answer one question before listening."),
) -> None:
    """Serve the JSON API (/api/health, /api/search, /api/ask) and the web page (/) with uvicorn."""
    import uvicorn

    from graphhop.models.encoder import set_threads
    from graphhop.serve import Limits, ServeService, create_app, parse_index_spec
    from graphhop.serve.service import parse_pipeline_option

    if not 1 <= port <= 65535:
        raise InputError(f"--port: must be in 1..65535, got {port}")
    if max_concurrency < 1 or threads < 1 or not timeout > 0 or (max_question_chars is not None and max_question_chars < 1):
        raise InputError("--max-concurrency, --threads and --max-question-chars must be >= 1, --timeout > 0")
    options: dict[str, dict] = {}
    for text in option or []:
        pipeline, key, value = parse_pipeline_option(text)
        options.setdefault(pipeline, {})[key] = value
    set_threads(threads)
    service = ServeService.load([parse_index_spec(s) for s in (index or ["demo"])], method, options)
    if warm:
        seconds = service.warm()
        typer.echo(f"graphhop serve: pipelines loaded and warm in {seconds:.1f}s", err=True)
        for name, missing in service.unavailable.items():
            if missing:  # the reasons are in /api/health; --option PIPELINE.KEY=VALUE supplies a model dir
                typer.echo(f"graphhop serve: {name}: not offered (see /api/health for why): {', '.join(missing)}", err=True)
    bounds = {"max_question_chars": max_question_chars} if max_question_chars is not None else {}
    app = create_app(service, Limits(timeout_s=timeout, max_concurrency=max_concurrency, **bounds))
    typer.echo(f"graphhop serve: http://{host}:{port}/ (indexes: {', '.join(service.indexes)})", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
