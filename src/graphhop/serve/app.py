"""The FastAPI application of ``graphhop serve``: JSON API, the web page and its vendored assets.

``create_app(service, limits)`` takes indexes and pipelines that are already loaded
(:class:`~graphhop.serve.service.ServeService`), so requests never load models. Endpoints are
``async`` but every CPU-bound call runs in :class:`~graphhop.serve.limits.WorkGate`'s thread pool:
the event loop stays free for health checks and for answering ``503`` when the pool is full.
Every failure is a one-line JSON ``{"error": ...}`` with a 4xx/5xx status, never a traceback.
"""

from __future__ import annotations

import json
import logging
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any, Optional

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from graphhop.core import GraphhopError
from graphhop.questions import check_question
from graphhop.serve.limits import BodySizeLimit, Busy, Limits, TimedOut, WorkGate, error_body
from graphhop.serve.service import ServeService, UnknownName

__all__ = ["create_app", "STATIC_DIR", "AskRequest", "SearchRequest"]

log = logging.getLogger("graphhop.serve")

#: The page and its vendored graph library (package data).
STATIC_DIR = Path(str(resources.files("graphhop.serve") / "static"))

#: The page loads only its own files: no CDN, no inline script.
_PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
                               "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


class AskRequest(BaseModel):
    """``POST /api/ask``."""

    model_config = ConfigDict(extra="forbid")
    question: str = Field(description="The question (1 to 2,000 characters).")
    index: Optional[str] = Field(None, description="Index name (default: the first --index).")
    method: Optional[str] = Field(None, description="Retrieval method of the pipeline (default: the server's).")


class SearchRequest(BaseModel):
    """``POST /api/search``."""

    model_config = ConfigDict(extra="forbid")
    query: str = Field(description="The query (1 to 2,000 characters).")
    index: Optional[str] = Field(None, description="Index name (default: the first --index).")
    method: Optional[str] = Field(None, description="bm25, dense or hybrid (default hybrid).")
    k: int = Field(10, description="Hits to return (1 to 1000).")


class _BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _json(payload: Any, status: int = 200) -> Response:
    def default(obj: Any) -> Any:
        return obj.item() if hasattr(obj, "item") else str(obj)

    return Response(json.dumps(payload, ensure_ascii=False, default=default), status, media_type="application/json")


def _error(status: int, message: str) -> Response:
    return Response(error_body(message), status, media_type="application/json")


def _check_text(field: str, text: str, limits: Limits) -> str:
    """The stripped question/query, or a one-line 422 (:func:`graphhop.questions.check_question`)."""
    return check_question(text, limits.max_question_chars, what=field)


def _validation_message(exc: RequestValidationError) -> str:
    """The first validation error as one line, e.g. ``body.k: Input should be a valid integer``."""
    errors = exc.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return f"invalid JSON body: {first.get('ctx', {}).get('error', first.get('msg', ''))}"
    loc = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "body"
    if loc == "body" and first.get("type") in ("model_attributes_type", "dict_type"):
        return "body: expected a JSON object (Content-Type: application/json)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{loc}: {first.get('msg', 'invalid')}{more}"


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def on_validation(_: Request, exc: RequestValidationError) -> Response:
        return _error(422, _validation_message(exc))

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> Response:
        detail = exc.detail if exc.status_code != 404 else f"not found: {request.url.path}"
        return _error(exc.status_code, str(detail))

    @app.exception_handler(_BadRequest)
    async def on_bad(_: Request, exc: _BadRequest) -> Response:
        return _error(exc.status, str(exc))

    @app.exception_handler(UnknownName)
    async def on_unknown(_: Request, exc: UnknownName) -> Response:
        return _error(404 if exc.kind == "index" else 422, str(exc))

    @app.exception_handler(GraphhopError)
    async def on_graphhop(_: Request, exc: GraphhopError) -> Response:
        return _error(422, str(exc))

    @app.exception_handler(Busy)
    async def on_busy(_: Request, exc: Busy) -> Response:
        return Response(error_body(str(exc)), 503, media_type="application/json", headers={"Retry-After": "1"})

    @app.exception_handler(TimedOut)
    async def on_timeout(_: Request, exc: TimedOut) -> Response:
        return _error(504, str(exc))

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> Response:
        log.exception("unexpected error on %s", request.url.path)
        return _error(500, f"internal error ({type(exc).__name__}); see the server log")


def create_app(service: ServeService, limits: Limits = Limits()) -> FastAPI:
    """The HTTP app over already-loaded ``service`` (indexes + pipelines), bounded by ``limits``."""
    gate = WorkGate(limits.max_concurrency, limits.timeout_s)

    @asynccontextmanager
    async def lifespan(_: FastAPI):
        yield
        gate.close()

    app = FastAPI(title="graphhop", version=service.health()["version"], lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url="/openapi.json",
                  description="Explainable multi-hop QA: answers with their evidence graph.")
    app.state.service, app.state.limits, app.state.gate = service, limits, gate
    _install_error_handlers(app)
    app.add_middleware(BodySizeLimit, max_bytes=limits.max_body_bytes)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    async def page() -> Response:
        return FileResponse(STATIC_DIR / "index.html", media_type="text/html", headers=_PAGE_HEADERS)

    @app.get("/api/health")
    async def health() -> Response:
        """Server status, index names, version, methods, and how many work slots are busy."""
        return _json({**service.health(), "busy": gate.busy, "max_concurrency": limits.max_concurrency})

    @app.post("/api/search")
    async def search(req: SearchRequest) -> Response:
        """Ranked hits with their fields (head/relation/tail or title/text, score, rank)."""
        query = _check_text("query", req.query, limits)
        if not 1 <= req.k <= limits.max_k:
            raise _BadRequest(422, f"k: must be between 1 and {limits.max_k}, got {req.k}")
        service.check(req.index, req.method, "search")  # unknown names answer before any work is queued
        return _json(await gate.run(service.search, query, req.index, req.method, req.k))

    @app.post("/api/ask")
    async def ask(req: AskRequest) -> Response:
        """The same object as ``graphhop ask --json``: answer, score, support, graphs, trace, timings."""
        question = _check_text("question", req.question, limits)
        service.check(req.index, req.method, "ask")
        return _json(await gate.run(service.ask, question, req.index, req.method))

    return app
