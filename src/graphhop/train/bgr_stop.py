"""Fitting and choosing the stop/continue signal of open-setting BGR (:mod:`graphhop.retrieve.bgr_stop`).

The head is fitted on the teacher-forced open prefixes of a selection carve
(:func:`graphhop.train.bgr_relation.open_steps`: each gold prefix with the open retriever's own candidates
there), every step after the first: label 1 where the gold graph goes on from the prefix (it has a child
forward, a parent backward), 0 where it ends; and, with :func:`search_steps`, on the steps the open search
itself takes on the carve — most of them on wrong paths, label 0 (teacher forcing alone teaches the head
only the gold's depth). Its features read the relation-aware score the search will
use (the relation head applied to the matcher's logits). Then :func:`select_stop` chooses each direction's
``(go, stop)`` by running the open retriever itself on the carve with every other setting fixed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings, _Seen, prune_paths
from graphhop.retrieve.bgr_stop import STOP_FEATURES, StopHead, stop_features

__all__ = ["STOP_GRID", "fit_stop_head", "search_steps", "select_stop", "stop_table"]

#: The ``(go, stop)`` pairs :func:`select_stop` tries by default (``-1``: off; the first, both off, wins ties).
STOP_GRID = ((-1.0, -1.0), (0.5, -1.0), (0.7, -1.0), (-1.0, 0.3), (-1.0, 0.5), (0.5, 0.3), (0.7, 0.3))


def stop_table(steps: Sequence[Any], words: Any, relation_head: Any, text: Callable[[str], str],
               direction: str) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)``: :func:`~graphhop.retrieve.bgr_stop.stop_features` and continue labels of the ``direction``
    steps after the first of ``steps`` (:class:`~graphhop.train.bgr_relation.PrefixStep`); ``relation_head``
    scores the candidates as the search does (``None``: the matcher's logits); ``text``: id -> sentence."""
    rows, ys = [], []
    for s in steps:
        if s.direction != direction or not s.path:
            continue
        n = len(s.ids)
        logits = relation_head.logits(s.logits, s.feats, direction)[:n] if relation_head is not None else s.logits[:n]
        rows.append(stop_features(words, s.query, s.path, {d: text(d) for d in s.path}, logits, s.feats))
        ys.append(bool(s.targets))
    return (np.stack(rows) if rows else np.zeros((0, len(STOP_FEATURES)), dtype=np.float32)), np.array(ys, dtype=int)


class _Recorder(StopHead):
    """A stop head that never decides (continue 0.5) and records each step's ``(path, features)``."""

    def __init__(self) -> None:
        super().__init__()
        self.steps: list[tuple[tuple[str, ...], np.ndarray]] = []

    def observe(self, path: tuple[str, ...], x: np.ndarray) -> None:
        self.steps.append((tuple(path), x))


