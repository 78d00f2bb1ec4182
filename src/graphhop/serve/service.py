"""What the server serves: named indexes, loaded once, and the registry's pipelines over them.

:class:`ServeService` holds the opened indexes and caches one pipeline per ``(index, method)``,
built by :func:`graphhop.pipeline.registry.build_pipeline`, so ``/api/ask`` answers exactly as
``graphhop ask`` does. :meth:`ServeService.warm` builds every pipeline an index's kind offers
(one that needs a model directory nobody gave is listed as unavailable, with the reason) and
answers one question, so models load before the first request. It knows nothing about HTTP:
:mod:`graphhop.serve.app` turns its errors into status codes.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from graphhop.core import GraphhopError, InputError

__all__ = ["IndexSpec", "UnknownName", "ServeService", "parse_index_spec", "parse_pipeline_option", "SEARCH_METHODS"]

#: ``search`` methods (plain retrieval: a pipeline's first stage).
SEARCH_METHODS = ("bm25", "dense", "hybrid")

#: What :meth:`ServeService.warm` asks when no example question is known.
WARM_QUESTION = "In which country was the painter of the Mona Lisa born?"


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
    """A finite float, or ``None`` (JSON has no NaN/inf)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def parse_pipeline_option(text: str) -> tuple[str, str, Any]:
    """``PIPELINE.KEY=VALUE`` -> ``(pipeline, key, value)`` (integers and floats become numbers)."""
    target, sep, raw = text.partition("=")
    pipeline, dot, key = target.partition(".")
    if not sep or not dot or not pipeline or not key or not raw:
        raise GraphhopError(f"--option {text!r}: expected PIPELINE.KEY=VALUE, e.g. difar2.reranker=models/rr")
    value: Any = raw
    for cast in (int, float):
        try:
            value = cast(raw)
            break
        except ValueError:
            continue
    return pipeline, key, value


