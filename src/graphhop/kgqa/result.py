"""The result of a ``kgqa`` operation (:mod:`graphhop.kgqa.ops`): the answer a path gives, withheld when the
path's probability is under the threshold, with the chains that support it and the alternatives beside them."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["no_answer", "finish", "path_prob", "alternatives"]


def no_answer(reason: str, trace: dict | None = None) -> dict[str, Any]:
    """The result of an operation that found nothing to answer: no answer, ``reason`` in the trace."""
    return {"answer": "", "answers": [], "score": 0.0, "supported": False, "chains": [],
            "trace": {"reason": reason, **(trace or {})}}


def finish(kgqa: Any, reading: Any, path: Any, answers: list[int], text: list[str], chains: list[list[int]],
            trace: dict, among: Sequence[Any] | None = None, pool: bool = False,
            scorer_path: Any = None) -> dict[str, Any]:
    """The result of a path: withheld ("no supported answer") when its probability (renormalized
    over ``among``, the paths the operation could use, when given; with ``pool``, that of every path
    reaching the same end entities) is under the threshold of ``scorer_path``'s hop count: the scorer's
    own best path, whose probability a moved ``path`` (covered, typed, cut back) keeps (default ``path``).
    The trace's ``threshold_hops`` is the hop count that threshold was chosen by."""
    prob = path_prob(reading, path, among, pool)
    judged = path if scorer_path is None else scorer_path
    threshold = kgqa.threshold_for(judged)
    supported = prob >= threshold
    trace = {**trace, "paths": [kgqa.describe(reading, p) for p in reading.paths[:5]], "threshold_hops": len(getattr(judged, "steps", ()))}
    if not supported:
        trace["reason"] = f"no supported answer: best chain probability {prob:.3f} < threshold {threshold:.3f}"
        trace["best_guess"] = text[:10]
        return {"answer": "", "answers": [], "score": prob, "supported": False, "chains": chains, "trace": trace}
    return {"answer": text[0] if text else "", "answers": text, "score": prob, "supported": True, "chains": chains,
            "trace": trace, "alternatives": alternatives(kgqa, reading)}


def path_prob(reading: Any, path: Any, among: Sequence[Any] | None = None, pool: bool = False) -> float:
    """The softmax probability of ``path`` among all of ``reading``'s paths, or among ``among``; with
    ``pool``, summed over the paths that reach the same end entities as ``path`` (the confidence in an
    answer rather than in one wording of its chain: on a loop, ``tracks > recording`` and
    ``recording > tracks`` reach the same entity and split the probability)."""
    p = float(reading.probs[reading.paths.index(path)])
    if pool:
        allowed = None if among is None else {id(q) for q in among}
        p = sum(float(reading.probs[i]) for i, q in enumerate(reading.paths)
                if q is path or ((allowed is None or id(q) in allowed) and np.array_equal(q.ends, path.ends)))
    if among is None:
        return p
    total = sum(float(reading.probs[reading.paths.index(q)]) for q in among)
    return p / total if total > 0 else 0.0


def alternatives(kgqa: Any, reading: Any, n: int = 3) -> list[list[int]]:
    """The support chains of the first answer of each of the ``n`` paths after ``reading``'s best."""
    out: list[list[int]] = []
    for p in reading.paths[1 : n + 1]:
        first = kgqa.answers(p, reading.mention.entities)[:1]
        out += kgqa.support(p, first, limit=8)
    return out
