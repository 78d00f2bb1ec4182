"""A learned ranker over the walk reader's candidate readings (issue 13, session 12).

The walk reader (:mod:`graphhop.read.walk`) scores each reading by hand-set weights over lexical features.
:class:`RankedWalkReader` reads exactly as it does, then re-orders the readings of a wh-question by a logistic
model over :data:`FEATURES` (the walk's score parts, MiniLM cosine between the question and the evidence
sentence, the candidate's kind against the asked kind, ...): the margins the walk gave are kept as a multiset and
handed out again in the model's order, so whether an answer is given, how many list items clear their margins and
every question type's rules stay as they were; only *which* reading gets the best margin moves.

The weights (:data:`DEFAULT_WEIGHTS`, a small JSON file) are fit by ``python benchmarks/walk_ranker_fit.py``
on the selection sets (``tests/pipeline/data``) and loaded without training.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.kb.names import fold_name
from graphhop.read.numbers import is_number
from graphhop.read.walk import WalkReader

__all__ = ["DEFAULT_WEIGHTS", "FEATURES", "RankedWalkReader", "ReadingRanker", "reading_features"]

DEFAULT_WEIGHTS = Path(__file__).resolve().parents[1] / "weights" / "walk_ranker.json"

#: One row per reading; names as the weights file lists them.
FEATURES = ("score", "margin_gap", "rank", "cover", "type_fit", "match", "matched", "hops", "reused", "climbed",
            "middled", "support", "votes", "is_number", "asks_number", "kind_agrees", "in_question", "q_sentence_cos",
            "q_sentence_cos_gap", "q_passage_cos")

_ASKS_NUMBER = re.compile(r"^\s*(?:when|how (?:many|much|long|old|tall|high|deep|far|wide)|in what year|in which year|"
                          r"what year|which year)\b", re.I)


@dataclass(frozen=True)
class ReadingRanker:
    """A logistic model over :data:`FEATURES`: ``score(x) = w . (x - mean) / std + b``."""

    weights: np.ndarray
    bias: float
    mean: np.ndarray
    std: np.ndarray
    features: tuple[str, ...] = FEATURES
    card: dict[str, Any] | None = None

    def scores(self, x: np.ndarray) -> np.ndarray:
        """The model's logit of each row of ``x`` (readings x features)."""
        return ((x - self.mean) / self.std) @ self.weights + self.bias

    @classmethod
    def fit(cls, x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 500, card: dict[str, Any] | None = None,
            sample_weight: np.ndarray | None = None) -> "ReadingRanker":
        """Logistic regression (L2 ``l2`` on the standardised weights, Newton steps) of labels ``y`` (0/1) on ``x``."""
        from graphhop.models.logistic import fit_logistic

        mean, std = x.mean(0), x.std(0)
        std = np.where(std > 1e-9, std, 1.0)
        coef, bias = fit_logistic((x - mean) / std, y, l2, iters=steps, sample_weight=sample_weight, jitter=1e-6)
        return cls(coef, bias, mean, std, FEATURES, card)

    def save(self, path: str | Path) -> None:
        """Write the model as JSON (features, weights, bias, standardisation, card)."""
        data = {"features": list(self.features), "weights": self.weights.round(6).tolist(), "bias": round(self.bias, 6),
                "mean": self.mean.round(6).tolist(), "std": self.std.round(6).tolist(), "card": self.card or {}}
        from graphhop.io import atomic_write_text

        atomic_write_text(path, json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path = DEFAULT_WEIGHTS) -> "ReadingRanker":
        """A model written by :meth:`save`; its feature list must be :data:`FEATURES`."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: features {data['features']} are not this version's {list(FEATURES)}")
        return cls(np.asarray(data["weights"], dtype=float), float(data["bias"]), np.asarray(data["mean"], dtype=float),
                   np.asarray(data["std"], dtype=float), FEATURES, data.get("card"))


def _kind_agrees(asks_number: bool, number: bool, wanted: str | None) -> float:
    """1 when the candidate's kind (a number or a name) is what the question asks, 0 otherwise."""
    if asks_number or wanted == "year":
        return float(number)
    return float(not number)


