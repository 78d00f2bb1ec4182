"""Answer-type nouns of entities in the *training* KBs, for synthetic noun-typed questions.

A user asks "In which **country** was X born?" and names the answer only by its type: the last
relation (``located in``) is never said. To teach the path scorer to continue to the hop whose end
has the asked type (and to stop there), :mod:`graphhop.kgqa.synthetic` generates questions that
name every relation but the last one and call the answer by a type noun. The nouns come from the
training KBs' own schema: the role an entity plays in a relation (the tail of ``nationality`` is a
country, the head of ``plays_in_club`` a player), Freebase type names (``__film__film__genre``:
the head is a film) and Freebase ``notable_types`` values. The tables below cover the relations of
the training KBs only (PathQuestion, PQL, WorldCup2014, MetaQA); no evaluation KB is read.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from graphhop.kb.store import KGStore

__all__ = ["TAIL_NOUNS", "HEAD_NOUNS", "entity_nouns", "set_nouns", "plural"]

#: Nouns for the tail of a relation (by its base name: the last ``__`` part of Freebase names).
TAIL_NOUNS: dict[str, tuple[str, ...]] = {
    "nationality": ("country", "nation"), "place_of_birth": ("city", "place", "town"),
    "place_of_death": ("city", "place"), "location": ("place", "location"), "containedby": ("place", "region"),
    "children": ("person",), "parents": ("person",), "spouse": ("person",), "people_born_here": ("person",),
    "profession": ("profession", "job", "occupation"), "religion": ("religion", "faith"), "ethnicity": ("ethnicity",),
    "gender": ("gender",), "cause_of_death": ("cause", "disease"), "institution": ("institution", "university", "school"),
    "plays_in_club": ("club", "team"), "plays_for_country": ("country", "nation", "national team"), "plays_position": ("position",),
    "is_in_country": ("country", "nation"), "directed_by": ("director", "person", "filmmaker"),
    "written_by": ("writer", "author", "person"), "starred_actors": ("actor", "star", "person"),
    "release_year": ("year",), "has_genre": ("genre",), "in_language": ("language",), "has_tags": ("tag", "topic"),
    "wears_number": ("number",), "is_aged": ("age",), "genre": ("genre",), "language": ("language",),
    "country": ("country", "nation"), "artist": ("artist", "musician"), "author": ("author", "writer", "person"),
    "label": ("label", "company"), "lyricist": ("lyricist", "person"), "produced_by": ("producer", "person"),
}
#: Nouns for the head of a relation (Freebase names add their type part: ``__film__film__genre`` -> film).
HEAD_NOUNS: dict[str, tuple[str, ...]] = {
    "directed_by": ("film", "movie"), "written_by": ("film", "movie"), "starred_actors": ("film", "movie"),
    "release_year": ("film", "movie"), "has_genre": ("film", "movie"), "in_language": ("film", "movie"),
    "has_tags": ("film", "movie"), "plays_in_club": ("player", "footballer"), "plays_for_country": ("player", "footballer"),
    "plays_position": ("player",), "wears_number": ("player",), "is_aged": ("player",), "is_in_country": ("club", "team"),
    "nationality": ("person",), "gender": ("person",), "spouse": ("person",), "place_of_birth": ("person",),
    "place_of_death": ("person",), "profession": ("person",), "religion": ("person",), "ethnicity": ("person",),
    "cause_of_death": ("person",), "children": ("person", "parent"), "parents": ("person", "child"),
}
_INVERSE = "_inverse"


def _parts(relation: str) -> tuple[str, str | None]:
    """(base name, Freebase type or None): ``__film__film__genre`` -> ("genre", "film")."""
    if relation.startswith("__") and relation.count("__") >= 3:
        _, _, ftype, prop = relation.split("__", 3)
        return prop, ftype.split("_")[-1]
    return relation, None


def _notable(value: str) -> str | None:
    words = value.lower().replace(".", "").split("_")
    if not words or not words[-1].isalpha():
        return None
    return "city" if words[:1] == ["city"] else words[-1]


def entity_nouns(store: KGStore, entity: int) -> set[str]:
    """Type nouns of one entity from the relations it takes part in (see the module docstring)."""
    out: set[str] = set()
    node = np.asarray([entity], dtype=np.int64)
    for forward in (True, False):
        for e in store.edges_of(node, forward).tolist():
            name = store.relations[store.rels[e]]
            inverse = name.endswith(_INVERSE)
            base, ftype = _parts(name[: -len(_INVERSE)] if inverse else name)
            as_head = forward != inverse
            if as_head:
                out.update(HEAD_NOUNS.get(base, ()))
                if ftype and ftype.isalpha():
                    out.add(ftype)
                if base == "notable_types":
                    out.update(n for n in [_notable(store.entities[store.tails[e]])] if n)
            else:
                out.update(TAIL_NOUNS.get(base, ()))
    return out


def set_nouns(store: KGStore, entities: Iterable[int], sample: int = 8, share: float = 0.5) -> set[str]:
    """Nouns that at least ``share`` of (the first ``sample`` of) ``entities`` have."""
    ids = list(entities)[:sample]
    if not ids:
        return set()
    counts: dict[str, int] = {}
    for e in ids:
        for n in entity_nouns(store, e):
            counts[n] = counts.get(n, 0) + 1
    return {n for n, c in counts.items() if c >= share * len(ids)}


def plural(noun: str) -> str:
    """English plural of a type noun (``city`` -> ``cities``, ``person`` -> ``people``)."""
    if noun == "person":
        return "people"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def _base_name(relation: str) -> str:
    return relation.replace("_", " ")


#: Peers (same forward relations) whose roles an entity's schema nouns pool; 0 = the entity's own only.
N_PEERS = 20
#: An inherited noun counts only when the asked noun is this close to it (MiniLM cosine: ``country`` /
#: ``nation`` .77, ``city`` / ``town`` .77; ``country`` / ``city`` .54, ``currency`` / ``country`` .42).
NOUN_MIN = 0.6


class SchemaNouns:
    """Type nouns of a user's KB entities by analogy with the training KBs' schema: each signed
    relation of an entity is matched (MiniLM cosine of the names) to the nearest training relation in
    the same role (``born in`` as a tail ~ ``place_of_birth`` -> city, place, town; ``citizen of`` ~
    ``nationality`` -> country, nation), whose nouns (:data:`TAIL_NOUNS`, :data:`HEAD_NOUNS`) the
    entity inherits, weighted by that cosine. :meth:`fit` is the best ``weight * cos(noun, inherited)``."""

    def __init__(self, scorer, store: KGStore) -> None:
        self.scorer = scorer
        self.store = store
        self._tail = (list(TAIL_NOUNS), scorer.word_vectors([_base_name(k) for k in TAIL_NOUNS]))
        self._head = (list(HEAD_NOUNS), scorer.word_vectors([_base_name(k) for k in HEAD_NOUNS]))
        self._nouns: dict[int, list[tuple[str, float]]] = {}
        self._roles: dict[tuple[int, bool], list[tuple[str, float]]] = {}
        self._classes: dict[frozenset, list[int]] | None = None
        self._key: dict[int, frozenset] = {}
        self.n_peers = N_PEERS
        self._fit: dict[tuple[str, int], float] = {}

    def role_nouns(self, rel: int, fwd: bool) -> list[tuple[str, float]]:
        """(noun, cosine) inherited from the training relation nearest to one signed relation."""
        from graphhop.kb.verbalize import clean_relation

        key = (rel, fwd)
        got = self._roles.get(key)
        if got is None:
            keys, mat = self._head if fwd else self._tail
            table = HEAD_NOUNS if fwd else TAIL_NOUNS
            sims = mat @ self.scorer.word_vectors([clean_relation(self.store.relations[rel])])[0]
            j = int(np.argmax(sims))
            got = self._roles[key] = [(n, float(sims[j])) for n in table[keys[j]]]
        return got

    def peers(self, entity: int) -> list[int]:
        """Up to ``peers`` other entities with exactly the same set of forward relations (a class:
        the countries all have a capital and a currency), when the entity has any."""
        if self._classes is None:
            keys: dict[int, set[int]] = {}
            for h, r in zip(self.store.heads.tolist(), self.store.rels.tolist()):
                keys.setdefault(h, set()).add(r)
            self._key = {e: frozenset(rs) for e, rs in keys.items()}
            self._classes = {}
            for e, k in self._key.items():
                self._classes.setdefault(k, []).append(e)
        k = self._key.get(entity)
        return [] if k is None else [e for e in self._classes[k] if e != entity][: self.n_peers]

    def nouns(self, entity: int) -> list[tuple[str, float]]:
        """(inherited noun, cosine of the relation match) pairs of one entity (and its peers)."""
        got = self._nouns.get(entity)
        if got is None:
            roles = set(self.store.signed_relations(np.asarray([entity])))
            if self.n_peers:
                for e in self.peers(entity):
                    roles.update(self.store.signed_relations(np.asarray([e])))
            got = self._nouns[entity] = [nw for rel, fwd in sorted(roles) for nw in self.role_nouns(rel, fwd)]
        return got

    def fit(self, noun: str, entity: int) -> float:
        """How well ``noun`` names the entity by the inherited nouns (0 when it inherits none)."""
        key = (noun, entity)
        fit = self._fit.get(key)
        if fit is None:
            got = self.nouns(entity)
            if not got:
                fit = 0.0
            else:
                cos = self.scorer.word_vectors([n for n, _ in got]) @ self.scorer.word_vectors([noun])[0]
                fit = float(max((w * c for (_, w), c in zip(got, cos.tolist()) if c >= NOUN_MIN), default=0.0))
            self._fit[key] = fit
        return fit
