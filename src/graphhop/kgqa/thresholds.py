"""The "no supported answer" threshold of the path scorer: chosen on the selection split, read at answer time.

:func:`choose_threshold` picks the probability under which the best chain's answer is withheld (most
right minus wrong answers; abstaining counts 0; on a tie the lowest such probability). :func:`hop_thresholds`
gives a hop count of the best chain its own threshold (a head that is surer of 1-hop chains than of 3-hop
ones should not withhold a 3-hop answer at the 1-hop level) only where it has enough selection questions
and its own threshold beats the single one there by a margin; otherwise (a tie included) the hop count
keeps the single threshold. :func:`threshold_for` reads them from a scorer config.
"""

from __future__ import annotations

from typing import Any, Mapping

import math

import numpy as np

__all__ = ["choose_threshold", "hop_thresholds", "net", "threshold_for"]

#: Selection questions a hop count needs before it gets its own threshold.
LEAST_PER_HOP = 50

#: How much more right minus wrong (a fraction of the hop count's selection questions, at least 1) a hop
#: count's own threshold must reach than the single threshold before it replaces it.
HOP_MARGIN = 0.01


def choose_threshold(probs: np.ndarray, hits: np.ndarray) -> float:
    """The answer-probability threshold that maximizes right minus wrong answers (abstaining = 0)."""
    best_tau, best_gain = 0.0, -1e9
    for tau in np.unique(np.concatenate([[0.0], probs])):
        keep = probs >= tau
        gain = int((hits & keep).sum()) - int((~hits & keep).sum())
        if gain > best_gain:
            best_tau, best_gain = float(tau), gain
    return best_tau


def net(probs: np.ndarray, hits: np.ndarray, tau: float) -> int:
    """Right minus wrong answers when answering only at probability ``tau`` or more."""
    keep = np.asarray(probs) >= tau
    hits = np.asarray(hits, dtype=bool)
    return int((hits & keep).sum()) - int((~hits & keep).sum())


def hop_thresholds(probs: np.ndarray, hits: np.ndarray, hops: np.ndarray, least: int = LEAST_PER_HOP,
                   single: float | None = None, margin: float = HOP_MARGIN) -> dict[str, float]:
    """``{hop count: threshold}`` (:func:`choose_threshold` over the questions whose best chain has that
    many hops) for each hop count with at least ``least`` selection questions whose own threshold beats
    ``single`` (default: :func:`choose_threshold` over all) by ``margin`` x its questions (at least 1) in
    right minus wrong; the other hop counts are left out, so they keep the single threshold (keys are
    strings: JSON)."""
    probs, hits, hops = np.asarray(probs), np.asarray(hits, dtype=bool), np.asarray(hops)
    single = choose_threshold(probs, hits) if single is None else float(single)
    out = {}
    for h in np.unique(hops):
        m = hops == h
        n = int(m.sum())
        if n < least:
            continue
        own = choose_threshold(probs[m], hits[m])
        if net(probs[m], hits[m], own) >= net(probs[m], hits[m], single) + max(1, math.ceil(margin * n)):
            out[str(int(h))] = own
    return out


def threshold_for(config: Mapping[str, Any], hops: int) -> float:
    """The threshold of a best chain of ``hops`` hops: the config's ``thresholds_by_hops`` entry, else its ``threshold``."""
    by_hops = config.get("thresholds_by_hops") or {}
    return float(by_hops.get(str(hops), config.get("threshold", 0.0)))