def search_steps(model: Any, dev: Sequence[Any], cache: CandidateCache, by_text: dict[str, str], settings: OpenSettings,
                 relation: Any) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per direction ``(X, y)`` of every step after the first the open search itself takes on ``dev`` with
    ``settings`` (no stop head): the wrong paths it walks (label 0: no gold lies beyond them) and the gold
    prefixes it reaches (label 1 where the gold goes on). What teacher forcing never shows the head."""
    from graphhop.eval.bgr_bench import relabel_gold
    from graphhop.retrieve.bgr_open import retrieve_direction_open
    from graphhop.train.bgr import QUESTION_TOKEN, backward_targets, forward_targets

    c, out = model.cfg, {}
    for d, targets_of in (("forward", forward_targets), ("backward", backward_targets)):
        rows, ys = [], []
        for ex in dev:
            go_on = {tuple(p): set(t) - {QUESTION_TOKEN} for p, t in targets_of(relabel_gold(ex, by_text)[0], 64)}
            rec = _Recorder()
            retrieve_direction_open(model.direction(d), ex.query, ex.question_vec, cache.search, _Seen(cache.search), d,
                                    settings.threshold(d), c.max_depth, c.max_edges, settings.branch(d), settings.k,
                                    cache.with_reach(settings.answer_reach), relation, settings.later(d), rec)
            rows += [x for _, x in rec.steps]
            ys += [int(bool(go_on.get(p))) for p, _ in rec.steps]
        out[d] = (np.stack(rows) if rows else np.zeros((0, len(STOP_FEATURES)), dtype=np.float32), np.array(ys, dtype=int))
    return out


def fit_stop_head(steps: Sequence[Any], words: Any, relation_head: Any, text: Callable[[str], str], C: float = 1.0,
                  fitted_on: str = "", more: dict[str, tuple[np.ndarray, np.ndarray]] | None = None
                  ) -> tuple[StopHead, dict[str, Any]]:
    """The :class:`~graphhop.retrieve.bgr_stop.StopHead` fitted per direction by logistic regression (L2 ``C``,
    features divided by their standard deviation over both directions) on :func:`stop_table` (and ``more``, per
    direction ``(X, y)``: :func:`search_steps`); a direction without both labels stays off (0.5). Also a summary:
    steps, continue share and fit accuracy per direction."""
    from sklearn.linear_model import LogisticRegression

    tables = {d: stop_table(steps, words, relation_head, text, d) for d in ("forward", "backward")}
    for d, (x, y) in (more or {}).items():
        tables[d] = (np.concatenate([tables[d][0], x]), np.concatenate([tables[d][1], y]))
    every = np.concatenate([x for x, _ in tables.values()])
    scale = np.where(every.std(axis=0) > 1e-6, every.std(axis=0), 1.0) if len(every) else np.ones(len(STOP_FEATURES))
    head, summary = StopHead(scale=[float(v) for v in scale], fitted_on=fitted_on), {}
    for d, (x, y) in tables.items():
        summary[d] = {"steps": int(len(y)), "continue": round(float(y.mean()), 4) if len(y) else None}
        if len(set(y.tolist())) < 2:
            continue
        reg = LogisticRegression(C=C, max_iter=1000).fit(x / scale, y)
        setattr(head, d, [float(reg.intercept_[0]), *map(float, reg.coef_[0])])
        summary[d]["fit_accuracy"] = round(float(reg.score(x / scale, y)), 4)
    return head, summary


def select_stop(model: Any, dev: Sequence[Any], cache: CandidateCache, by_text: dict[str, str], settings: OpenSettings,
                relation: Any, stop: StopHead, grid: Sequence[tuple[float, float]] = STOP_GRID,
                log: Callable[[str], None] | None = None) -> tuple[OpenSettings, dict[str, float]]:
    """Each direction's ``(go, stop)`` of :data:`STOP_GRID` (or ``grid``) by mean evidence F1 of the open retriever
    itself on ``dev`` (gold relabelled to DB ids; ties: the first), every other setting as ``settings`` has it; a
    direction the head was not fitted on (:meth:`~graphhop.retrieve.bgr_stop.StopHead.fitted`) tries only ``(-1, -1)``.
    Returns the settings with the choice and the grid's F1s."""
    from graphhop.eval.bgr_bench import relabel_gold
    from graphhop.train.bgr_open import _direction_runs, _f1

    golds = [relabel_gold(ex, by_text)[0] for ex in dev]
    seen = [_Seen(cache.search) for _ in dev]
    table: dict[str, float] = {}
    chosen: dict[str, tuple[float, float]] = {}
    for d in ("forward", "backward"):
        reach = cache.with_reach(settings.answer_reach)
        best = (-1.0, (-1.0, -1.0))
        for pair in (grid if stop.fitted(d) else ((-1.0, -1.0),)):  # an unfitted direction (p = 0.5) stays off
            runs = _direction_runs(model, dev, reach, seen, d, settings.threshold(d), settings.branch(d), settings.k,
                                   relation, settings.later(d) if settings.later(d) is not None else -1.0, stop, pair)
            f1 = _f1([prune_paths(r, *settings.pruning(d)) for r in runs], dev, golds, seen)
            table[f"{d}:go{pair[0]}/stop{pair[1]}"] = round(f1, 4)
            if log:
                log(f"stop selection {d} go {pair[0]} stop {pair[1]}: F1 {f1:.4f}")
            if f1 > best[0] + 1e-9:
                best = (f1, pair)
        chosen[d] = best[1]
    out = replace(settings, go_forward=chosen["forward"][0], stop_forward=chosen["forward"][1],
                  go_backward=chosen["backward"][0], stop_backward=chosen["backward"][1])
    return out, table
