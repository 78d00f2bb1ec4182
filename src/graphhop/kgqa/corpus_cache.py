"""A built training corpus of the path scorer, kept in a pickle file (``graphhop train kgqa --cache FILE``).

Building the corpus (linking, candidate paths with hard negatives, encoding) is most of a training
run's time; the cache keeps it with the options it was built with and refuses a mismatch, so a second
run (another lr, more epochs, the per-hop thresholds read again) starts at the training itself. The
options kept include the resolved data root and :data:`CORPUS_FORMAT`. The cache is a pickle: loading one
runs code it holds, so only load cache files you made yourself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["CORPUS_FORMAT", "cached_corpus", "check_cache_path", "read_corpus_cache"]

#: The layout of the cached corpus: raised whenever ``build_corpus``'s output changes, so an older cache is refused.
CORPUS_FORMAT = 1


def check_cache_path(path: Path) -> None:
    """One line naming what is wrong with ``path`` as a cache file to read or write (a directory, a missing
    or unwritable folder), before any corpus is built."""
    import os

    from graphhop.core import InputError

    if path.is_dir():
        raise InputError(f"--cache {path}: is a directory, not a corpus cache file")
    if path.is_file():
        return
    parent = path.parent
    if not parent.is_dir():
        raise InputError(f"--cache {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise InputError(f"--cache {path}: folder {parent} is not writable")


def cached_corpus(cache: str | Path | None, options: dict[str, Any], root: str | Path | None = None,
                  progress: bool = True) -> Any:
    """:func:`build_corpus` with ``options``, read from / written to the pickle ``cache`` (atomically;
    a cache built with other options, another data root or another :data:`CORPUS_FORMAT` is an error, never
    silently reused; a bad ``cache`` path is refused before the build). No cache: built each time."""
    import pickle

    from graphhop.core import InputError
    from graphhop.datasets.kgqa import data_root
    from graphhop.io import atomic_file
    from graphhop.kgqa.scorer import PathScorer, make_head
    from graphhop.kgqa.train import build_corpus

    path = None if cache is None else Path(cache)
    if path is not None:
        check_cache_path(path)
        root = data_root(root).resolve()
        key = {**options, "data_root": str(root), "corpus_format": CORPUS_FORMAT}
        if path.is_file():
            built_with, corpus = read_corpus_cache(path)
            if built_with != key:
                differ = sorted(k for k in set(key) | set(built_with) if key.get(k) != built_with.get(k))
                raise InputError(f"{path}: a corpus cache built with other options "
                                 f"({', '.join(f'{k}: {built_with.get(k)!r}' for k in differ)})")
            if progress:
                print(f"corpus: read from {path} ({len(corpus.examples)} questions)", flush=True)
            return corpus
    corpus = build_corpus(PathScorer(make_head(), {}), root=root, progress=progress, **options)
    if path is not None:
        with atomic_file(path, "wb") as fh:
            pickle.dump({"options": key, "corpus": corpus}, fh, protocol=pickle.HIGHEST_PROTOCOL)
    return corpus


def read_corpus_cache(path: str | Path) -> tuple[dict[str, Any], Any]:
    """``(options, corpus)`` stored in a cache file :func:`cached_corpus` wrote (one line naming a bad file)."""
    import pickle

    from graphhop.core import InputError

    path = Path(path)
    try:
        stored = pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        raise InputError(f"{path}: not a KGQA corpus cache ({exc})") from None
    if not isinstance(stored, dict) or not {"options", "corpus"} <= set(stored):
        raise InputError(f"{path}: not a KGQA corpus cache (no options/corpus)")
    return stored["options"], stored["corpus"]
