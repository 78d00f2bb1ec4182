"""A built training corpus of the path scorer, kept in a pickle file (``graphhop train kgqa --cache FILE``).

Building the corpus (linking, candidate paths with hard negatives, encoding) is most of a training
run's time; the cache keeps it with the options it was built with and refuses a mismatch, so a second
run (another lr, more epochs, the per-hop thresholds read again) starts at the training itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["cached_corpus", "read_corpus_cache"]


def cached_corpus(cache: str | Path | None, options: dict[str, Any], root: str | Path | None = None,
                  progress: bool = True) -> Any:
    """:func:`build_corpus` with ``options``, read from / written to the pickle ``cache`` (atomically;
    a cache built with other options is an error, never silently reused). No cache: built each time."""
    import pickle

    from graphhop.core import InputError
    from graphhop.io import atomic_file
    from graphhop.kgqa.scorer import PathScorer, make_head

    path = None if cache is None else Path(cache)
    if path is not None and path.is_file():
        built_with, corpus = read_corpus_cache(path)
        if built_with != options:
            raise InputError(f"{path}: a corpus cache built with other options ({built_with})")
        if progress:
            print(f"corpus: read from {path} ({len(corpus.examples)} questions)", flush=True)
        return corpus
    from graphhop.kgqa.train import build_corpus

    corpus = build_corpus(PathScorer(make_head(), {}), root=root, progress=progress, **options)
    if path is not None:
        with atomic_file(path, "wb") as fh:
            pickle.dump({"options": options, "corpus": corpus}, fh, protocol=pickle.HIGHEST_PROTOCOL)
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
