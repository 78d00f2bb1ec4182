"""A small trained type head: does an entity fit a type noun, read from its name and the relations around it?

The zero-shot fit of :class:`~graphhop.kgqa.end_type.EndTyper` is a MiniLM cosine between the noun and
phrases of the entity's relations; MiniLM alone rates a banker currency-like and a city station-like.
This head is trained (``graphhop train type-head``, :mod:`graphhop.train.type_head`) over *frozen* MiniLM
vectors on the training KBs' relation roles (:data:`~graphhop.kgqa.answer_types.TAIL_NOUNS` /
``HEAD_NOUNS``: the tail of ``nationality`` is a country) and the hand-written schemas of
:mod:`graphhop.kgqa.schemas` (every entity's type is known there), with the nouns of other roles as
negatives; its epoch was chosen on *held-out* KBs (other relations, other nouns), never on a test set.

The model, per (noun ``n``, entity with name ``m`` and signed relations ``r_i``; all unit MiniLM vectors):

* ``v = relu(W_n n)``, ``u_i = relu(W_r r_i + d_i w_d)`` (``d_i`` = 1 for a forward relation, the entity is
  its head), ``s_i = w_o . (u_i * v) + k_{d_i} cos(n, r_i)``: how much one relation says the entity is an
  ``n`` (the cosine term, one weight per direction, carries over to nouns no training KB has);
* ``logit = a_max max_i s_i + a_mean mean_i s_i + w_m . (relu(W_m m) * v) + k_name cos(n, m) + c``;
  :meth:`TypeHead.prob` is its sigmoid. With ``act: linear`` in the config the codes have no relu (a low-rank
  bilinear form beside the cosines).

Inference is numpy (no torch at run time); weights ``head.npz`` + ``config.json`` in
``src/graphhop/weights/types`` (< 1 MB).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.kb.store import KGStore
from graphhop.kb.verbalize import clean_relation

__all__ = ["TYPE_HEAD_MODES", "DEFAULT_TYPE_WEIGHTS", "TypeHead", "KBTypeFit", "TextTypeFit", "entity_relations", "relation_text", "MAX_RELATIONS"]

#: How a reader uses the trained type head: not at all (off), its probability beside the zero-shot fit (add),
#: or its probability alone (only). Read by ``EndTyper(type_head=...)`` and ``WalkReader(type_head=...)``.
TYPE_HEAD_MODES = ("off", "add", "only")

DEFAULT_TYPE_WEIGHTS = Path(__file__).resolve().parent.parent / "weights" / "types"
#: The signed relations one entity is read by (the first ones by relation id, forward first).
MAX_RELATIONS = 16
_PARAMS = ("w_n", "b_n", "w_r", "b_r", "w_d", "w_o", "w_m", "b_m", "w_name", "w_cos", "a", "c")


def relation_text(name: str) -> str:
    """How a relation name is encoded (``__film__film__genre`` -> ``genre``; ``plays_in_club`` -> ``plays in club``)."""
    return clean_relation(name).replace("_", " ").strip().lower() or name


def entity_relations(store: KGStore, entity: int, limit: int = MAX_RELATIONS) -> list[tuple[int, bool]]:
    """The signed relations around one entity (forward first), at most ``limit``."""
    return store.signed_relations(np.asarray([entity], dtype=np.int64))[:limit]


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


class TypeHead:
    """The numpy forward pass of the trained head (module docstring); ``params`` as saved by training."""

    def __init__(self, params: dict[str, np.ndarray], config: dict[str, Any]) -> None:
        missing = [k for k in _PARAMS if k not in params]
        if missing:
            raise InputError(f"type head: missing weights {', '.join(missing)}")
        self.p = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
        self.config = config

    @classmethod
    def load(cls, path: str | Path | None = None) -> "TypeHead":
        """The shipped head (default) or a folder written by ``graphhop train type-head``."""
        folder = Path(path) if path is not None else DEFAULT_TYPE_WEIGHTS
        if not (folder / "config.json").is_file() or not (folder / "head.npz").is_file():
            raise InputError(f"{folder}: not a type head (needs config.json and head.npz; "
                             "`graphhop train type-head` writes one)")
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        with np.load(folder / "head.npz") as arrays:
            params = {k: arrays[k] for k in arrays.files}
        return cls(params, config)

    def logit(self, noun: np.ndarray, rels: np.ndarray, forward: np.ndarray, name: np.ndarray) -> float:
        """The logit for one unit noun vector, one entity's unit relation vectors ``(k, d)`` with their
        directions ``(k,)`` (1 = the entity is the head) and its unit name vector."""
        p = self.p
        act = _relu if self.config.get("act", "relu") == "relu" else (lambda x: x)
        v = act(p["w_n"] @ noun + p["b_n"])
        rel = 0.0
        if len(rels):
            fwd = forward.astype(np.float32)
            u = act(rels @ p["w_r"].T + np.outer(fwd, p["w_d"]) + p["b_r"])
            cos = rels @ noun
            s = (u * v) @ p["w_o"] + cos * (p["w_cos"][0] * fwd + p["w_cos"][1] * (1.0 - fwd))
            rel = float(p["a"][0] * s.max() + p["a"][1] * s.mean())
        m = act(p["w_m"] @ name + p["b_m"])
        return rel + float((m * v) @ p["w_name"]) + float(p["w_cos"][2] * (name @ noun)) + float(p["c"][0])

    def prob(self, noun: np.ndarray, rels: np.ndarray, forward: np.ndarray, name: np.ndarray) -> float:
        """Sigmoid of :meth:`logit`: the head's probability that the entity is of the noun's type."""
        return float(1.0 / (1.0 + np.exp(-self.logit(noun, rels, forward, name))))


class KBTypeFit:
    """The head applied to one KB's entities, every code cached: :meth:`fit` is the probability that
    an entity is an ``noun`` (``encode``: unit MiniLM vectors of strings, e.g.
    :meth:`~graphhop.kgqa.scorer.PathScorer.word_vectors`, which caches them)."""

    def __init__(self, head: TypeHead, store: KGStore, encode: Callable[[Sequence[str]], np.ndarray]) -> None:
        self.head = head
        self.store = store
        self.encode = encode
        names = [relation_text(r) for r in store.relations]
        self._rel = encode(names) if names else np.zeros((0, 384), dtype=np.float32)
        self._fit: dict[tuple[str, int], float] = {}

    def fit(self, noun: str, entity: int) -> float:
        """The head's probability that ``entity`` is a ``noun`` (cached)."""
        key = (noun, entity)
        got = self._fit.get(key)
        if got is None:
            signed = entity_relations(self.store, entity)
            rows = [r for r, _ in signed]
            fwd = np.asarray([f for _, f in signed], dtype=np.float32)
            name, vec = self.encode([self.store.entities[entity].replace("_", " "), noun])
            got = self._fit[key] = self.head.prob(vec, self._rel[rows], fwd, name)
        return got


