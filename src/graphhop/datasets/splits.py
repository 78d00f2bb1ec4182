"""Leak-free splits: examples that share a question text or *any* gold path (read in either
direction) form one group, and each group goes to one split.

A triple and its inverse reading are one fact (``(x, r_inverse, y)`` is ``(y, r, x)``), and a chain
read backwards is the same chain, so paths are compared in a canonical form: each triple in its
base direction, the chain in whichever order sorts first. Groups are connected components
(union-find) over examples; a group's split comes from ``md5(seed:key)`` of its smallest path.
"""

from __future__ import annotations

import hashlib
from typing import Any, Hashable, Iterable, Mapping, Sequence

from graphhop.core import Triple
from graphhop.kb.verbalize import INVERSE_SUFFIX

__all__ = ["canonical_triple", "canonical_path", "assign_split", "grouped_splits", "connected_groups",
           "record_chain_keys", "carve_selection"]

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
    names = [[canonical_path(p) for p in paths] for _, _, paths in items]
    roots = connected_groups([own + ["q:" + " ".join(question.lower().split())] for own, (_, question, _) in zip(names, items)])
    group_key: dict[int, str] = {}
    for i, own in enumerate(names):
        root = roots[i]
        mine = min(own) if own else "q:" + " ".join(items[i][1].lower().split())
        group_key[root] = min(group_key.get(root, mine), mine)
    return {items[i][0]: assign_split(group_key[roots[i]], seed, ratios) for i in range(len(items))}


def connected_groups(keys: Sequence[Iterable[Hashable]]) -> list[int]:
    """The group of each item (the index of its group's first item): items that share any key are in
    one group, transitively (connected components by union-find)."""
    parent = list(range(len(keys)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[Hashable, int] = {}
    for i, own in enumerate(keys):
        for key in own:
            j = first.setdefault(key, i)
            if j != i:
                a, b = find(i), find(j)
                parent[max(a, b)] = min(a, b)
    return [find(i) for i in range(len(keys))]


def record_chain_keys(record: Mapping[str, Any]) -> list[str]:
    """What ties a builder record to others: its question text, every fact on its gold graph's nodes
    (base direction) and every gold sentence. Two records with the same gold chain share all of its
    facts, so records sharing no key share no chain."""
    keys = ["q:" + " ".join(str(record.get("question", "")).lower().split())]
    for node in (record.get("graph") or {}).get("nodes", []):
        if node.get("kind", "evidence") != "evidence":
            continue
        keys += ["f:" + "#".join(canonical_triple(f)) for f in node.get("facts") or []]
        text = " ".join(str(node.get("text", "")).lower().split())
        if text:
            keys.append("t:" + text)
    return keys


def carve_selection(records: Sequence[Mapping[str, Any]], every: int = 10,
                    limit: int | None = None) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """``(select, rest)``: a chain-disjoint carve of training records for choosing things on.

    Records are grouped by :func:`record_chain_keys` (:func:`connected_groups`); every ``every``-th group,
    in order of first appearance, goes to ``select`` while it fits in ``limit`` records, every other group
    to ``rest``. A group is never split between the parts, so no question text, gold fact or gold
    sentence — hence no chain — is in both. Both parts keep the records' order.
    """
    if every < 2:
        raise ValueError(f"every must be at least 2, got {every}")
    members: dict[int, list[int]] = {}
    for i, root in enumerate(connected_groups([record_chain_keys(r) for r in records])):
        members.setdefault(root, []).append(i)  # roots are first members: groups in order of first appearance
    chosen: list[int] = []
    for g, idx in enumerate(members.values()):
        if g % every == 0 and (limit is None or len(chosen) + len(idx) <= limit):
            chosen += idx
    picked = set(chosen)
    return [records[i] for i in sorted(picked)], [r for i, r in enumerate(records) if i not in picked]
