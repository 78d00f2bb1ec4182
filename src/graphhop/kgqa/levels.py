"""Place levels: which end of a containment chain a level noun asks for ("which **region** is X in").

Answer typing (:mod:`graphhop.kgqa.end_type`) fits the asked noun to each candidate end from the entity's
relations, and cannot tell a town from its region: both are ``located in`` something and have things located in
them, and the town inherits ``region`` from the schema analogy. Here the levels come from the KB's structure.

*Containment relations* are the KB's functional many-to-one relations to entities (every subject has one
object, objects are fewer than subjects, and they are not numbers): ``located in``, ``country``, ``region``,
``born in`` alike. An entity's *height* (:meth:`Containment.height`) is the longest chain of such steps above
it: a country with nothing above it is 0, a region in a country 1, a town in a region 2 (a thing contained in
something that is itself contained is lower). The heights of two entities are comparable when one is reached
from the other by these steps, which is all this module compares: a path's end and its containers one or two
steps up the same chain (or the scorer's own path above it, when answer typing cut that back).

A level noun of English (:data:`LEVELS`: ``country`` 0; ``region`` / ``province`` / ``state`` 1; ``county`` /
``district`` 2) names how many levels lie above the asked place in a country-rooted hierarchy. When the end
answer typing chose is lower than the asked height and one of its containers on the chain is at it,
:func:`level_move` answers with that one. It never moves down: a KB with no country level gives its regions
height 0, and "which region" must not then move to the towns (height 1); an end above the asked level is left
to answer typing. A container whose name carries the asked noun (``Tarrow Valley`` for "which **valley**") is
taken before the heights are read, for a place noun (:data:`PLACE_NOUNS`; any noun until session 15), or for any
noun when the KB says the path's own ends are not of its type (the members of a court for "which higher **court**"):
a KB often names a place or a body by its kind, and a festival named for films is no film. Settlement nouns
(town, city, village) are not levels here: their height depends on how deep a KB goes (session 14, kgp14).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kgqa.end_type import singular
from graphhop.kgqa.paths import RelPath, successors
from graphhop.read.ops import parse_number

__all__ = ["LEVELS", "PLACE_NOUNS", "level_of", "Containment", "climbs", "level_move", "level_climb", "Places", "places"]

#: How many levels of a country-rooted hierarchy lie above a place named by the noun (general English).
LEVELS: dict[str, int] = {
    **dict.fromkeys("country nation kingdom republic".split(), 0),
    **dict.fromkeys("region province state canton territory oblast governorate voivodeship".split(), 1),
    **dict.fromkeys("county district prefecture shire".split(), 2),
}
#: Nouns of English that name a place a containment chain may hold (the levels, settlements, land features): only
#: these take a container by its name (:func:`level_move`). "Which **films** premiered at the festival run by X"
#: asks for films, not for the ``X Film Festival`` above them (session 15, kgt15).
PLACE_NOUNS = frozenset(LEVELS) | frozenset("""city town village hamlet settlement municipality commune parish borough
    suburb neighbourhood neighborhood quarter area zone department division locality valley island peninsula basin
    coast plain plateau highland lowland archipelago continent place location""".split())
#: A relation is functional when at least this share of its subjects have one object (a peak on a border has two
#: countries). Chosen by leave-one-KB-out over the 21 selection KBs from {0.5, 0.6, 0.75, 0.9, 1.0} (ties: the
#: middle value): 0.6 on 20 folds, 0.75 on kg_peaks's; 0.9 and 1.0 lose kg_peaks's two (session 14, kgp14).
FUNCTIONAL = 0.6
#: Height is counted up to this many steps (and cycles are cut).
MAX_HEIGHT = 6


def level_of(noun: str | None) -> int | None:
    """The height :data:`LEVELS` gives the asked noun's last word (``wine region`` -> 1), or None."""
    if not noun:
        return None
    return LEVELS.get(singular(noun.split()[-1]))


