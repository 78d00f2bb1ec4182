"""Relation-aware matching for open-setting BGR: the question's words vs a sentence's relation words.

In the open setting a mention-link hop offers every sentence of one entity (``X has a child named Y``,
``X is of gender female``, ``X has the nationality Z``): the entity is the same, only the relation tells
the gold sentence from the others. A sentence's **relation words** are its words outside the entity
names the gazetteer finds in it (:meth:`graphhop.retrieve.mention_links.MentionIndex.outside`:
``has a child named``, ``is of gender``); the question's are its words outside its entity names
(``which nationality ... couple``). Words are compared by the cosine of their encoder vectors (each word
encoded alone, cached), so ``couple`` meets ``married`` and ``son`` meets ``child``.

Features of each candidate, given the path so far (:meth:`RelationWords.features`):

* ``any``: the best cosine between a question relation word and a candidate relation word;
* ``left``: the same, each question word weighted by how much of it the path has **not** yet used
  (1 - its best cosine to the path's relation words): the relation the next hop should carry;
* ``used``: the same weighted by how much the path has used it (a relation already consumed);
* ``assoc`` and ``assoc_left``: as ``any`` and ``left`` with a learned word association instead of the
  cosine (:func:`association_table`: how much more often a question word occurs when a gold sentence
  carries a relation word, counted on training questions: ``son`` -> ``child``, ``couple`` -> ``married``);
* ``next`` and ``assoc_next``: as ``left`` and ``assoc_left``, each unused question word further weighted
  down by the unused words before it in **hop order** (:meth:`RelationWords.hop_order`: the words after
  the entity left to right — ``X 's son 's mother`` — then those before it right to left — ``the mother
  of the son of X``): which of the relations still asked comes next;
* ``link``: the candidate's entity-link weight (:meth:`MentionIndex.linked
  <graphhop.retrieve.mention_links.MentionIndex.linked>`: 1 when it names the question's entity at the
  first hop or the path's bridge entity later, 0.5 an older name of the path, 0 for a dense/BM25 fill:
  the matcher otherwise cannot tell a bridge sentence from a look-alike of another entity with the right
  relation), and ``link`` times ``left``, ``assoc_left`` and ``assoc_next`` (the right entity **and** the
  relation still asked).

:class:`RelationHead` adds them to the matcher's logit, ``a * logit + w . features + b``, fitted on
teacher-forced open prefixes of a selection carve (:mod:`graphhop.train.bgr_relation`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

__all__ = ["RELATION_FEATURES", "FUNCTION_WORDS", "RelationHead", "RelationWords", "association_table", "relation_words"]

#: Names of :meth:`RelationWords.features`' columns.
RELATION_FEATURES = ("any", "left", "used", "assoc", "assoc_left", "next", "assoc_next", "link", "link_left",
                     "link_assoc_left", "link_assoc_next")

#: Words that carry no relation in builder sentences and questions (beside the tokenizer's stop words).
FUNCTION_WORDS = frozenset("""
    has have had be been being are were am it its this that these those there their his her he she they them
    named name called whose whom as at from into than then also not no yes one any some many much more most
    please tell me give list ask about can could would should will shall may might
""".split())


def relation_words(mentions: Any, text: str) -> tuple[str, ...]:
    """The content words of ``text`` outside the entity names ``mentions`` (a
    :class:`~graphhop.retrieve.mention_links.MentionIndex`) finds in it, in order, once each: a sentence's
    relation (``nationality``), a question's asked relations (``nationality``, ``spouse``)."""
    from graphhop.retrieve.baselines import tokenize

    outside = " ".join(mentions.outside(text))
    return tuple(dict.fromkeys(w for w in tokenize(outside) if w not in FUNCTION_WORDS and not w.isdigit()))


