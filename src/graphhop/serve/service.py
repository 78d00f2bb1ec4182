"""What the server serves: named indexes, loaded once, and the pipelines built over them.

:class:`ServeService` holds the opened indexes and caches one pipeline per ``(index, method)``
(models load once, on first use or at start with :meth:`ServeService.warm`), so a warm request
pays only for retrieval and reading. It knows nothing about HTTP: :mod:`graphhop.serve.app`
turns its errors into status codes.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from graphhop.core import GraphhopError

__all__ = ["IndexSpec", "UnknownName", "ServeService", "parse_index_spec", "ASK_METHODS", "SEARCH_METHODS"]

#: ``ask`` methods the server offers (those that need no extra model directory).
ASK_METHODS = ("dense", "bm25", "hybrid", "golden")
#: ``search`` methods (plain retrieval).
SEARCH_METHODS = ("bm25", "dense", "hybrid")


class UnknownName(GraphhopError):
    """An index or method name the server does not have (``kind`` is ``index`` or ``method``)."""

    def __init__(self, kind: str, name: str, choices: list[str] | tuple[str, ...]) -> None:
        super().__init__(f"unknown {kind} {name!r}; choose one of {', '.join(choices)}")
        self.kind = kind
        self.name = name


@dataclass(frozen=True)
class IndexSpec:
    """One ``--index``: a name and a directory (``path=None``: the bundled demo KB)."""

    name: str
    path: Optional[Path] = None


def parse_index_spec(text: str) -> IndexSpec:
    """``DIR`` or ``NAME=DIR`` -> :class:`IndexSpec` (``demo`` alone names the bundled demo)."""
    if text == "demo":
        return IndexSpec("demo", None)
    name, sep, path = text.partition("=")
    if not sep:
        name, path = Path(text).name, text
    if not name or not path:
        raise GraphhopError(f"--index {text!r}: expected DIR or NAME=DIR")
    return IndexSpec(name, Path(path))


def _open_index(spec: IndexSpec) -> Any:
    if spec.path is None:
        from graphhop.demo import demo_index

        return demo_index(progress=False)
    from graphhop.index.directory import KnowledgeIndex

    return KnowledgeIndex.open(spec.path)


def _json_number(value: Any) -> Any:
    """A finite float, or ``None`` (JSON has no NaN/inf: no answer gives ``None``)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


class _AskPipeline:
    """``ask`` over one index with one retrieval method: retriever and reader built once."""

    def __init__(self, index: Any, method: str, reader: Any) -> None:
        from graphhop.pipeline.registry import build_pipeline

        self.pipeline = build_pipeline(method, index, reader=reader)

    def ask(self, question: str) -> dict[str, Any]:
        """The ``graphhop ask --json`` object for ``question``."""
        return self.pipeline.ask(question).to_json()


