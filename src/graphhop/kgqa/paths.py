"""Hop-by-hop expansion over a whole KB: relation paths from the topic entities, and their chains.

A *relation path* is a sequence of signed relations (``directed_by`` forward, then ``directed_by``
backward, ...). Walking it from the topic entities over the :class:`~graphhop.kb.store.KGStore`
gives one entity set per hop; the last set holds the path's answers. :func:`expand` enumerates
every signed relation available from the current set, scores the new paths (a callback: the
trained scorer), keeps the ``beam`` best of each length for the next hop, and returns every path
it scored, so a 1-hop path competes with its 3-hop extensions (the scorer decides when to stop).
:func:`chains` walks back from one answer to the topic and returns the KB edges on the way: the
support of that answer is exactly those facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import numpy as np

from graphhop.kb.store import KGStore

__all__ = ["RelPath", "successors", "expand", "chains", "path_signature"]

SignedRelation = tuple[int, bool]


@dataclass
class RelPath:
    """A relation path from ``layers[0]`` (the topic entities); ``layers[i]`` = entities after hop i."""

    steps: tuple[SignedRelation, ...]
    layers: list[np.ndarray]
    score: float = float("-inf")
    extra: dict = field(default_factory=dict)

    @property
    def ends(self) -> np.ndarray:
        """Entity ids the path reaches (sorted, unique)."""
        return self.layers[-1]

    def __len__(self) -> int:
        return len(self.steps)

    def __eq__(self, other: object) -> bool:
        """Same steps, score, end sets and extras (arrays compared whole: the generated ``__eq__`` compared
        them element-wise and raised on end sets of different sizes, e.g. in ``path in reading.paths``)."""
        if self is other:
            return True
        if not isinstance(other, RelPath):
            return NotImplemented
        return (self.steps == other.steps and self.score == other.score and len(self.layers) == len(other.layers)
                and all(np.array_equal(a, b) for a, b in zip(self.layers, other.layers))
                and _same_extras(self.extra, other.extra))

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value (as the dataclass was)


def _same_extras(a: dict, b: dict) -> bool:
    """Two ``RelPath.extra`` dicts hold the same keys and values (arrays compared whole)."""
    if a.keys() != b.keys():
        return False
    for key, x in a.items():
        y = b[key]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def path_signature(store: KGStore, steps: Sequence[SignedRelation]) -> tuple[str, ...]:
    """``("directed_by", "^directed_by", ...)``: relation names, ``^`` marking a backward step."""
    return tuple(("" if fwd else "^") + store.relations[r] for r, fwd in steps)


def successors(store: KGStore, path: RelPath, max_nodes: int = 2000) -> Iterator[tuple[SignedRelation, np.ndarray]]:
    """One hop from ``path``: each signed relation leaving its end set (an end set over ``max_nodes``
    entities steps from its first ``max_nodes`` ids, a deterministic cut) with the entities it reaches
    (sorted, unique). The stepping of :func:`expand` and of answer typing's continuations
    (:mod:`graphhop.kgqa.end_type`); each caller decides which steps to keep."""
    cur = path.layers[-1][:max_nodes]
    for rel, fwd in store.signed_relations(cur):
        _, reached = store.step(cur, rel, fwd)
        yield (rel, fwd), np.unique(reached)


def expand(
    store: KGStore,
    topic: Sequence[int],
    score: Callable[[list[RelPath]], Sequence[float]] | None = None,
    max_hops: int = 3,
    beam: int = 10,
    max_nodes: int = 2000,
    max_paths: int = 400,
    back_to_start: bool = False,
    also: Callable[[list[RelPath]], list[RelPath]] | None = None,
    reorder: Callable[[list[RelPath]], list[RelPath]] | None = None,
) -> list[RelPath]:
    """Every relation path of 1..``max_hops`` steps from ``topic`` that the beam keeps, scored.

    Each hop extends the ``beam`` best paths of the previous length by every signed relation
    leaving their end set (sets over ``max_nodes`` entities are expanded from their first
    ``max_nodes`` ids, a deterministic cut). Without ``score`` every path scores 0 and at most
    ``max_paths`` paths of each length are kept (breadth-first order).

    A step that walks the previous relation straight back (``X directed_by D``, then ``^directed_by``)
    reaches the *other* entities that share it: the entities the previous step came from are left out
    ("the films that share a director with X" are not X; without this, a third hop answers with X's own
    year or cast), and a path left with nothing is dropped. ``back_to_start`` keeps them (before).
    ``also(new)`` (sorted best first) may name paths outside the beam that are extended too (the
    ``kgqa`` pipeline keeps the paths that use more of the relations the question names:
    :func:`graphhop.kgqa.cover.covering`). ``reorder(new)`` (sorted best first, more than ``beam`` of them) may
    reorder a hop's new paths before the beam is cut, scores unchanged (the ``kgqa`` pipeline's in-beam chain
    reranker: :meth:`graphhop.kgqa.rerank.ChainReranker.reorder_beam`); not called at the last hop, whose paths
    grow no further.
    """
    start = np.unique(np.asarray(topic, dtype=np.int64))
    frontier = [RelPath((), [start])]
    out: list[RelPath] = []
    for hop in range(max_hops):
        new: list[RelPath] = []
        for p in frontier:
            for (rel, fwd), ends in successors(store, p, max_nodes):
                if not back_to_start and p.steps and p.steps[-1] == (rel, not fwd):
                    ends = ends[~np.isin(ends, p.layers[-2])]
                    if not len(ends):
                        continue
                new.append(RelPath(p.steps + ((rel, fwd),), p.layers + [ends]))
        if not new:
            break
        if score is not None:
            for p, s in zip(new, score(new)):
                p.score = float(s)
            new.sort(key=lambda p: -p.score)
        else:
            for p in new:
                p.score = 0.0
            new = new[:max_paths]
        out += new
        if reorder is not None and score is not None and len(new) > beam and hop < max_hops - 1:
            new = reorder(new)
        frontier = new[:beam]
        if also is not None:
            kept = {id(p) for p in frontier}
            frontier += [p for p in also(new) if id(p) not in kept]
    return out


def chains(store: KGStore, path: RelPath, answer: int, limit: int = 20) -> list[list[int]]:
    """Edge-index chains from the topic to ``answer`` along ``path`` (at most ``limit``, sorted)."""
    partial: list[tuple[int, list[int]]] = [(answer, [])]
    for hop in range(len(path.steps) - 1, -1, -1):
        rel, fwd = path.steps[hop]
        allowed = path.layers[hop]
        nxt: list[tuple[int, list[int]]] = []
        for node, tail in partial:
            # edges of `rel` arriving at `node` in the walking direction
            edges, sources = store.step(np.asarray([node]), rel, not fwd)
            keep = np.isin(sources, allowed)
            for e in np.sort(edges[keep]):
                nxt.append((int(store.heads[e] if fwd else store.tails[e]), [int(e)] + tail))
                if len(nxt) >= limit * 4:
                    break
        partial = nxt[: limit * 4]
    return sorted(c for _, c in partial)[:limit]