class Containment:
    """The KB's containment relations and the heights of its entities (see the module docstring)."""

    def __init__(self, store: KGStore) -> None:
        self.store = store
        self.relations = self._containment_relations()
        self._height: dict[int, int] = {}

    def _containment_relations(self) -> frozenset[int]:
        """Functional, many-to-one relations whose objects are entities, not numbers."""
        s = self.store
        out = set()
        for r in np.unique(s.rels).tolist():
            edges = np.nonzero(s.rels == r)[0]
            heads, counts = np.unique(s.heads[edges], return_counts=True)
            tails = np.unique(s.tails[edges])
            if len(tails) >= len(heads) or float(np.mean(counts == 1)) < FUNCTIONAL:
                continue
            sample = tails[:: max(1, len(tails) // 20)].tolist()
            if all(parse_number(s.entities[t]) is None for t in sample):
                out.add(int(r))
        return frozenset(out)

    def up(self, entity: int) -> list[int]:
        """The entities one containment step above ``entity``."""
        edges = self.store.edges_of(np.asarray([entity]), True)
        keep = [e for e in edges.tolist() if int(self.store.rels[e]) in self.relations]
        return [int(self.store.tails[e]) for e in keep]

    def height(self, entity: int, _seen: frozenset = frozenset()) -> int:
        """The longest chain of containment steps above ``entity`` (cycles cut, at most :data:`MAX_HEIGHT`)."""
        got = self._height.get(entity)
        if got is not None:
            return got
        if len(_seen) >= MAX_HEIGHT:
            return 0
        seen = _seen | {entity}
        got = max((1 + self.height(t, seen) for t in self.up(entity) if t not in seen), default=0)
        if not _seen:
            self._height[entity] = got
        return got

    def level(self, ends: Sequence[int], sample: int = 5) -> int | None:
        """The height most of (the first ``sample`` of) ``ends`` have, or None when there are none."""
        ids = list(ends)[:sample]
        return Counter(self.height(e) for e in ids).most_common(1)[0][0] if ids else None

    def above(self, lower: Sequence[int], upper: Sequence[int], steps: int = 3) -> bool:
        """Whether every one of ``upper`` is reached from some of ``lower`` by 1..``steps`` containment steps."""
        want, frontier, reached = set(upper), set(lower), set()
        for _ in range(steps):
            frontier = {t for e in frontier for t in self.up(e)}
            reached |= frontier
        return bool(want) and want <= reached


def store_cached(kgqa: Any, attr: str, build: Any) -> Any:
    """``build(kgqa.store)``, built on first use and kept on the pipeline object as ``attr`` (rebuilt for a new store)."""
    got = getattr(kgqa, attr, None)
    if got is None or got.store is not kgqa.store:
        got = build(kgqa.store)
        setattr(kgqa, attr, got)
    return got


def containment(kgqa: Any) -> Containment:
    """The pipeline's :class:`Containment`, built on first use and kept on the pipeline object."""
    return store_cached(kgqa, "_containment", Containment)


def _chain(kgqa: Any, path: RelPath, others: Sequence[RelPath]) -> list[RelPath]:
    """Candidate ends above ``path``'s on its containment chain: ``others`` (the scorer's best path, which answer
    typing may have cut back) and their prefixes whose ends contain ``path``'s, and ``path`` walked on by one or
    two containment steps (within ``max_hops``)."""
    box = containment(kgqa)
    ends = path.ends.tolist()
    out: list[RelPath] = []
    for p in others:
        for n in range(1, len(p.steps) + 1):
            q = RelPath(p.steps[:n], p.layers[: n + 1], score=path.score)
            if q.steps != path.steps and box.above(ends, q.ends.tolist()):
                out.append(q)
    for hop in climbs(kgqa, path):
        out += hop
    return out


def climbs(kgqa: Any, path: RelPath, steps: int = 2) -> list[list[RelPath]]:
    """``path`` walked on by forward containment steps (within the pipeline's ``max_hops``), one list per step
    (1..``steps``): the containers above its ends. Read by :func:`_chain` and :func:`graphhop.kgqa.contain.climbed`."""
    box, out, frontier = containment(kgqa), [], [path]
    for _ in range(steps):
        frontier = [RelPath(p.steps + ((rel, fwd),), p.layers + [reached], score=path.score)
                    for p in frontier if len(p.steps) < kgqa.max_hops
                    for (rel, fwd), reached in successors(kgqa.store, p) if fwd and rel in box.relations]
        out.append(frontier)
    return out


def named_by(store: KGStore, noun: str, ends: Sequence[int], sample: int = 5) -> bool:
    """Whether most of (the first ``sample`` of) ``ends`` carry the noun's last word in their names (``Tarrow
    Valley`` for ``valley``, ``Vorle Canton`` for ``canton``): a KB often names a place by its kind."""
    word = singular(noun.split()[-1])
    ids = list(ends)[:sample]
    hits = sum(word in {singular(w) for w in re.findall(r"[a-z]+", store.entities[e].lower())} for e in ids)
    return bool(ids) and 2 * hits > len(ids)


def _not_of_type(kgqa: Any, noun: str, path: RelPath) -> bool:
    """Whether the KB says ``path``'s ends are not of the noun's type (:func:`graphhop.kgqa.veto.judge`: the
    members of a court are no court)."""
    from graphhop.kgqa.veto import judge

    return getattr(kgqa, "typer", None) is not None and judge(kgqa, ("noun", noun), path.ends.tolist()) < 0


def level_move(kgqa: Any, path: RelPath, noun: str | None, others: Sequence[RelPath] = (),
               topic: Sequence[int] = ()) -> RelPath | None:
    """The nearest container of ``path``'s ends on their containment chain (:func:`_chain`) that the asked noun
    names: by name, when the noun is a place noun (:data:`PLACE_NOUNS`) or the KB says ``path``'s ends are not of
    its type (:func:`_not_of_type`), most of its ends carry it in their names and ``path``'s do not (:func:`named_by`),
    else at the height the asked level noun names (:func:`level_of`) when ``path``'s own ends are lower; None
    otherwise. Only upward: ends at or above the asked height stay (a KB whose top level is its regions gives
    them height 0, and "which region" must not then move down to the towns). Never to ends that are only the
    ``topic``'s entities."""
    if not noun or not len(path.ends) or named_by(kgqa.store, noun, path.ends.tolist()):
        return None
    box, want = containment(kgqa), level_of(noun)
    chain = [q for q in _chain(kgqa, path, others) if not kgqa.is_value(q) and not set(q.ends.tolist()) <= set(topic)]
    by_name = singular(noun.split()[-1]) in PLACE_NOUNS or _not_of_type(kgqa, noun, path)
    hits = [q for q in chain if by_name and named_by(kgqa.store, noun, q.ends.tolist())]
    have = box.level(path.ends.tolist())
    if not hits and want is not None and have is not None and have > want:
        hits = [q for q in chain if box.level(q.ends.tolist()) == want]
    if not hits:
        return None
    return min(hits, key=lambda q: (abs(len(q.steps) - len(path.steps)), len(q.steps)))


def level_climb(kgqa: Any, path: RelPath, moved: RelPath, noun: str | None) -> bool:
    """Whether ``moved`` is ``path`` walked on by forward containment steps only, to ends at the height the asked
    level noun names (:func:`level_of`): the KB's own structure then finishes the chain ("in which **country** was
    the cheesemaker of X born": the town, its region, its country), and the scorer's reluctance to read a fourth hop
    (:data:`graphhop.kgqa.ops.STOP_GAP`) does not refuse it. Off with ``kgqa.level_climb`` False (session 18, kge18)."""
    want, n = level_of(noun), len(path.steps)
    if not getattr(kgqa, "level_climb", False) or want is None or len(moved.steps) <= n or moved.steps[:n] != path.steps:
        return False
    box = containment(kgqa)
    return all(fwd and rel in box.relations for rel, fwd in moved.steps[n:]) and box.level(moved.ends.tolist()) == want


#: Last words of a relation name that make its objects places (``located in``, ``based at``), and head nouns that
#: name a place (``country``, ``home town``): a containment relation so named is *locative*.
_LOCATIVE = frozenset("in at within inside".split())
_PLACE_WORDS = frozenset("located location country region city town village place province state county".split())


class Places:
    """The entities the KB treats as places: objects of its locative relations (:meth:`locative`), that is of a
    containment relation (:class:`Containment`) named by a locative preposition (``located in``, ``born in``), or of
    any relation whose name holds a place word (``location``, ``country``): what things are located in."""

    def __init__(self, store: KGStore) -> None:
        self.store = store
        box = Containment(store)
        rels = [r for r in range(len(store.relations)) if self.locative(store.relations[r], r in box.relations)]
        self.entities = frozenset(store.tails[np.isin(store.rels, rels)].tolist()) if rels else frozenset()

    @staticmethod
    def locative(name: str, contains: bool) -> bool:
        """Whether a relation of this name is locative (``contains``: it is a containment relation)."""
        from graphhop.kb.verbalize import clean_relation

        words = [singular(w) for w in clean_relation(name).lower().split()]
        return bool(words) and ((contains and words[-1] in _LOCATIVE) or bool(set(words) & _PLACE_WORDS))


def places(kgqa: Any) -> Places:
    """The pipeline's :class:`Places`, built on first use and kept on the pipeline object."""
    return store_cached(kgqa, "_places", Places)
