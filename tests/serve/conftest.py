"""Fixtures of the serve tests: the real demo service (loaded once) and a fake, instant one."""

from __future__ import annotations

import threading
import time
from typing import Any, Optional

import pytest

from graphhop.serve.service import SEARCH_METHODS, UnknownName

ASK_METHODS = ("dense", "bm25", "hybrid")


@pytest.fixture(scope="session")
def demo_service():
    """The bundled demo KB served with the default pipeline, warm (and dense, which the tests also ask)."""
    from graphhop.serve import IndexSpec, ServeService

    service = ServeService.load([IndexSpec("demo", None)])
    service.warm()  # builds every pipeline and answers with the default (kgqa)
    service.ask(service.examples[0], method="dense")  # the tests also ask dense: load its reader before any timed request
    return service


class FakeService:
    """Duck-typed :class:`~graphhop.serve.service.ServeService` whose ``ask`` is scripted:
    ``mode`` is ``ok`` (instant), ``block`` (waits for ``release``), ``sleep`` or ``crash``."""

    def __init__(self, mode: str = "ok", sleep_s: float = 0.0) -> None:
        self.mode = mode
        self.sleep_s = sleep_s
        self.release = threading.Event()
        self.started = threading.Event()
        self.calls = 0

    def health(self) -> dict[str, Any]:
        return {"status": "ok", "indexes": ["demo"], "version": "test", "default_index": "demo",
                "default_method": "dense", "methods": {"ask": list(ASK_METHODS), "search": list(SEARCH_METHODS)},
                "examples": []}

    def check(self, index: Optional[str], method: Optional[str], kind: str = "ask") -> None:
        if index not in (None, "demo"):
            raise UnknownName("index", index, ["demo"])
        methods = ASK_METHODS if kind == "ask" else SEARCH_METHODS
        if method is not None and method not in methods:
            raise UnknownName("method", method, methods)

    def ask(self, question: str, index: Optional[str] = None, method: Optional[str] = None) -> dict[str, Any]:
        self.calls += 1
        self.started.set()
        if self.mode == "block":
            self.release.wait(10)
        elif self.mode == "sleep":
            time.sleep(self.sleep_s)
        elif self.mode == "crash":
            raise RuntimeError("boom: secret internals")
        return {"question": question, "answer": "x", "score": 1.0}

    def search(self, query: str, index: Optional[str] = None, method: Optional[str] = None, k: int = 10) -> dict[str, Any]:
        return {"query": query, "hits": []}


@pytest.fixture
def fake_service():
    """The :class:`FakeService` class (tests build one per mode)."""
    return FakeService
