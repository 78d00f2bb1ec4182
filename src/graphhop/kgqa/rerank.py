"""A second stage over the path scorer: a cross-encoder reads the masked question and a verbalized chain together.

The path scorer (:mod:`graphhop.kgqa.scorer`) scores a chain from frozen vectors of its relation names; it never
reads the question and the chain in one pass, so "who is running X" may go over ``operates`` rather than
``^ceo of``. :class:`ChainReranker` is MiniLM fine-tuned as a cross-encoder (its top layers only, shipped as
float16 deltas over the bundled model: :mod:`graphhop.models.top_layers`) on pairs (masked question, chain
text); it reorders the scorer's ``k`` best paths by ``head score + w x logit``. The reordered paths keep the
scorer's score ladder (the i-th path gets the i-th best head score), so the probabilities, the thresholds and
the confidence downstream see the same distribution in the new order.

A chain is written as the KB builder cleans relation names (:func:`graphhop.kb.verbalize.clean_relation`), with
the direction visible by where the variables stand: ``X parent company A ; A founded by ?`` (forward),
``? ceo of X`` (backward); then up to two of its end entities' names and their answer-type signature (the
other relations the ends have: a country has ``currency`` and ``capital``). ``graphhop train kgqa-reranker``
rebuilds the shipped weights (:mod:`graphhop.kgqa.rerank_train`).
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.paths import RelPath
from graphhop.kgqa.scorer import type_relations

__all__ = ["DEFAULT_RERANK", "RERANK_K", "RERANK_W", "verbalize_chain", "ChainReranker", "rerank_folder"]

#: The shipped reranker's folder name under ``graphhop/weights``.
DEFAULT_RERANK = "kgqa-rerank"
#: Paths reordered (the scorer's best ``k``) and the cross-encoder logit's weight beside the head score.
RERANK_K = 8
RERANK_W = 0.5
_VARS = "ABCDEFG"
#: A learned final order: scores of the best ``k`` paths (head order) from the paths and their logits.
Combine = Callable[[Sequence[RelPath], np.ndarray], np.ndarray]


def verbalize_chain(store: KGStore, path: RelPath, names: int = 2, signature: int = 5) -> str:
    """The chain text the cross-encoder reads (see the module docstring)."""
    parts, prev = [], "X"
    for i, (rel, fwd) in enumerate(path.steps):
        nxt = "?" if i == len(path.steps) - 1 else _VARS[i % len(_VARS)]
        name = clean_relation(store.relations[rel])
        parts.append(f"{prev} {name} {nxt}" if fwd else f"{nxt} {name} {prev}")
        prev = nxt
    text = " ; ".join(parts)
    ends = path.ends[:names].tolist()
    if ends:
        text += " ; ? = " + " , ".join(store.entities[e] for e in ends)
    last = path.steps[-1] if path.steps else None
    words = []
    for signed in type_relations(store, path.ends):
        rel, fwd = signed // 2, signed % 2 == 0
        if last is not None and rel == last[0]:
            continue
        words.append(clean_relation(store.relations[rel]) + ("" if fwd else " of"))
        if len(words) >= signature:
            break
    return text + (" ; has " + " , ".join(words) if words else "")


def rerank_folder(name: str | Path | None = None) -> Path:
    """The folder of a reranker: ``None`` / ``shipped`` the shipped one, else the given path."""
    if name is None or str(name) in ("shipped", "on", "true"):
        return Path(str(resources.files("graphhop.weights") / DEFAULT_RERANK))
    return Path(name)


@functools.lru_cache(maxsize=4)
def _load_model(folder: str) -> tuple[Any, Any, dict[str, Any]]:
    """``(model, tokenizer, config)`` saved in ``folder``, loaded once per process."""
    from graphhop.models.top_layers import load_top_layers

    return load_top_layers(folder)


class ChainReranker:
    """Reorders a reading's best paths with the cross-encoder (see the module docstring)."""

    def __init__(self, model: Any, tokenizer: Any, config: dict[str, Any], k: int | None = None,
                 w: float | None = None) -> None:
        self.model, self.tokenizer, self.config = model, tokenizer, config
        self.k = int(k if k is not None else config.get("k", RERANK_K))
        self.w = float(w if w is not None else config.get("w", RERANK_W))
        self.max_length = int(config.get("max_length", 64))
        self._cache: dict[tuple[str, str], float] = {}

    @classmethod
    def load(cls, name: str | Path | None = None, k: int | None = None, w: float | None = None) -> "ChainReranker":
        """The reranker saved in ``name`` (default: the shipped one) over the bundled MiniLM; the model of one folder
        is loaded once per process and shared (inference only)."""
        model, tokenizer, config = _load_model(str(rerank_folder(name).resolve()))
        return cls(model, tokenizer, config, k, w)

    def logits(self, text: str, chains: Sequence[str]) -> np.ndarray:
        """Cross-encoder logits of ``(text, chain)`` pairs (cached per pair)."""
        from graphhop.models.cross_encoder import score_pairs

        todo = [c for c in dict.fromkeys(chains) if (text, c) not in self._cache]
        if todo:
            if len(self._cache) > 50_000:
                self._cache.clear()
            got = score_pairs(self.model, self.tokenizer, [text] * len(todo), todo, max_length=self.max_length)
            self._cache.update(((text, c), z) for c, z in zip(todo, got))
        return np.asarray([self._cache[(text, c)] for c in chains], dtype=np.float64)

    def _order(self, text: str, store: KGStore, paths: list[RelPath], w: float,
               combine: Combine | None = None) -> list[int]:
        """Indices of ``paths`` by head score + ``w`` x logit (or by ``combine(paths, logits)``), best first
        (ties: the given order)."""
        z = self.logits(text, [verbalize_chain(store, p) for p in paths])
        combined = np.asarray([p.score for p in paths]) + w * z if combine is None else combine(paths, z)
        return sorted(range(len(paths)), key=lambda i: (-combined[i], i))

    def reorder(self, text: str, store: KGStore, paths: list[RelPath], combine: Combine | None = None) -> list[RelPath]:
        """``paths`` (best first) with the first ``k`` reordered by head score + ``w`` x logit, the score ladder kept;
        ``combine(paths, logits)``, when given, scores them instead (a learned combiner, :mod:`graphhop.kgqa.combine`)."""
        top = paths[: self.k]
        if len(top) < 2 or (self.w <= 0 and combine is None):
            return paths
        order = self._order(text, store, top, self.w, combine)
        ladder = [p.score for p in top]
        moved = [RelPath(top[i].steps, top[i].layers, ladder[j], top[i].extra) for j, i in enumerate(order)]
        return moved + paths[self.k :]

    def reorder_beam(self, text: str, store: KGStore, paths: list[RelPath], m: int, w: float | None = None) -> list[RelPath]:
        """A hop's new paths (best first by the head) with the first ``m`` reordered by head score + ``w`` x logit
        (default: the reranker's ``w``), scores unchanged: the beam cut after it keeps the prefixes the cross-encoder
        prefers growing (a prefix is verbalized as the chain so far)."""
        w = self.w if w is None else float(w)
        top = paths[:m]
        if len(top) < 2 or w <= 0:
            return paths
        return [top[i] for i in self._order(text, store, top, w)] + paths[m:]
