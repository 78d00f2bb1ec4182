"""Containment in yes/no claims (session 17, kga17): a place inside a place.

A claim such as "Is X headquartered in Y?" where the KB stores ``X head office C`` and ``C located in Y`` is proved
by climbing the KB's containment relations (:class:`graphhop.kgqa.levels.Containment`: functional, many-to-one,
``located in``, ``region``, ``head office`` alike) up from the place the subject's chain reaches
(:func:`climbed`). A chain that climbs *over* the claim, to a container of the claimed place, and comes back down
to it (``head office -> located in -> capital``: the capital of the country the office is in; ``located in ->
^located in``: another town of that country) proves nothing about the claim (:func:`climbs_over`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from graphhop.kgqa.levels import climbs, containment
from graphhop.kgqa.paths import RelPath, chains

__all__ = ["chain_nodes", "climbs_over", "siblings", "climbed", "prefix"]


def chain_nodes(store: Any, path: RelPath, chain: Sequence[int]) -> list[int]:
    """The entities an edge chain along ``path`` passes, from the topic to its end."""
    nodes: list[int] = []
    for (_, fwd), e in zip(path.steps, chain):
        head, tail = int(store.heads[e]), int(store.tails[e])
        if not nodes:
            nodes.append(head if fwd else tail)
        nodes.append(tail if fwd else head)
    return nodes


def climbs_over(kgqa: Any, path: RelPath, hit: int) -> int | None:
    """The hop ``k`` (2 <= k < len(path)) at which every chain from the topic to ``hit`` along ``path`` climbs past
    the place it first reached to a container of that place, from which the claim is a *sibling* of the place
    (:func:`siblings`: both directly in that container by one containment relation: another town of the same
    country), and goes on to ``hit``; None when some chain does not (or ``path`` is short). A chain that comes down
    from the first place it reaches (``start point -> ^headquarters location``: the team based in the city the race
    starts in) proves a shared place, and stands."""
    if len(path.steps) < 3:
        return None
    box, store, first = containment(kgqa), kgqa.store, None
    for chain in chains(store, path, hit):
        nodes = chain_nodes(store, path, chain)
        k = next((i for i in range(2, len(nodes) - 1) if siblings(box, nodes[i - 1], hit, nodes[i])), None)
        if k is None:
            return None
        first = k if first is None else min(first, k)
    return first


def siblings(box: Any, a: int, b: int, container: int) -> bool:
    """Whether ``a`` and ``b`` (two entities) are both directly in ``container`` by one containment relation."""
    if a == b:
        return False
    store = box.store

    def rels(e: int) -> set[int]:
        edges = store.edges_of(np.asarray([e], dtype=np.int64), True).tolist()
        return {int(store.rels[x]) for x in edges if int(store.tails[x]) == container and int(store.rels[x]) in box.relations}
    return bool(rels(a) & rels(b))


def prefix(path: RelPath, hops: int) -> RelPath | None:
    """``path``'s first ``hops`` steps (None for none)."""
    if hops < 1:
        return None
    return RelPath(path.steps[:hops], path.layers[: hops + 1], score=path.score)


def climbed(kgqa: Any, path: RelPath, claimed: set[int], steps: int = 2) -> RelPath | None:
    """``path`` walked on by 1..``steps`` forward containment steps (within the pipeline's ``max_hops``) to the
    claimed entity, nearest first, when ``path``'s own last step is one (``head office``, ``located in``: its ends
    are where the subject is); None when it reaches no claimed entity. "Is the archive in Norvaly?" is proved by
    ``located in`` (a town) then ``located in`` (the region)."""
    box = containment(kgqa)
    if not path.steps or not path.steps[-1][1] or path.steps[-1][0] not in box.relations:
        return None
    for hop in climbs(kgqa, path, steps):
        hit = [p for p in hop if claimed & set(p.ends.tolist())]
        if hit:
            return hit[0]
    return None