class ServeService:
    """Named indexes and their cached pipelines; thread-safe (pipelines are built under a lock)."""

    def __init__(self, indexes: dict[str, Any], default_method: str = "dense", examples: list[str] | None = None) -> None:
        if not indexes:
            raise GraphhopError("serve needs at least one index")
        if default_method not in ASK_METHODS:
            raise UnknownName("method", default_method, ASK_METHODS)
        self.indexes = dict(indexes)
        self.default_index = next(iter(self.indexes))
        self.default_method = default_method
        self._lock = threading.Lock()
        self._pipelines: dict[tuple[str, str], Any] = {}
        self._retrievers: dict[tuple[str, str], Any] = {}
        self._reader: Any = None
        self.examples = list(examples or [])

    @classmethod
    def load(cls, specs: list[IndexSpec], default_method: str = "dense") -> "ServeService":
        """Open every index once (names must be unique)."""
        names = [s.name for s in specs]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise GraphhopError(f"--index: name {dupes[0]!r} given twice; use NAME=DIR")
        examples: list[str] = []
        if any(s.path is None for s in specs):
            from graphhop.demo import demo_questions

            examples = [q.question for q in demo_questions()]
        return cls({s.name: _open_index(s) for s in specs}, default_method, examples)

    # ------------------------------------------------------------------ lookups
    def index(self, name: Optional[str]) -> tuple[str, Any]:
        """``(name, index)``; ``None`` is the first index."""
        name = name or self.default_index
        if name not in self.indexes:
            raise UnknownName("index", name, list(self.indexes))
        return name, self.indexes[name]

    def check(self, index: Optional[str], method: Optional[str], kind: str = "ask") -> None:
        """Raise :class:`UnknownName` for an unknown index, or a method ``kind`` (ask/search) lacks."""
        self.index(index)
        methods = ASK_METHODS if kind == "ask" else SEARCH_METHODS
        if method is not None and method not in methods:
            raise UnknownName("method", method, methods)

    def _cached(self, cache: dict, key: tuple[str, str], build: Callable[[], Any]) -> Any:
        with self._lock:
            if key not in cache:
                cache[key] = build()
            return cache[key]

    def pipeline(self, index: Optional[str], method: Optional[str]) -> Any:
        """The cached ``ask`` pipeline of ``(index, method)``."""
        method = method or self.default_method
        if method not in ASK_METHODS:
            raise UnknownName("method", method, ASK_METHODS)
        name, kindex = self.index(index)

        def build() -> Any:
            from graphhop.read.ops import OperationReader

            self._reader = self._reader or OperationReader()
            return _AskPipeline(kindex, method, self._reader)

        return self._cached(self._pipelines, (name, method), build)

    def retriever(self, index: Optional[str], method: Optional[str]) -> tuple[Any, Any]:
        """``(index, retriever)`` for ``search``."""
        method = method or "hybrid"
        if method not in SEARCH_METHODS:
            raise UnknownName("method", method, SEARCH_METHODS)
        name, kindex = self.index(index)
        from graphhop.pipeline.registry import build_pipeline

        return kindex, self._cached(self._retrievers, (name, method), lambda: build_pipeline(method, kindex))

    # ------------------------------------------------------------------ work
    def ask(self, question: str, index: Optional[str] = None, method: Optional[str] = None) -> dict[str, Any]:
        """Answer ``question``: the ``graphhop ask --json`` object."""
        return self.pipeline(index, method).ask(question)

    def search(self, query: str, index: Optional[str] = None, method: Optional[str] = None, k: int = 10) -> dict[str, Any]:
        """Ranked hits with their fields (head/relation/tail for facts, title/text for passages)."""
        t0 = time.perf_counter()
        kindex, retriever = self.retriever(index, method)
        ranking = retriever.search([query], k)[0]
        hits = []
        for rank, hit in enumerate(ranking, 1):
            doc = kindex.docs[hit.id]
            row: dict[str, Any] = {"rank": rank, "id": hit.id, "score": _json_number(hit.score)}
            if doc.fact is not None:
                row.update(head=doc.fact.head, relation=doc.fact.relation, tail=doc.fact.tail)
            else:
                row.update(title=doc.title)
            row["text"] = doc.text
            hits.append(row)
        return {"query": query, "index": index or self.default_index, "method": method or "hybrid", "k": k,
                "hits": hits, "timings": {"total_s": time.perf_counter() - t0}}

    def warm(self, question: str = "In which country was the painter of the Mona Lisa born?") -> float:
        """Load the default pipeline of every index and answer one question (seconds taken)."""
        t0 = time.perf_counter()
        for name in self.indexes:
            self.ask(question, name, self.default_method)
        return time.perf_counter() - t0

    def health(self) -> dict[str, Any]:
        """What ``/api/health`` reports."""
        from graphhop import __version__

        return {"status": "ok", "indexes": list(self.indexes), "version": __version__,
                "default_index": self.default_index, "default_method": self.default_method,
                "methods": {"ask": list(ASK_METHODS), "search": list(SEARCH_METHODS)},
                "documents": {n: len(ix.docs) for n, ix in self.indexes.items()}, "examples": self.examples}
