"""The text relation matcher: does a sentence's relation phrase say what a question's relation word asks?

A question names a relation in one wording (``Who coaches X``, ``the director of X``) and a passage writes
it in another (``X has been managed by Y``, ``X has been headed by Y``). The matcher maps MiniLM vectors
(the bundled all-MiniLM-L6-v2, frozen) of a question's relation word and of an edge label (the words a
sentence writes between two mentions, :class:`graphhop.read.sentence_graph.Edge`) through one learned
linear map ``W`` (384 x 384, initialised to the identity) and compares them by cosine; a word *matches*
a label at cosine >= ``threshold``.

``W`` and ``threshold`` are trained by :mod:`graphhop.train.text_relation` on the shared train splits'
facts verbalized by the dataset builder's templates (:class:`graphhop.datasets.d2t.TemplateDataToText`),
paired with the questions asking for them; the threshold and the epoch were chosen on a carve of train
whose *relations* are held out. Nothing is shipped (it was measured and not adopted: docs/RESULTS.md,
issue 13); a trained matcher is a folder (``matcher.npz`` + ``card.json``) passed by path. A folder with
``encoder.npz`` instead holds a *fine-tuned encoder* (:mod:`graphhop.train.relation_encoder`: the trained
parameters of a copy of MiniLM), read with the identity map.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError

__all__ = ["RelationMatcher", "project", "statement", "tuned_encoder"]


class RelationMatcher:
    """Cosine of a relation word and a relation phrase after the learned map ``weight`` (module docstring).

    ``encoder`` is a sentence encoder with ``encode(texts, convert_to_numpy=..., normalize_embeddings=...)``
    (the index's query encoder); vectors are cached per text."""

    def __init__(self, weight: np.ndarray, threshold: float, encoder: Any, card: dict[str, Any] | None = None) -> None:
        self.weight = np.asarray(weight, dtype=np.float32)
        self.threshold = float(threshold)
        self.encoder = encoder
        self.card = card or {}
        self._vecs: dict[str, np.ndarray] = {}

    @classmethod
    def load(cls, encoder: Any, path: str | Path) -> "RelationMatcher":
        """A matcher from a folder written by :meth:`save`."""
        folder = Path(path)
        if (folder / "encoder.npz").is_file() and (folder / "card.json").is_file():
            card = _card(folder)
            tuned = tuned_encoder(folder / "encoder.npz")
            size = tuned.get_embedding_dimension()
            return cls(np.eye(size, dtype=np.float32), card["threshold"], tuned, card)
        if not (folder / "matcher.npz").is_file() or not (folder / "card.json").is_file():
            raise InputError(f"{folder}: not a text relation matcher (needs card.json and matcher.npz or encoder.npz; "
                             "`python -m graphhop.train.text_relation` or `graphhop.train.relation_encoder` writes one)")
        card = _card(folder)
        with np.load(folder / "matcher.npz") as arrays:
            weight = arrays["weight"].astype(np.float32)
        return cls(weight, card["threshold"], encoder, card)

    def save(self, folder: str | Path) -> None:
        """Write ``matcher.npz`` (the map, float16) and ``card.json`` (threshold, how it was trained) together:
        one atomic directory (an earlier matcher there is replaced, any other folder is refused)."""
        from graphhop.io import atomic_dir

        with atomic_dir(folder, overwrite=True, replace_if=("card.json", "matcher.npz")) as tmp:
            np.savez_compressed(tmp / "matcher.npz", weight=self.weight.astype(np.float16))
            (tmp / "card.json").write_text(json.dumps({**self.card, "threshold": self.threshold}, indent=2),
                                           encoding="utf-8")

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Mapped unit vectors of ``texts`` (MiniLM vectors cached per text)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vecs]
        if missing:
            raw = self.encoder.encode(missing, convert_to_numpy=True, normalize_embeddings=True)
            self._vecs.update(zip(missing, np.asarray(raw, dtype=np.float32)))
        if not texts:
            return np.zeros((0, self.weight.shape[1]), dtype=np.float32)
        return project(np.stack([self._vecs[t] for t in texts]), self.weight)

    def similarity(self, words: Sequence[str], labels: Sequence[str]) -> np.ndarray:
        """Cosine of each word (rows) with each label (columns) after the map."""
        return self.vectors(words) @ self.vectors(labels).T

    def matches(self, words: Sequence[str], labels: Sequence[str]) -> set[tuple[str, str]]:
        """``(word, label)`` pairs at cosine >= ``threshold`` (empty labels never match)."""
        labels = [lab for lab in dict.fromkeys(labels) if lab]
        words = list(dict.fromkeys(words))
        if not labels or not words:
            return set()
        sims = self.similarity(words, labels)
        return {(words[i], labels[j]) for i, j in zip(*np.nonzero(sims >= self.threshold))}


def _card(folder: Path) -> dict[str, Any]:
    """A matcher folder's ``card.json``; one without a numeric ``threshold`` is a one-line :class:`InputError`."""
    card = json.loads((folder / "card.json").read_text(encoding="utf-8"))
    if not isinstance(card, dict) or not isinstance(card.get("threshold"), (int, float)):
        raise InputError(f"{folder / 'card.json'}: no numeric 'threshold' (not a card of a trained matcher)")
    return card


def tuned_encoder(delta: str | Path) -> Any:
    """A new copy of the bundled MiniLM with the parameters saved in ``delta`` (an ``encoder.npz`` of
    :mod:`graphhop.train.relation_encoder`) put in place; the process's shared encoder is never changed."""
    import torch

    from graphhop.train.relation_encoder import fresh_model

    model = fresh_model()
    params = dict(model.named_parameters())
    with np.load(delta) as arrays:
        unknown = sorted(set(arrays.files) - set(params))
        if unknown:
            raise InputError(f"{delta}: not a delta of the bundled MiniLM (unknown parameter {unknown[0]})")
        with torch.no_grad():
            for name in arrays.files:
                if tuple(arrays[name].shape) != tuple(params[name].shape):
                    raise InputError(f"{delta}: parameter {name} has shape {tuple(arrays[name].shape)}, the bundled "
                                     f"MiniLM's has {tuple(params[name].shape)}")
                params[name].copy_(torch.from_numpy(arrays[name].astype(np.float32)))
    return model.eval()


def statement(label: str) -> str:
    """An edge label read as a statement between two masked mentions: ``x was born in y``."""
    return f"x {label} y"


def project(vectors: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Unit rows of ``vectors @ weight``."""
    out = vectors @ weight
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
