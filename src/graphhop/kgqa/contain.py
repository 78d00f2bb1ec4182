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

from graphhop.kgqa.levels import containment
from graphhop.kgqa.paths import RelPath, chains, successors

__all__ = ["chain_nodes", "climbs_over", "climbed", "prefix"]


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
    """The hop ``k`` (1 <= k < len(path)) at which every chain from the topic to ``hit`` along ``path`` climbs to a
    container of ``hit`` (an entity ``hit`` reaches by containment steps up, itself reached by a step up from the
    entity before it) and then goes on, back down to ``hit``; None when some chain does not (or ``path`` is short)."""
    if len(path.steps) < 2:
        return None
    box, store, first = containment(kgqa), kgqa.store, None
    for chain in chains(store, path, hit):
        nodes = chain_nodes(store, path, chain)
        k = next((i for i in range(1, len(nodes) - 1)
                  if box.above([hit], [nodes[i]]) and box.above([nodes[i - 1]], [nodes[i]])), None)
        if k is None:
            return None
        first = k if first is None else min(first, k)
    return first


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
    frontier = [path]
    for _ in range(steps):
        nxt = [RelPath(p.steps + ((rel, fwd),), p.layers + [reached], score=path.score)
               for p in frontier if len(p.steps) < kgqa.max_hops
               for (rel, fwd), reached in successors(kgqa.store, p) if fwd and rel in box.relations]
        hit = [p for p in nxt if claimed & set(p.ends.tolist())]
        if hit:
            return hit[0]
        frontier = nxt
    return None
