"""Leak-free splits: examples that share a question text or *any* gold path (read in either
direction) form one group, and each group goes to one split.

A triple and its inverse reading are one fact (``(x, r_inverse, y)`` is ``(y, r, x)``), and a chain
read backwards is the same chain, so paths are compared in a canonical form: each triple in its
base direction, the chain in whichever order sorts first. Groups are connected components
(union-find) over examples; a group's split comes from ``md5(seed:key)`` of its smallest path.
"""

from __future__ import annotations

import hashlib
from typing import Hashable, Sequence

from graphhop.core import Triple
from graphhop.kb.verbalize import INVERSE_SUFFIX

__all__ = ["canonical_triple", "canonical_path", "assign_split", "grouped_splits"]



def canonical_triple(triple: Sequence[str]) -> Triple:
    """The base-direction reading of a triple: ``(x, r_inverse, y)`` -> ``(y, r, x)``."""
    h, r, t = triple
    if r.endswith(INVERSE_SUFFIX):
        return (t, r[: -len(INVERSE_SUFFIX)], h)
    return (h, r, t)


def canonical_path(path: Sequence[Sequence[str]]) -> str:
    """One string per chain, the same for the chain read forwards or backwards, in any direction."""
    forward = ["#".join(canonical_triple(t)) for t in path]
    return min("||".join(forward), "||".join(reversed(forward)))


def assign_split(key: str, seed: int, ratios: Sequence[int] = (8, 1, 1)) -> str:
    """``train``/``dev``/``test`` from ``md5(seed:key)`` with the given integer ratios."""
    bucket = int(hashlib.md5(f"{seed}:{key}".encode()).hexdigest(), 16) % sum(ratios)
    if bucket < ratios[0]:
        return "train"
    return "dev" if bucket < ratios[0] + ratios[1] else "test"


def grouped_splits(
    items: Sequence[tuple[Hashable, str, Sequence[Sequence[Sequence[str]]]]], seed: int, ratios: Sequence[int] = (8, 1, 1)
) -> dict[Hashable, str]:
    """``{key: split}`` for ``(key, question, gold paths)`` items, grouped as the module says."""
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[str, int] = {}
    names: list[list[str]] = []
    for i, (_, question, paths) in enumerate(items):
        own = [canonical_path(p) for p in paths]
        names.append(own)
        for name in own + ["q:" + " ".join(question.lower().split())]:
            j = first.setdefault(name, i)
            if j != i:
                parent[find(i)] = find(j)
    group_key: dict[int, str] = {}
    for i, own in enumerate(names):
        root = find(i)
        mine = min(own) if own else "q:" + " ".join(items[i][1].lower().split())
        group_key[root] = min(group_key.get(root, mine), mine)
    return {items[i][0]: assign_split(group_key[find(i)], seed, ratios) for i in range(len(items))}