class ServeService:
    """Named indexes and their cached pipelines; thread-safe (pipelines are built under a lock).

    ``options`` maps a pipeline name to the keyword options it is built with (e.g.
    ``{"difar2": {"reranker": "models/rr"}}``); ``default_method`` is the ``ask`` pipeline used when
    a request names none (default: :func:`graphhop.pipeline.registry.default_pipeline` of the index —
    ``kgqa`` on facts, ``text`` on passages — where it is available, else ``dense``, else its first pipeline).
    """

    def __init__(self, indexes: dict[str, Any], default_method: Optional[str] = None, examples: Optional[list[str]] = None,
                 options: Optional[dict[str, dict[str, Any]]] = None) -> None:
        from graphhop.pipeline.registry import index_kind, pipeline_names

        if not indexes:
            raise GraphhopError("serve needs at least one index")
        self.indexes = dict(indexes)
        self.default_index = next(iter(self.indexes))
        self.methods = {name: pipeline_names(index_kind(ix)) for name, ix in self.indexes.items()}
        self.unavailable: dict[str, dict[str, str]] = {name: {} for name in self.indexes}
        self.options = {k: dict(v) for k, v in (options or {}).items()}
        for name in self.options:
            if name not in pipeline_names():
                raise UnknownName("pipeline", name, pipeline_names())
        if default_method is not None and default_method not in self.methods[self.default_index]:
            raise UnknownName("method", default_method, self.methods[self.default_index])
        self.default_method = default_method
        self.examples = list(examples or [])
        self._lock = threading.Lock()
        self._pipelines: dict[tuple[str, str], Any] = {}

    @classmethod
    def load(cls, specs: list[IndexSpec], default_method: Optional[str] = None,
             options: Optional[dict[str, dict[str, Any]]] = None) -> "ServeService":
        """Open every index once (names must be unique)."""
        names = [s.name for s in specs]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise GraphhopError(f"--index: name {dupes[0]!r} given twice; use NAME=DIR")
        examples: list[str] = []
        if any(s.path is None for s in specs):
            from graphhop.demo import demo_questions

            examples = [q.question for q in demo_questions()]
        return cls({s.name: _open_index(s) for s in specs}, default_method, examples, options)

    # ------------------------------------------------------------------ lookups
    def index(self, name: Optional[str]) -> tuple[str, Any]:
        """``(name, index)``; ``None`` is the first index."""
        name = name or self.default_index
        if name not in self.indexes:
            raise UnknownName("index", name, list(self.indexes))
        return name, self.indexes[name]

    def default_for(self, index: Optional[str] = None, kind: str = "ask") -> str:
        """The method a request on ``index`` gets when it names none."""
        from graphhop.pipeline.registry import default_pipeline

        name, ix = self.index(index)
        choices = self.choices(name, kind)
        preferred = (self.default_method, default_pipeline(ix), "dense") if kind == "ask" else ("hybrid",)
        for method in preferred:
            if method in choices:
                return method
        if not choices:
            raise GraphhopError(f"index {name!r} offers no {kind} method")
        return choices[0]

    def choices(self, index: str, kind: str = "ask") -> list[str]:
        """The methods ``index`` offers for ``kind`` (``ask`` or ``search``), unavailable ones left out."""
        offered = [m for m in self.methods[index] if m not in self.unavailable[index]]
        return offered if kind == "ask" else [m for m in offered if m in SEARCH_METHODS]

    def check(self, index: Optional[str], method: Optional[str], kind: str = "ask") -> tuple[str, str]:
        """``(index name, method)`` of a request; unknown names raise :class:`UnknownName`."""
        name, _ = self.index(index)
        if method is None:
            return name, self.default_for(name, kind)
        reason = self.unavailable[name].get(method)
        if reason is not None:
            raise InputError(f"method {method!r} is not available on index {name!r}: {reason}")
        if method not in self.choices(name, kind):
            raise UnknownName("method", method, self.choices(name, kind))
        return name, method

    def pipeline(self, index: Optional[str], method: Optional[str], kind: str = "ask") -> Any:
        """The cached pipeline of ``(index, method)`` (built on first use)."""
        from graphhop.pipeline.registry import build_pipeline

        name, method = self.check(index, method, kind)
        with self._lock:
            key = (name, method)
            if key not in self._pipelines:
                self._pipelines[key] = build_pipeline(method, self.indexes[name], **self.options.get(method, {}))
            return self._pipelines[key]

    # ------------------------------------------------------------------ work
    def ask(self, question: str, index: Optional[str] = None, method: Optional[str] = None) -> dict[str, Any]:
        """Answer ``question``: the ``graphhop ask --json`` object (:meth:`AskResult.to_json`)."""
        return self.pipeline(index, method).ask(question).to_json()

    def search(self, query: str, index: Optional[str] = None, method: Optional[str] = None, k: int = 10) -> dict[str, Any]:
        """Ranked hits with their fields (head/relation/tail for facts, title/text for passages)."""
        t0 = time.perf_counter()
        name, method = self.check(index, method, "search")
        ranking = self.pipeline(name, method, "search").search([query], k)[0]
        docs = self.indexes[name].docs
        hits = []
        for rank, hit in enumerate(ranking, 1):
            doc = docs[hit.id]
            row: dict[str, Any] = {"rank": rank, "id": hit.id, "score": _json_number(hit.score)}
            if doc.fact is not None:
                row.update(head=doc.fact.head, relation=doc.fact.relation, tail=doc.fact.tail)
            else:
                row.update(title=doc.title)
            row["text"] = doc.text
            hits.append(row)
        return {"query": query, "index": name, "method": method, "k": k, "hits": hits,
                "timings": {"total_s": time.perf_counter() - t0}}

    def warm(self) -> float:
        """Build every pipeline each index offers, recording those whose factory raises a
        :class:`~graphhop.core.GraphhopError` as unavailable (with the message), then answer one
        question with each index's default pipeline. Returns the seconds taken."""
        t0 = time.perf_counter()
        for name in self.indexes:
            for method in list(self.methods[name]):
                try:
                    self.pipeline(name, method)
                except GraphhopError as exc:  # a model dir not given, an index not built for it, ...
                    self.unavailable[name][method] = str(exc)
            self.ask(self.examples[0] if self.examples else WARM_QUESTION, name)
        return time.perf_counter() - t0

    def health(self) -> dict[str, Any]:
        """What ``/api/health`` reports."""
        from graphhop import __version__

        return {"status": "ok", "indexes": list(self.indexes), "version": __version__,
                "default_index": self.default_index, "default_method": self.default_for(),
                "methods": {"ask": self.choices(self.default_index), "search": self.choices(self.default_index, "search")},
                "pipelines": {n: self.choices(n) for n in self.indexes},
                "unavailable": {n: dict(u) for n, u in self.unavailable.items() if u},
                "documents": {n: len(ix.docs) for n, ix in self.indexes.items()}, "examples": self.examples}
