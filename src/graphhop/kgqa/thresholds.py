"""The "no supported answer" threshold of the path scorer: chosen on the selection split, read at answer time.

:func:`choose_threshold` picks the probability under which the best chain's answer is withheld (most
right minus wrong answers; abstaining counts 0). :func:`hop_thresholds` picks one per hop count of the
best chain (a head that is surer of 1-hop chains than of 3-hop ones should not withhold a 3-hop answer
at the 1-hop level), falling back to the overall threshold where a hop count has few selection
questions; :func:`threshold_for` reads them from a scorer config.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

__all__ = ["choose_threshold", "hop_thresholds", "threshold_for"]

#: Selection questions a hop count needs before it gets its own threshold.
LEAST_PER_HOP = 50


def choose_threshold(probs: np.ndarray, hits: np.ndarray) -> float:
    """The answer-probability threshold that maximizes right minus wrong answers (abstaining = 0)."""
    best_tau, best_gain = 0.0, -1e9
    for tau in np.unique(np.concatenate([[0.0], probs])):
        keep = probs >= tau
        gain = int((hits & keep).sum()) - int((~hits & keep).sum())
        if gain > best_gain:
            best_tau, best_gain = float(tau), gain
    return best_tau


def hop_thresholds(probs: np.ndarray, hits: np.ndarray, hops: np.ndarray, least: int = LEAST_PER_HOP) -> dict[str, float]:
    """``{hop count: threshold}`` (:func:`choose_threshold` over the questions whose best chain has that
    many hops), for each hop count with at least ``least`` selection questions (keys are strings: JSON)."""
    probs, hits, hops = np.asarray(probs), np.asarray(hits, dtype=bool), np.asarray(hops)
    return {str(int(h)): choose_threshold(probs[hops == h], hits[hops == h])
            for h in np.unique(hops) if int((hops == h).sum()) >= least}


def threshold_for(config: Mapping[str, Any], hops: int) -> float:
    """The threshold of a best chain of ``hops`` hops: the config's ``thresholds_by_hops`` entry, else its ``threshold``."""
    by_hops = config.get("thresholds_by_hops") or {}
    return float(by_hops.get(str(hops), config.get("threshold", 0.0)))
