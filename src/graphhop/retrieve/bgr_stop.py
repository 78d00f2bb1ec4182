"""A stop/continue signal for open-setting BGR, learned on the open retriever's own candidates.

Over a closed pool BGR stops where no candidate passes the match threshold. Over a whole DB one threshold
serves two jobs badly: high enough to keep the first step's restatements out, it stops the search after
hop 1 (WC-P2: ``X plays for the club C`` found, ``C is located in K`` scored below it); low enough to reach
hop 2, it also lets a finished path grow wrong hops (the 3-hop sets). :class:`StopHead` answers, at every
step after the first, "does the gold path go on from here?" from features of the step itself
(:func:`stop_features`): its depth, how sure the matcher is of its best candidate, and how much of the
question's relation words the path has **not** yet used (:class:`~graphhop.retrieve.bgr_relation.RelationWords`:
a path that has met ``club`` and not ``country`` in ``In which country is the club of X?`` goes on).
:func:`~graphhop.retrieve.bgr_open.retrieve_direction_open` then takes the best candidate even below the
threshold when the head's continue probability is at least ``go``, and stops (no child; backward: the
path's end becomes a start) when it is below ``stop``; both chosen on a selection carve
(:func:`graphhop.train.bgr_stop.select_stop`), ``< 0`` = off. Fitted by logistic regression on teacher-forced
open prefixes (:func:`graphhop.train.bgr_stop.fit_stop_head`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from graphhop.retrieve.bgr_relation import RELATION_FEATURES

__all__ = ["STOP_FEATURES", "StopHead", "stop_features"]

#: Names of :func:`stop_features`' columns.
STOP_FEATURES = ("depth", "top_prob", "top_logit", "gap", "n_sure", "left_sum", "left_max", "n_words", "top_left",
                 "top_next", "top_link")
#: The columns of :data:`STOP_FEATURES` (``top_left``, ``top_next``, ``top_link``) copied from the best candidate's
#: relation features, by their names in :data:`~graphhop.retrieve.bgr_relation.RELATION_FEATURES`.
_TOP_COLUMNS = slice(STOP_FEATURES.index("top_left"), STOP_FEATURES.index("top_link") + 1)
_TOP_RELATION = ("left", "next", "link")


def stop_features(words: Any, question: str, path: Sequence[str], texts: Mapping[str, str], logits: np.ndarray,
                  feats: np.ndarray) -> np.ndarray:
    """``[len(STOP_FEATURES)]`` of one step: ``path`` (ids, not empty) so far, the step's candidates' logits
    (``logits`` ``[P]``, the relation-aware score; a trailing question token left out) and relation features
    (``feats`` ``[P, 11]``, :meth:`~graphhop.retrieve.bgr_relation.RelationWords.features`); ``words``: the
    :class:`~graphhop.retrieve.bgr_relation.RelationWords`, ``texts``: id -> text of the path's sentences."""
    out = np.zeros(len(STOP_FEATURES), dtype=np.float32)
    out[0] = len(path)
    n = len(feats)
    if n:
        lg = np.sort(np.asarray(logits[:n], dtype=np.float32))[::-1]
        top = int(np.argmax(np.asarray(logits[:n])))
        out[1] = 1.0 / (1.0 + np.exp(-lg[0]))
        out[2] = np.clip(lg[0], -10.0, 10.0)
        out[3] = np.clip(lg[0] - lg[1], 0.0, 10.0) if n > 1 else 0.0
        out[4] = float(np.sum(lg >= 0.0))
        out[_TOP_COLUMNS] = feats[top, [RELATION_FEATURES.index(name) for name in _TOP_RELATION]]
    left = words.unused(question, path, texts)
    out[7] = len(left)
    if len(left):
        out[5], out[6] = float(left.sum()), float(left.max())
    return out


def _off() -> list[float]:
    return [0.0] * (len(STOP_FEATURES) + 1)


@dataclass
class StopHead:
    """Per direction ``[b, *w]``: the probability that the gold path goes on after a step,
    ``sigmoid(w . stop_features + b)``; ``scale``: the features' standard deviations on the fit (each feature is
    divided by it first); an unfitted direction gives 0.5 everywhere."""

    forward: list[float] = field(default_factory=_off)
    backward: list[float] = field(default_factory=_off)
    scale: list[float] = field(default_factory=lambda: [1.0] * len(STOP_FEATURES))
    fitted_on: str = ""

    def p_continue(self, x: np.ndarray, direction: str = "forward") -> float:
        """The continue probability of one step's :func:`stop_features` ``x``."""
        b, *w = self.backward if direction == "backward" else self.forward
        z = float(np.dot(np.asarray(x, dtype=np.float64) / np.asarray(self.scale), w) + b)
        return float(1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0))))

    def fitted(self, direction: str) -> bool:
        """Whether ``direction`` was fitted (an unfitted one has all-zero weights: 0.5 everywhere, meaning off)."""
        return any(self.backward if direction == "backward" else self.forward)

    def save(self, path: Path) -> None:
        """Write the head as JSON (atomic)."""
        from graphhop.io import atomic_write_text

        atomic_write_text(Path(path), json.dumps(asdict(self), indent=1))

    @classmethod
    def load(cls, path: Path) -> "StopHead":
        """Read a head written by :meth:`save`; one line naming what is wrong otherwise."""
        from graphhop.core import InputError

        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            head = cls([float(x) for x in data["forward"]], [float(x) for x in data["backward"]],
                       [float(x) for x in data["scale"]], str(data.get("fitted_on", "")))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise InputError(f"{path}: not a stop head ({e})") from None
        n = len(STOP_FEATURES)
        if {len(head.forward), len(head.backward)} != {n + 1} or len(head.scale) != n or min(head.scale) <= 0:
            raise InputError(f"{path}: a stop head has {n + 1} weights per direction and {n} positive scales")
        if not np.isfinite([*head.forward, *head.backward, *head.scale]).all():
            raise InputError(f"{path}: a stop head's weights and scales must be finite numbers (found NaN or inf)")
        return head