def reading_features(reader: "RankedWalkReader", question: str, readings: Sequence[Any],
                     states: Sequence[Any]) -> np.ndarray:
    """One row of :data:`FEATURES` per reading (``states``: the walk state each reading was read from)."""
    from graphhop.read.facts import answer_type

    n = len(readings)
    if not n:
        return np.zeros((0, len(FEATURES)))
    wanted, asks_number = answer_type(question), bool(_ASKS_NUMBER.match(question))
    q_key = fold_name(question)
    cos_s = reader.cosines(question, [r.sentence for r in readings])
    cos_p = reader.cosines(question, [" ".join(reader.graph.sentences(r.path[-1])) if r.path else "" for r in readings])
    margins = np.array([r.margin for r in readings])
    order = np.argsort(-margins, kind="stable")
    rank = np.empty(n)
    rank[order] = np.arange(n)
    votes: dict[str, int] = {}
    for r in readings:
        votes[fold_name(r.text)] = votes.get(fold_name(r.text), 0) + 1
    rows = []
    for i, (r, st) in enumerate(zip(readings, states)):
        cover, match, matched = reader._parts.get(id(st), (0.0, 0.0, 0.0))
        number = is_number(r.text)
        key = fold_name(r.text)
        rows.append([r.path_score, margins.max() - r.margin, math.log1p(rank[i]), cover, r.type_fit, match, matched,
                     r.hops, st.reused, st.climbed, st.middled, len(r.path), math.log1p(votes[key]), float(number),
                     float(asks_number), _kind_agrees(asks_number, number, wanted),
                     float(bool(key) and f" {key} " in f" {q_key} "), cos_s[i], cos_s.max() - cos_s[i], cos_p[i]])
    return np.asarray(rows, dtype=float)


class RankedWalkReader(WalkReader):
    """The walk reader with its wh-question readings re-ordered by a :class:`ReadingRanker` (module docstring).

    ``ranker``: a model, a weights file, or None (read as the walk reader does, features still recorded when
    ``record`` is a list: one ``(question, query, readings, features)`` per read)."""

    def __init__(self, search: Any, ranker: ReadingRanker | str | Path | None = DEFAULT_WEIGHTS,
                 record: list | None = None, **options: Any) -> None:
        super().__init__(search, **options)
        self.ranker = ReadingRanker.load(ranker) if isinstance(ranker, (str, Path)) else ranker
        self.record = record
        self._parts: dict[int, tuple[float, float, float]] = {}
        self._read_states: list[Any] = []
        self._cos_cache: dict[str, np.ndarray] = {}

    def _scores(self, question: str, states: Sequence[Any], match: Any, wanted: frozenset[str],
                answer_types: frozenset[str]) -> tuple[list[float], dict[str, float]]:
        """The walk's scores; each state's coverage and matcher probability kept for :func:`reading_features`."""
        matched = float(np.any(np.asarray(match)))
        for st, m in zip(states, match):
            self._parts[id(st)] = (len(st.covered) / len(wanted) if wanted else 1.0, float(m), matched)
        return super()._scores(question, states, match, wanted, answer_types)

    def support(self, st: Any) -> tuple[str, ...]:
        """As the walk reader's; each state read is noted, in the order of the readings."""
        self._read_states.append(st)
        return super().support(st)

    def read(self, question: str, query: str | None = None) -> tuple[list[Any], list[Any]]:
        """The walk reader's paths and readings; a wh-question's (``query`` None) re-ordered by the ranker."""
        self._parts, self._read_states = {}, []
        paths, readings = super().read(question, query)
        if not readings or (self.ranker is None and self.record is None):
            return paths, readings
        x = reading_features(self, question, readings, self._read_states)
        if self.record is not None:
            self.record.append((question, query, readings, x))
        if self.ranker is None or query is not None or len(readings) < 2:
            return paths, readings
        learned = self.ranker.scores(x)
        margins = sorted((r.margin for r in readings), reverse=True)
        order = np.argsort(-learned, kind="stable")
        out = list(readings)
        for m, i in zip(margins, order):
            out[i] = replace(readings[i], margin=m)
        return paths, out

    def cosines(self, question: str, texts: Sequence[str]) -> np.ndarray:
        """MiniLM cosine of ``question`` to each text (0 without an encoder); vectors cached by text."""
        if not hasattr(self.encoder, "encode"):
            return np.zeros(len(texts))
        missing = sorted({question, *texts} - self._cos_cache.keys())
        if missing:
            vecs = self.encoder.encode(missing, convert_to_numpy=True, normalize_embeddings=True)
            self._cos_cache.update(zip(missing, np.asarray(vecs, dtype=np.float32)))
        if len(self._cos_cache) > 20000:
            self._cos_cache = {k: self._cos_cache[k] for k in [question, *texts]}
        q = self._cos_cache[question]
        return np.array([float(self._cos_cache[t] @ q) for t in texts])