class TextTypeFit:
    """The head over a passage reader's candidates (:class:`graphhop.read.walk.WalkReader`): an entity of the
    text is read by its name, the relation words of the edge that reached it (it is their object) and how the
    text describes it (``is a northern country``: read as a relation it has); ``encoder`` is a
    sentence-transformers model (unit vectors, cached here)."""

    def __init__(self, encoder: Any, head: TypeHead | None = None) -> None:
        self.head = head if head is not None else TypeHead.load()
        self.encoder = encoder
        self._vecs: dict[str, np.ndarray] = {}

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of ``texts`` (cached)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vecs]
        if missing:
            got = self.encoder.encode(missing, convert_to_numpy=True, normalize_embeddings=True)
            self._vecs.update(zip(missing, np.asarray(got, dtype=np.float32)))
        return np.stack([self._vecs[t] for t in texts])

    def fit(self, noun: str, name: str, relations: Sequence[tuple[str, bool]]) -> float:
        """The head's probability that ``name`` is a ``noun``; ``relations``: (words, the entity is their subject)."""
        rels = [(t.strip(), f) for t, f in relations if t.strip()][:MAX_RELATIONS]
        vecs = self.vectors([noun, name, *[t for t, _ in rels]])
        fwd = np.asarray([f for _, f in rels], dtype=np.float32)
        return self.head.prob(vecs[0], vecs[2:], fwd, vecs[1])
