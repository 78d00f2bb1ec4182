"""One registry of named pipelines: ``ask``, every ``eval*`` command, the demo, the server and the
benchmarks build their methods here, so each composition has one spelling.

>>> from graphhop.pipeline.registry import build_pipeline, pipeline_names
>>> pipe = build_pipeline("dense", index)           # a Stage; models load once, on first use
>>> pipe.ask("Who painted the Mona Lisa?").answer   # -> graphhop.pipeline.ask.AskResult

A module adds a pipeline with :func:`register` at import time; list the module in
:data:`PIPELINE_MODULES` so that :func:`build_pipeline` imports it before looking names up.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from graphhop.core import GraphhopError, InputError

__all__ = ["KINDS", "PIPELINE_MODULES", "PipelineSpec", "register", "build_pipeline", "pipeline_names", "pipeline_spec",
           "index_kind", "DEFAULT_BY_KIND", "default_pipeline"]

#: The kinds of knowledge index a pipeline can run over (an index's manifest ``doc_type``); ``pool``: one
#: question's candidate pool as a tiny in-memory index (:func:`graphhop.eval.bgr.pool_index`), for the
#: closed-pool baselines only.
KINDS = ("facts", "passages", "pool")

#: Modules whose import registers pipelines (the built-in methods first).
PIPELINE_MODULES: list[str] = ["graphhop.pipeline.builtin", "graphhop.pipeline.kgqa", "graphhop.pipeline.llm",
                               "graphhop.pipeline.ssg", "graphhop.pipeline.text", "graphhop.pipeline.pool",
                               "graphhop.pipeline.text_kg"]


@dataclass(frozen=True)
class PipelineSpec:
    """A registered pipeline: its ``factory(index, **options) -> Stage``, the index kinds it runs over, a help line."""

    name: str
    factory: Callable[..., Any]
    kinds: tuple[str, ...]
    help: str


_REGISTRY: dict[str, PipelineSpec] = {}
_loaded = False


def register(name: str, factory: Callable[..., Any], kinds: tuple[str, ...] = ("facts", "passages"), help: str = "") -> None:
    """Add the pipeline ``name``; ``factory(index, **options)`` builds it (a :class:`~graphhop.core.Stage`).

    Registering the same name twice with another factory is an error (one spelling per composition).
    """
    bad = [k for k in kinds if k not in KINDS]
    if bad or not kinds:
        raise GraphhopError(f"pipeline {name!r}: kinds must be among {', '.join(KINDS)}, got {kinds!r}")
    old = _REGISTRY.get(name)
    if old is not None and old.factory is not factory:
        raise GraphhopError(f"pipeline {name!r} is already registered (by {old.factory.__module__})")
    _REGISTRY[name] = PipelineSpec(name, factory, tuple(kinds), help)


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in PIPELINE_MODULES:
            importlib.import_module(module)


def _ordered() -> list[PipelineSpec]:
    """The registered specs in the order of :data:`PIPELINE_MODULES` (then any other module's), each module's in
    registration order: the same whichever pipeline module a program happened to import first."""
    _load()
    rank = {m: i for i, m in enumerate(PIPELINE_MODULES)}
    return sorted(_REGISTRY.values(), key=lambda s: rank.get(s.factory.__module__, len(rank)))


def pipeline_names(kind: str | None = None) -> list[str]:
    """The registered pipeline names (those that run over ``kind`` indexes when given), built-in modules first."""
    return [s.name for s in _ordered() if kind is None or kind in s.kinds]


def pipeline_spec(name: str) -> PipelineSpec:
    """The spec of ``name``; an unknown name is an :class:`~graphhop.core.InputError` listing the known ones."""
    _load()
    if name not in _REGISTRY:
        raise InputError(f"unknown pipeline {name!r}; choose one of {', '.join(pipeline_names())}")
    return _REGISTRY[name]


def index_kind(index: Any) -> str | None:
    """``facts`` or ``passages`` for a :class:`~graphhop.index.directory.KnowledgeIndex` (None when unknown)."""
    manifest = getattr(index, "manifest", None)
    return manifest.get("doc_type") if isinstance(manifest, dict) else None


#: The pipeline a request gets when it names none, by index kind (see :func:`default_pipeline`).
DEFAULT_BY_KIND = {"facts": "kgqa", "passages": "text"}


def default_pipeline(index: Any) -> str:
    """The pipeline ``ask``, ``eval-qa``, ``graphhop demo`` and the server use on ``index`` when none is named.

    ``kgqa`` (trained relation paths over the whole KB) on an index of facts, ``text`` (hop-wise passage
    retrieval + the shipped span reader) on passages; an index of unknown kind gets ``dense`` where it
    has a dense part, else ``bm25``. Neither ``kgqa`` nor ``text`` needs the dense part, so a BM25-only
    index (``graphhop index --dense none``) gets them too.
    """
    name = DEFAULT_BY_KIND.get(index_kind(index) or "")
    if name is None:
        name = "dense" if getattr(index, "has_dense", False) else "bm25"
    pipeline_spec(name)  # registered (an unknown name would be a bug here)
    return name


def build_pipeline(name: str, index: Any, **options: Any) -> Any:
    """Build the pipeline ``name`` over ``index`` with ``options`` (see each factory's keyword arguments)."""
    spec = pipeline_spec(name)
    kind = index_kind(index)
    if kind is not None and kind not in spec.kinds:
        raise InputError(f"pipeline {name!r} runs over {' or '.join(spec.kinds)} indexes; this index holds {kind}")
    return spec.factory(index, **options)
