"""Offline by default, and model options checked before anything loads.

:func:`set_offline` sets ``HF_HUB_OFFLINE`` / ``TRANSFORMERS_OFFLINE`` (the CLI calls it unless
``--online``): nothing is downloaded and a missing model fails at once instead of after a minute
of network retries. :func:`check_model` answers, in milliseconds, whether a model option can be
loaded here: the bundled default, a local directory, or (offline) a name in the Hugging Face cache.
"""

from __future__ import annotations

import os
from pathlib import Path

from graphhop.core import InputError

__all__ = ["OFFLINE_VARS", "set_offline", "is_offline", "check_model"]

OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_DEFAULT_ALIASES = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "minilm", "default"}


def set_offline(online: bool = False) -> None:
    """Offline unless ``online`` (then the variables are cleared so Hugging Face may download)."""
    for var in OFFLINE_VARS:
        if online:
            os.environ.pop(var, None)
        else:
            os.environ[var] = "1"


def is_offline() -> bool:
    """Whether Hugging Face is told not to use the network."""
    return any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on") for v in OFFLINE_VARS)


def _hf_cache() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"), "huggingface")
    return Path(home) / "hub"


def check_model(name: str | os.PathLike | None, option: str = "--model", needs: tuple[str, ...] = ()) -> None:
    """Raise a one-line :class:`InputError` when ``name`` cannot be loaded here (no model is loaded).

    ``needs`` lists files a local directory must hold (e.g. ``("bgr.pt",)`` for a BGR model).
    """
    if name is None or str(name).lower() in _DEFAULT_ALIASES:
        return
    text = str(name).strip()
    if not text:
        raise InputError(f"{option}: empty model name")
    path = Path(text).expanduser()
    if path.exists():
        if not path.is_dir():
            raise InputError(f"{option} {text}: is a file; a model is a directory or a Hugging Face name")
        missing = [f for f in needs if not (path / f).exists()]
        if missing:
            raise InputError(f"{option} {text}: not a model directory of the right kind (no {missing[0]})")
        return
    local_looking = text.startswith((".", "/", "~")) or text.count("/") > 1 or os.sep + os.sep in text or needs
    if local_looking:
        raise InputError(f"{option} {text}: no such model directory")
    if is_offline() and not (_hf_cache() / f"models--{text.replace('/', '--')}").is_dir():
        raise InputError(f"{option} {text}: no such directory and not in the Hugging Face cache "
                         "(graphhop runs offline; pass --online to download it)")
