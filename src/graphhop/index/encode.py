"""The dense part of an index build: documents encoded chunk by chunk, each chunk checkpointed.

Encoded vectors of every finished chunk are written (atomically) to a checkpoint directory beside
the target, ``.<name>.checkpoint/``, keyed by a fingerprint of the documents and the encoder. A build
that stops (error, Ctrl-C, kill) leaves the checkpoint; ``resume=True`` reuses every chunk already
encoded, and a finished build removes it. Memory stays bounded by one chunk of texts plus the
FAISS index itself.

Chunks are encoded in-process by default, or by a Ray Data actor pool (``engine="ray"``, see
:mod:`graphhop.index.ray_engine`); both write the same vectors to the same index format.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np

from graphhop.core import InputError

__all__ = ["EncodingOptions", "Checkpoint", "checkpoint_dir", "encode_chunks", "fit_length", "ENGINES"]

ENGINES = ("local", "ray")
Encode = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class EncodingOptions:
    """How the dense part is encoded: backend, engine (``local`` or ``ray``), resume, max length.

    ``ray_address`` is passed to ``ray.init`` (None: a local Ray with ``ray_cpus`` CPUs; a cluster:
    ``"ray://head:10001"`` or ``"auto"``); ``ray_actors`` is the size of the encoding actor pool.
    """

    backend: str = "torch"
    engine: str = "local"
    resume: bool = False
    max_length: int | None = None
    ray_address: str | None = None
    ray_cpus: int = 2
    ray_actors: int = 2

    def check(self) -> None:
        """One-line errors for unknown names."""
        from graphhop.models.backends import BACKENDS

        if self.backend not in BACKENDS:
            raise InputError(f"unknown encoder backend {self.backend!r}; choose one of {', '.join(BACKENDS)}")
        if self.engine not in ENGINES:
            raise InputError(f"unknown engine {self.engine!r}; choose one of {', '.join(ENGINES)}")
        if self.max_length is not None and not 8 <= self.max_length <= 512:
            raise InputError(f"max length must be between 8 and 512, got {self.max_length}")

    def encoder(self, model: str | None, batch_size: int) -> tuple[Encode, int]:
        """``(encode(texts) -> vectors, dim)`` for this engine and backend."""
        if self.engine == "ray":
            from graphhop.index.ray_engine import RayEncoder

            ray_enc = RayEncoder(self.backend, model, batch_size, self.max_length, self.ray_address, self.ray_cpus,
                                 self.ray_actors)
            return ray_enc.encode, ray_enc.dim
        from graphhop.models.backends import load_backend

        enc = load_backend(self.backend, model, self.max_length)
        return (lambda texts: enc.encode(texts, batch_size=batch_size)), int(enc.get_embedding_dimension())


def fit_length(encoding: EncodingOptions, model: str | None, texts: Iterable[str]) -> tuple[EncodingOptions, dict | None]:
    """``encoding`` with a max length fitted to ``texts`` when none was given, and the fit's profile.

    The fit is the 99.9th percentile of the texts' token lengths (an even-stride sample, the source
    model's tokenizer), capped at 256; a max length given explicitly is kept and nothing is fitted.
    """
    from dataclasses import replace

    from graphhop.models.backends import length_profile, load_tokenizer

    if encoding.max_length is not None:
        return encoding, None
    profile = length_profile(load_tokenizer(model), list(texts))
    return replace(encoding, max_length=int(profile["max_length"])), profile


def checkpoint_dir(out: str | Path) -> Path:
    """Where the build of ``out`` keeps its encoded chunks until it finishes."""
    out = Path(out)
    return out.parent / f".{out.name}.checkpoint"


class Checkpoint:
    """Encoded chunks of one build: ``chunk-000000.npy`` ... plus ``state.json`` (the fingerprint)."""

    def __init__(self, root: Path, fingerprint: dict) -> None:
        self.root = root
        self.fingerprint = fingerprint

    @classmethod
    def open(cls, out: str | Path, fingerprint: dict, resume: bool) -> "Checkpoint":
        """Reuse the checkpoint of ``out`` when resuming with the same fingerprint; else start anew."""
        root = checkpoint_dir(out)
        state = root / "state.json"
        if resume and root.is_dir():
            try:
                old = json.loads(state.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                old = None
            if old is not None and old != fingerprint:
                changed = sorted(k for k in set(old) | set(fingerprint) if old.get(k) != fingerprint.get(k))
                raise InputError(f"{root}: the checkpoint belongs to another build (differs in {', '.join(changed)}); "
                                 "drop --resume to start over")
        elif root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / "state.json.tmp"
        tmp.write_text(json.dumps(fingerprint, sort_keys=True), encoding="utf-8")
        os.replace(tmp, state)
        return cls(root, fingerprint)

    def _path(self, i: int) -> Path:
        return self.root / f"chunk-{i:06d}.npy"

    def load(self, i: int, rows: int) -> np.ndarray | None:
        """Chunk ``i``'s vectors when checkpointed with ``rows`` rows, else None."""
        path = self._path(i)
        if not path.is_file():
            return None
        try:
            vecs = np.load(path)
        except (OSError, ValueError):
            return None
        return vecs if vecs.shape[0] == rows else None

    def save(self, i: int, vectors: np.ndarray) -> None:
        """Write chunk ``i`` atomically."""
        tmp = self.root / f"chunk-{i:06d}.tmp.npy"
        np.save(tmp, np.ascontiguousarray(vectors, dtype=np.float32))
        os.replace(tmp, self._path(i))

    def done(self) -> int:
        """How many chunk files are present."""
        return sum(1 for _ in self.root.glob("chunk-*[0-9].npy"))

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def chunked(texts: Iterable[str], size: int) -> Iterator[list[str]]:
    """Lists of at most ``size`` texts, in order."""
    buf: list[str] = []
    for t in texts:
        buf.append(t)
        if len(buf) >= size:
            yield buf
            buf = []
    if buf:
        yield buf


def encode_chunks(texts: Iterable[str], encode: Encode, checkpoint: Checkpoint, chunk: int,
                  on_chunk: Callable[[int, bool], None] | None = None) -> Iterator[np.ndarray]:
    """Vectors of ``texts`` chunk by chunk: from the checkpoint when there, else encoded and saved.

    ``on_chunk(rows, reused)`` is called after each chunk (for progress bars).
    """
    for i, batch in enumerate(chunked(texts, chunk)):
        vecs = checkpoint.load(i, len(batch))
        reused = vecs is not None
        if vecs is None:
            vecs = np.asarray(encode(batch), dtype=np.float32)
            checkpoint.save(i, vecs)
        if on_chunk is not None:
            on_chunk(len(batch), reused)
        yield vecs
