"""Derived indexes kept as caches: opened when valid, rebuilt when stale or damaged, and built once
when several processes ask at the same time (the others wait for the writer's lock, then open it).
Entries whose source file is gone or whose bytes changed since are stale: :func:`prune_cache` removes them
(``graphhop cache prune``), and a new dataset index prunes the ones whose source is gone."""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from graphhop.core import GraphhopError
from graphhop.index.directory import KnowledgeIndex
from graphhop.index.manifest import sha256_file
from graphhop.io import LockedError, temp_prefix, wait_for_writer, write_lock

__all__ = ["open_or_build", "CacheEntry", "cache_entries", "prune_cache", "forget_sources"]


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


@dataclass(frozen=True)
class CacheEntry:
    """One derived index under a cache root, with why it is stale (``None`` while it is current)."""

    path: Path
    sources: tuple[str, ...]
    bytes: int
    stale: str | None


def _entry_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _staleness(path: Path, sources: list[str], built: float, digests: dict[str, str] | None = None) -> str | None:
    """Why the entry at ``path`` no longer matches its sources (a missing, moved or edited file). A file
    touched after the build whose bytes still match the recorded ``digests`` (sha256) is unchanged."""
    if not sources:
        return "no source recorded"
    for source in sources:
        src = Path(source)
        if not src.is_absolute():
            return f"source recorded as a relative path ({source})"
        try:
            mtime = src.stat().st_mtime
        except OSError:
            return f"source is gone ({source})"
        if mtime > built + 1 and not _same_bytes(src, (digests or {}).get(source)):
            return f"source changed after the build ({source})"
    return None


def _same_bytes(path: Path, digest: str | None) -> bool:
    try:
        return digest is not None and sha256_file(path) == digest
    except OSError:
        return False


def _manifest_staleness(path: Path, info: dict) -> str | None:
    """:func:`_staleness` of the entry at ``path`` from its parsed ``manifest.json``."""
    digests = info.get("source_sha256")
    return _staleness(path, [str(s) for s in info.get("sources") or []], (path / "manifest.json").stat().st_mtime,
                      digests if isinstance(digests, dict) else None)


def cache_entries(root: str | Path) -> list[CacheEntry]:
    """The graphhop indexes directly under ``root`` (directories holding a graphhop ``manifest.json``);
    anything else there is not ours and is not listed."""
    root = Path(root)
    entries = []
    for path in sorted(root.iterdir()) if root.is_dir() else []:
        manifest = path / "manifest.json"
        if path.name.startswith(".") or path.is_symlink() or not manifest.is_file():
            continue
        try:
            info = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(info, dict) or "format_version" not in info or "kind" not in info:
            continue
        sources = [str(s) for s in info.get("sources") or []]
        entries.append(CacheEntry(path, tuple(sources), _entry_size(path), _manifest_staleness(path, info)))
    return entries


def prune_cache(root: str | Path, dry_run: bool = False, min_age_s: float = 0.0,
                gone_only: bool = False) -> list[CacheEntry]:
    """Remove the stale indexes under ``root`` (see :func:`cache_entries`) and return them.

    ``gone_only`` removes only entries whose source file no longer exists; ``min_age_s`` spares
    entries built more recently than that. An entry another process is writing (its write lock is
    held) is left alone; removal goes through a rename, so a reader never sees half a directory.
    """
    removed = []
    for entry in cache_entries(root):
        if entry.stale is None or (gone_only and not entry.stale.startswith("source is gone")):
            continue
        if time.time() - (entry.path / "manifest.json").stat().st_mtime < min_age_s:
            continue
        if dry_run or _remove(entry.path, still_stale=True):
            removed.append(entry)
    return removed


def forget_sources(root: str | Path, under: str | Path) -> list[CacheEntry]:
    """Remove the indexes under ``root`` built only from files inside the directory ``under`` (e.g. a
    test session's temp folder, whose indexes nobody will ask for again); returns them."""
    under = Path(under).resolve()
    return [e for e in cache_entries(root)
            if e.sources and all(Path(s).is_relative_to(under) for s in e.sources) and _remove(e.path)]


def _remove(path: Path, still_stale: bool = False) -> bool:
    """Remove one cache entry unless another process holds its write lock (renamed away first);
    ``still_stale``: only if, checked again under the lock, it is still stale (a rebuild may have
    replaced it since it was listed)."""
    try:
        with write_lock(path):
            if still_stale:
                if _manifest_staleness(path, json.loads((path / "manifest.json").read_text(encoding="utf-8"))) is None:
                    return False
            doomed = path.with_name(f"{temp_prefix(path)}pruned")
            os.rename(path, doomed)
            shutil.rmtree(doomed, ignore_errors=True)
    except (LockedError, OSError, ValueError):
        return False
    return True
