"""Derived indexes kept as caches: opened when valid, rebuilt when stale or damaged, and built once
when several processes ask at the same time (the others wait for the writer's lock, then open it)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from graphhop.core import GraphhopError
from graphhop.index.directory import KnowledgeIndex
from graphhop.io import LockedError, wait_for_writer

__all__ = ["open_or_build"]


def open_or_build(path: str | Path, build: Callable[[], KnowledgeIndex],
                  accept: Callable[[KnowledgeIndex], bool] = lambda index: True) -> KnowledgeIndex:
    """The index at ``path`` if it opens, verifies and is ``accept``-ed; else ``build()`` (which writes
    ``path`` with ``overwrite=True``). A cache another process is writing is waited for, then opened."""
    path = Path(path)
    for _ in range(3):
        if (path / "manifest.json").exists():
            try:
                index = KnowledgeIndex.open(path)
                if accept(index):
                    return index
            except GraphhopError:  # stale (an older format) or damaged: rebuilt, never trusted
                pass
        try:
            return build()
        except LockedError:
            wait_for_writer(path)
    return KnowledgeIndex.open(path)
