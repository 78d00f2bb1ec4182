"""The walk's trained relation reader: a cross-encoder reading the question and an edge's sentence together.

The walk (:mod:`graphhop.read.walk`) lets a hop meet the question's relation words lexically (stems, a few
encoder-similar words); strangers write a relation in other words (``came into the world in`` for *born*, ``headed
the board of`` for *chaired*). The edge reader is MiniLM fine-tuned as a cross-encoder (top layers and head only:
:mod:`graphhop.train.edge_reader`) on ``(question, "<source> : <sentence>")`` pairs: does this sentence state, about
``source``, a relation the question asks? Its probability is read for every ``(source, sentence)`` a walk reaches
(one call per pair and question, cached), so every edge of one sentence from one source shares it.

No weights ship with graphhop (the reader lost on strangers' passages, docs/RESULTS.md "Session 14 (txr14)"): train
one with ``graphhop train edge-reader --out DIR`` and pass ``edge_reader=DIR`` (:func:`graphhop.models.top_layers.load_top_layers`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

__all__ = ["EdgeReader", "edge_text"]


def edge_text(source: str, sentence: str) -> str:
    """The text side of a pair: the hop's source entity, then the sentence."""
    return f"{source} : {sentence}"


class EdgeReader:
    """Probabilities that a sentence states, about a source entity, a relation a question asks (cached per question)."""

    def __init__(self, model: Any, tokenizer: Any, max_length: int = 64, batch_size: int = 64) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.batch_size = batch_size
        self._question = ""
        self._cache: dict[tuple[str, str], float] = {}

    @classmethod
    def load(cls, path: str | Path) -> "EdgeReader":
        """The edge reader saved under ``path`` by ``graphhop train edge-reader`` (none ships with graphhop)."""
        from graphhop.core import InputError
        from graphhop.models.top_layers import load_top_layers

        if not Path(path).is_dir():
            raise InputError(f"edge_reader={path}: not a folder; no edge reader ships with graphhop (it lost on strangers' "
                             "passages): train one with `graphhop train edge-reader --out DIR` and pass edge_reader=DIR")
        model, tokenizer, config = load_top_layers(path)
        return cls(model, tokenizer, max_length=int(config.get("max_length", 64)))

    def probabilities(self, question: str, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """sigmoid(logit) of each ``(source, sentence)`` for ``question``; the cache is cleared when the question changes."""
        from graphhop.models.cross_encoder import score_pairs

        if question != self._question:
            self._question, self._cache = question, {}
        missing = sorted(set(pairs) - self._cache.keys())
        if missing:
            logits = score_pairs(self.model, self.tokenizer, [question] * len(missing),
                                 [edge_text(s, t) for s, t in missing], self.batch_size, self.max_length)
            self._cache.update(zip(missing, (1.0 / (1.0 + np.exp(-np.asarray(logits)))).tolist()))
        return np.array([self._cache[p] for p in pairs], dtype=np.float32)
