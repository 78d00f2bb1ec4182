"""Negative relation paths of the scorer's training questions (:mod:`graphhop.kgqa.train` builds the corpus from them).

:func:`candidate_paths` enumerates a training question's candidates around its gold chain over the whole KB: every
1-hop path, extensions of the gold prefix and of random other paths, and (``named``) the :func:`hard_negatives`,
one relation off the gold chain or a one-hop shortcut of two gold hops; with ``lures`` the :func:`lure_steps` (the
gold chain cut one hop short, or walked one hop further along a relation the question's words name) are always kept.
"""

from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kgqa.paths import RelPath
from graphhop.kgqa.scorer import MAX_HOPS

__all__ = ["hard_negatives", "lure_steps", "candidate_paths"]


def _walk(store: KGStore, steps: Sequence[tuple[int, bool]], layers: list[np.ndarray], max_nodes: int) -> RelPath | None:
    """``steps`` walked on from ``layers`` (one layer per step already taken); None if it dies out."""
    layers = list(layers)
    for rel, fwd in steps[len(layers) - 1 :]:
        _, reached = store.step(layers[-1][:max_nodes], rel, fwd)
        if len(reached) == 0:
            return None
        layers.append(np.unique(reached)[:max_nodes])
    return RelPath(tuple(steps), layers)


def hard_negatives(store: KGStore, topic: Sequence[int], gold: Sequence[tuple[int, bool]],
                   max_nodes: int = 300) -> list[RelPath]:
    """Paths one relation away from ``gold``: another relation at one hop with the rest of the gold
    path walked on from there, and one relation in place of two gold hops where it reaches some of
    the same entities (a shortcut: ``nationality`` for ``born in -> located in``)."""
    gold = tuple(gold)
    layers = [np.unique(np.asarray(topic, dtype=np.int64))]
    for rel, fwd in gold:
        _, reached = store.step(layers[-1][:max_nodes], rel, fwd)
        layers.append(np.unique(reached)[:max_nodes])
    out: list[RelPath] = []
    for i in range(len(gold)):
        for s in store.signed_relations(layers[i][:max_nodes]):
            if s == gold[i]:
                continue
            _, reached = store.step(layers[i][:max_nodes], *s)
            first = np.unique(reached)[:max_nodes]
            if len(first) == 0:
                continue
            for skip in (1, 2):
                if i + skip > len(gold) or (skip == 2 and not np.intersect1d(first, layers[i + 2]).size):
                    continue
                path = _walk(store, gold[:i] + (s,) + gold[i + skip :], layers[: i + 1] + [first], max_nodes)
                if path is not None:
                    out.append(path)
    return out


def lure_steps(gold: Sequence[tuple[int, bool]], steps: Sequence[tuple[tuple[int, bool], ...]],
               named: frozenset[int]) -> list[tuple[tuple[int, bool], ...]]:
    """The *lures* of ``gold`` among ``steps``: the gold chain cut one hop short, and the gold chain walked one
    hop further along a relation the question's words name (``named``: ``made from -> grape colour`` for "what
    grape ...", ``produced by -> winemaker`` for "which winery produces ..."), not straight back."""
    gold = tuple(gold)
    out = [gold[:-1]] if len(gold) > 1 and gold[:-1] in steps else []
    back = (gold[-1][0], not gold[-1][1]) if gold else None
    out += [s for s in steps if len(s) == len(gold) + 1 and s[:-1] == gold and s[-1][0] in named and s[-1] != back]
    return list(dict.fromkeys(out))


def candidate_paths(store: KGStore, topic: Sequence[int], gold: Sequence[tuple[int, bool]], rng: random.Random,
                    max_hops: int, beam: int = 6, max_nodes: int = 300, cap: int = 96,
                    named: frozenset[int] | None = None, lures: bool = False) -> list[RelPath]:
    """Training candidates: every 1-hop path, then the extensions of the gold prefix and of
    ``beam - 1`` random other paths at each hop, up to ``max_hops``; with ``named`` (relation ids the
    question's words name, or an empty set) also the :func:`hard_negatives`. At most ``cap`` (gold
    kept); up to half of them hard ones (:func:`hard_negatives`, paths using a ``named`` relation);
    ``lures`` (with ``named``): the :func:`lure_steps` are kept beside gold whatever the cap."""
    frontier = [RelPath((), [np.unique(np.asarray(topic, dtype=np.int64))])]
    out: list[RelPath] = []
    gold = tuple(gold)
    for hop in range(max_hops):
        new = []
        for p in frontier:
            cur = p.layers[-1][:max_nodes]
            for rel, fwd in store.signed_relations(cur):
                _, reached = store.step(cur, rel, fwd)
                new.append(RelPath(p.steps + ((rel, fwd),), p.layers + [np.unique(reached)[:max_nodes]]))
        out += new
        on_gold = [p for p in new if p.steps == gold[: hop + 1]]
        others = [p for p in new if p.steps != gold[: hop + 1]]
        frontier = on_gold + rng.sample(others, min(len(others), beam - len(on_gold)))
    lure = set(lure_steps(gold, [p.steps for p in out], named)) if lures and named is not None else set()
    hard: set[tuple[tuple[int, bool], ...]] = set()
    if named is not None:
        seen = {p.steps for p in out}
        for p in hard_negatives(store, topic, gold, max_nodes):
            hard.add(p.steps)
            if p.steps not in seen and len(p.steps) <= MAX_HOPS:
                seen.add(p.steps)
                out.append(p)
        hard |= {p.steps for p in out if any(r in named for r, _ in p.steps)}
    if len(out) > cap:
        keep = [p for p in out if p.steps == gold or p.steps in lure]
        tough = [p for p in out if p.steps != gold and p.steps in hard and p.steps not in lure]
        tough = rng.sample(tough, min(len(tough), cap // 2, max(0, cap - len(keep))))
        rest = [p for p in out if p.steps != gold and p.steps not in hard and p.steps not in lure]
        out = keep + tough + rng.sample(rest, min(len(rest), max(0, cap - len(keep) - len(tough))))
    return out
