"""Request limits of ``graphhop serve``: sizes, a per-request timeout and a concurrency gate.

Everything a client can send is bounded before any model runs: the request body (checked while it
streams in, so a lying ``Content-Length`` or a chunked upload cannot get past it), the question
length, ``k``; the work itself runs in a bounded thread pool, and a request that finds every slot
taken gets ``503`` at once instead of queueing without end.
"""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from graphhop.questions import max_question_chars

__all__ = ["Limits", "BodySizeLimit", "WorkGate", "Busy", "TimedOut", "error_body"]

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """The bounds the server enforces (question length: ``GRAPHHOP_MAX_QUESTION_CHARS`` or 2,000)."""

    max_question_chars: int = field(default_factory=max_question_chars)
    max_k: int = 1000
    max_body_bytes: int = 64 * 1024
    timeout_s: float = 30.0
    max_concurrency: int = 4

    def __post_init__(self) -> None:
        for name in ("max_question_chars", "max_k", "max_body_bytes", "max_concurrency"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if not self.timeout_s > 0:
            raise ValueError("timeout_s must be > 0")


def error_body(message: str) -> bytes:
    """The one-line JSON error every failed request gets: ``{"error": "..."}``."""
    return json.dumps({"error": " ".join(str(message).split())}, ensure_ascii=False).encode("utf-8")


class BodySizeLimit:
    """ASGI middleware: refuse a request body over ``max_bytes`` with ``413``.

    A declared ``Content-Length`` is checked first; a body without one (chunked) is read here, up
    to the limit, and replayed to the app, so no upload can get past the bound.
    """

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > self.max_bytes:
                await _send_error(send, 413, f"request body over {self.max_bytes} bytes")
                return
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # client went away
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await _send_error(send, 413, f"request body over {self.max_bytes} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _send_error(send: Callable, status: int, message: str) -> None:
    body = error_body(message)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class Busy(Exception):
    """Every work slot is taken (the server answers 503)."""


class TimedOut(Exception):
    """The work did not finish within the per-request timeout (the server answers 504)."""


class WorkGate:
    """Runs CPU-bound calls off the event loop, at most ``max_concurrency`` at a time.

    A slot is held until the call really ends (a timed-out call keeps its slot while its thread
    finishes), so the bound holds for the CPU, not only for the open connections.
    """

    def __init__(self, max_concurrency: int, timeout_s: float) -> None:
        self.max_concurrency = max_concurrency
        self.timeout_s = timeout_s
        self._pool = ThreadPoolExecutor(max_workers=max_concurrency, thread_name_prefix="graphhop-work")
        self._lock = threading.Lock()
        self._busy = 0

    @property
    def busy(self) -> int:
        """Slots in use now."""
        return self._busy

    def _release(self, _future: Any = None) -> None:
        with self._lock:
            self._busy -= 1

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in the pool; raises :class:`Busy` when full, :class:`TimedOut` when slow."""
        with self._lock:
            if self._busy >= self.max_concurrency:
                raise Busy(f"server busy: {self.max_concurrency} requests already running; retry later")
            self._busy += 1
        try:
            future = self._pool.submit(fn, *args)
        except BaseException:
            self._release()
            raise
        future.add_done_callback(self._release)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout_s)
        except asyncio.TimeoutError:
            raise TimedOut(f"request timed out after {self.timeout_s:g} s") from None

    def close(self) -> None:
        """Stop accepting work (running calls finish)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

