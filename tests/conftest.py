"""Shared fixtures. Real-data tests use ``data_dir``: skip without $GRAPHHOP_DATA, fail in CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _data_root() -> Path | None:
    value = os.environ.get("GRAPHHOP_DATA")
    if not value:
        return None
    path = Path(value)
    return path if (path / "README.md").exists() else None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The real benchmark data root ($GRAPHHOP_DATA). In CI a missing data root is a failure."""
    root = _data_root()
    if root is None:
        reason = (
            "real data not found: set GRAPHHOP_DATA to the benchmark data folder "
            f"(now {os.environ.get('GRAPHHOP_DATA')!r})"
        )
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(reason + " — CI must have it")
        pytest.skip(reason)
    return root


@pytest.fixture(scope="session")
def encoder():
    """The bundled MiniLM encoder (loaded once)."""
    from graphhop.models.encoder import load_encoder

    return load_encoder(None)