class RelationWords:
    """Relation words of sentences and questions (entity names removed), their encoder vectors, and
    the relation features of candidates given a path."""

    def __init__(self, mentions: Any, encoder: Any, table: dict[str, dict[str, float]] | None = None) -> None:
        self.mentions = mentions
        self.encoder = encoder
        self.table = table or {}
        self._words: dict[str, tuple[str, ...]] = {}
        self._vecs: dict[str, np.ndarray] = {}

    def words(self, text: str) -> tuple[str, ...]:
        """The content words of ``text`` outside its entity names (cached per text)."""
        got = self._words.get(text)
        if got is None:
            got = self._words[text] = relation_words(self.mentions, text)
        return got

    def hop_order(self, question: str) -> tuple[str, ...]:
        """The question's relation words in the order a chain from its entity meets them: after the first
        entity name left to right, then before it right to left."""
        from graphhop.retrieve.baselines import tokenize

        before, after = self.mentions.around(question)
        keep = set(self.words(question))
        return tuple(dict.fromkeys(t for w in [*after, *reversed(before)] for t in tokenize(w) if t in keep))

    def vectors(self, words: Sequence[str]) -> np.ndarray:
        """Unit encoder vectors of ``words`` (``[len, dim]``; each word encoded alone, once)."""
        todo = [w for w in dict.fromkeys(words) if w not in self._vecs]
        if todo:
            vecs = self.encoder.encode(todo, convert_to_numpy=True, normalize_embeddings=True)
            self._vecs.update({w: np.asarray(v, dtype=np.float32) for w, v in zip(todo, vecs)})
        if not words:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._vecs[w] for w in words])

    def _sim(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """``[len(a)]``: each word of ``a``'s best cosine to a word of ``b`` (0 when ``b`` is empty)."""
        if not a or not b:
            return np.zeros(len(a), dtype=np.float32)
        return np.clip((self.vectors(a) @ self.vectors(b).T).max(axis=1), 0.0, 1.0)

    def _assoc(self, q: Sequence[str], words: Sequence[str]) -> np.ndarray:
        """``[len(q)]``: each question word's association to its best word of ``words``, as a share of
        its best association to any relation word (0 for words the table does not know)."""
        out = np.zeros(len(q), dtype=np.float32)
        for i, w in enumerate(q):
            row = self.table.get(w)
            if row and words:
                out[i] = max(row.get(r, 0.0) for r in words) / max(row.values())
        return out

    def path_words(self, path: Sequence[str], texts: Mapping[str, str]) -> list[str]:
        """The relation words of the path's sentences (ids ``path``; ``texts``: id -> text), in order, once each."""
        return list(dict.fromkeys(w for d in path for w in self.words(texts[d])))

    def unused(self, question: str, path: Sequence[str], texts: Mapping[str, str]) -> np.ndarray:
        """``[len(hop_order(question))]``: how much of each question relation word the path has not used yet
        (1 - its best cosine to a relation word of the path's sentences)."""
        q = self.hop_order(question)
        return 1.0 - self._sim(q, self.path_words(path, texts))

    def features(self, question: str, path: Sequence[str], cands: Sequence[str], texts: Mapping[str, str]) -> np.ndarray:
        """``[P, 11]``: the :data:`RELATION_FEATURES` (module docstring) of each candidate id of ``cands``
        after the path of ids ``path`` (``texts``: id -> text)."""
        q = self.hop_order(question)
        out = np.zeros((len(cands), len(RELATION_FEATURES)), dtype=np.float32)
        linked = self.mentions.linked(question, list(path)) if self.mentions is not None else {}
        out[:, 7] = [linked.get(c, 0.0) for c in cands]
        if not q:
            return out
        path_words = self.path_words(path, texts)
        used, used_a = self._sim(q, path_words), self._assoc(q, path_words)
        left, left_a = 1.0 - used, 1.0 - used_a
        nxt = left * np.exp(-0.5 * (np.cumsum(left) - left))          # unused words earlier in hop order
        nxt_a = left_a * np.exp(-0.5 * (np.cumsum(left_a) - left_a))
        for i, c in enumerate(cands):
            cw = self.words(texts[c])
            s, a = self._sim(q, cw), self._assoc(q, cw)
            out[i, :7] = (s.max(), (s * left).max(), (s * used).max(), a.max(), (a * left_a).max(), (s * nxt).max(),
                          (a * nxt_a).max())
        out[:, 8:] = out[:, 7:8] * out[:, [1, 4, 6]]
        return out


def association_table(pairs: Iterable[tuple[Sequence[str], Sequence[str]]], min_count: int = 2,
                      min_value: float = 0.05) -> dict[str, dict[str, float]]:
    """``{question word: {relation word: association}}`` from ``(question relation words, relation words of
    its gold sentences)`` pairs: ``(P(w | r) - P(w)) / (1 - P(w))`` over questions, kept where the pair
    occurs at least ``min_count`` times and the value is at least ``min_value``."""
    from collections import Counter

    cw: Counter[str] = Counter()
    cr: Counter[str] = Counter()
    cwr: Counter[tuple[str, str]] = Counter()
    n = 0
    for q, r in pairs:
        qs, rs = set(q), set(r)
        n += 1
        cw.update(qs)
        cr.update(rs)
        cwr.update((w, x) for w in qs for x in rs)
    table: dict[str, dict[str, float]] = {}
    for (w, r), c in cwr.items():
        pw = cw[w] / n
        value = (c / cr[r] - pw) / (1.0 - pw) if c >= min_count and pw < 1 else 0.0
        if value >= min_value:
            table.setdefault(w, {})[r] = round(float(value), 4)
    return table


def _identity() -> list[float]:
    return [1.0, 0.0] + [0.0] * len(RELATION_FEATURES)


@dataclass
class RelationHead:
    """Per direction, ``a * matcher logit + w . relation features + b``: the relation-aware score of a
    candidate (the question token of backward BGR keeps ``a * logit + b``); ``forward`` and ``backward``
    hold ``[a, b, *w]`` (their steps differ: backward's first picks the answer-bearing sentence). Fitted
    on a selection carve; ``table``: the word association (:func:`association_table`) of its features."""

    forward: list[float] = field(default_factory=_identity)
    backward: list[float] = field(default_factory=_identity)
    fitted_on: str = ""
    table: dict[str, dict[str, float]] = field(default_factory=dict)

    def logits(self, logit: np.ndarray, feats: np.ndarray, direction: str = "forward") -> np.ndarray:
        """Combined logits: ``logit`` ``[P(+1)]``, ``feats`` ``[P, 11]`` (a trailing question token gets no features)."""
        a, b, *w = self.backward if direction == "backward" else self.forward
        out = a * np.asarray(logit, dtype=np.float32) + b
        out[: len(feats)] += feats @ np.asarray(w, dtype=np.float32)
        return out

    def save(self, path: Path) -> None:
        """Write the head as JSON (atomic)."""
        from graphhop.io import atomic_write_text

        atomic_write_text(Path(path), json.dumps(asdict(self), indent=1))

    @classmethod
    def load(cls, path: Path) -> "RelationHead":
        """Read a head written by :meth:`save`."""
        from graphhop.core import InputError

        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            head = cls([float(x) for x in data["forward"]], [float(x) for x in data["backward"]], str(data.get("fitted_on", "")),
                       {w: {r: float(v) for r, v in row.items()} for w, row in data.get("table", {}).items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise InputError(f"{path}: not a relation head ({e})") from None
        if {len(head.forward), len(head.backward)} != {len(RELATION_FEATURES) + 2}:
            raise InputError(f"{path}: a relation head has {len(RELATION_FEATURES) + 2} weights per direction")
        return head
