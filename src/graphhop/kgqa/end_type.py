"""Answer typing by the asked noun: continue the best relation path to an end of that type.

"In which **country** was X born?" names the answer only by its type; the trained path scorer
reads ``born in`` in the question and stops at the birth *city*. This stage checks the end entities
of the best path against the asked noun (:func:`asked_noun`: ``country``, ``currency``, ``cities``
in ``how many cities ...``) and, when one or two more hops along the same chain reach entities that
fit the noun clearly better, answers from there (``born in`` -> ``located in``).

Whether a noun fits an entity is judged zero-shot from the user's own KB, with the bundled MiniLM:
the entity is described by its signed relations (``it has a currency``, ``it is the located in of
something``: a country has a currency and things are located in it; a city is located in something
and has a population), and :meth:`EndTyper.fit` is the best cosine between the noun and one of those
phrases plus the cosine between ``a <noun>`` and the whole description. The descriptions, the
two-hop window (one until session 3), the per-hop penalty and the margin were chosen on the selection KBs
(``tests/kgqa/data/kg_rivers``, ``kg_software``) and the demo KB, never on ``tests/regression``.

Session 4: MiniLM alone cannot tell a country from a city by their relations (``has a population`` and
``has a currency`` are equally close to ``country``), so the fit adds a *schema analogy* learned from
the training KBs' schema (:class:`~graphhop.kgqa.answer_types.SchemaNouns`: ``born in`` as a tail is
nearest ``place_of_birth`` -> city; ``citizen of`` ~ ``nationality`` -> country), pooled over the
entity's peers (entities with the same forward relations, so every country inherits what one country's
``citizen of`` says). The window is two hops, and a longer move must beat the best shorter one by the
margin too. Chosen on the selection KBs (kg_rivers, kg_software, kg_books, kg_music) and the demo KB.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.answer_types import SchemaNouns
from graphhop.kgqa.asked import compound_before_verb, noun_sides
from graphhop.kgqa.paths import RelPath, successors
from graphhop.kgqa.scorer import FUNCTION_WORDS
from graphhop.kgqa.type_head import TYPE_HEAD_MODES
from graphhop.read.ops import parse_number

__all__ = ["TypePhrase", "type_phrase", "asked_noun", "described_noun", "singular", "EndTyper", "Retyped",
           "retype"]

_ASK = frozenset("which what name list".split())
#: Auxiliaries that end the asked noun phrase (``which football club **does** X play for``; or the masked
#: entity itself, ``name a soccer club X``): the word before them is its head. Prepositions end it only
#: after ``name`` / ``list`` (``name a soccer club **in** X``): in a question the word before a preposition
#: is often a verb (``how many cities lie on``, ``which rivers rise at``).
_AUX = frozenset("does do did is was are were has have had".split())
_PREP = frozenset("in of for from at on by with".split())
#: Words between the cue (``which``, ``how many``, ...) and the type phrase; with them the adjectives that say
#: the things are told apart, not what they are ("how many **different** engineers designed ...": the type is
#: ``engineer``, not ``different``; session 12, kgl12).
_SKIP = frozenset("s is was are were the a an kind type sort of does do did different distinct various separate".split())
#: Quantifiers passed too when the pipeline reads the phrase ("name **all the** reservoirs ...", "list **every** game
#: ..."; session 17, kga17); not in the scorer's reading (``strip=False``), whose head was trained without them.
_QUANTIFIERS = frozenset("all every each".split())
#: Adjective endings: in ``what is the highest point`` / ``official languages`` the noun is the next word.
_ADJ_ENDINGS = ("est", "ial", "nal", "ous", "ive", "ful", "ern", "ese", "ish")
_STRIP = "?,.!;:'\"()"


#: Nouns in ``-ie`` whose plural ``-ies`` is not ``-y`` (``movies`` was read ``movy``); ``series``, ``species``
#: stay as they are.
_IE_NOUNS = frozenset("movie cookie zombie rookie calorie pixie prairie genie selfie smoothie goalie brownie "
                      "sortie hippie eyrie".split())
_SAME_PLURAL = frozenset("series species".split())


def singular(word: str) -> str:
    """``cities`` -> ``city``, ``countries`` -> ``country``, ``movies`` -> ``movie``, ``bridges`` -> ``bridge``,
    ``players`` -> ``player``."""
    if word in _SAME_PLURAL:
        return word
    if len(word) > 4 and word.endswith("ies"):
        return word[:-1] if word[:-1] in _IE_NOUNS else word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class TypePhrase:
    """The phrase that names the asked answer type in a (masked) question: ``tokens[start:end]``, its
    head noun at ``head`` (``in which **country** was X born``, ``which football **club** does``, ``how many
    official **languages**``); ``cue`` is the index of ``which``/``what``/``name``/``list``/``many``.
    ``start == end`` when the word after the cue names no type (``what is X``, ``which X``)."""

    tokens: tuple[str, ...]
    cue: int
    start: int
    head: int
    end: int

    @property
    def noun(self) -> str | None:
        """The head noun, singular (None when the phrase is empty)."""
        return singular(self.tokens[self.head]) if self.end > self.start else None

    @property
    def words(self) -> tuple[str, ...]:
        """The phrase's tokens, ``tokens[start:end]`` (empty when the phrase names no type)."""
        return self.tokens[self.start : self.end]

    @property
    def verb(self) -> str | None:
        """The word right after the phrase when it may be the verb whose subject the phrase names ("which
        **journalists write** for X", "which **company built** the train"): a content word that is no
        auxiliary, preposition or mask; None otherwise ("which country **was** X born in")."""
        if self.end <= self.start or self.end >= len(self.tokens):
            return None
        w = self.tokens[self.end]
        return w if _is_word(w) and w not in _AUX and w not in _PREP and w != "x" else None


def _is_word(w: str) -> bool:
    return w.isalpha() and w not in FUNCTION_WORDS


def type_phrase(text: str, strip: bool = True) -> TypePhrase | None:
    """The one parser of the asked type's phrase (:class:`TypePhrase`): after the first cue word, the
    words of :data:`_SKIP` (and, with ``strip``, :data:`_QUANTIFIERS`) are passed; the phrase is the first word, or an adjective and its noun
    (``official language``), or a compound whose head is followed by an auxiliary, the mask or (after
    ``name``/``list``) a preposition (``football club does``), or by its verb (``district superintendent
    oversees the``: :func:`graphhop.kgqa.asked.compound_before_verb`). None when the question has no cue word.
    ``strip=False`` keeps punctuation on the tokens (the scorer's :func:`~graphhop.kgqa.scorer.answer_noun`
    reads them so, as it was trained)."""
    toks = tuple(t.strip(_STRIP) if strip else t for t in text.lower().split())
    skip = _SKIP | _QUANTIFIERS if strip else _SKIP
    for i, w in enumerate(toks):
        if w in _ASK or (w == "many" and i > 0 and toks[i - 1] == "how"):
            j = i + 1
            while j < len(toks) and j < i + 6 and toks[j] in skip:
                j += 1
            if j >= min(len(toks), i + 6) or not _is_word(toks[j]):
                return TypePhrase(toks, i, j, j, j)
            nxt = toks[j + 1] if j + 1 < min(len(toks), i + 6) else ""
            after = toks[j + 2] if j + 2 < min(len(toks), i + 6) else ""
            ends = _AUX | {"x"} | (_PREP if w in ("name", "list") else frozenset())
            if not toks[j].endswith(_ADJ_ENDINGS) and _is_word(nxt) and nxt not in _AUX and after in ends and not (
                    after == "x" and _verb_before_mask(toks[j], nxt, w)) and not (strip and _participle(nxt)):
                return TypePhrase(toks, i, j, j + 1, j + 2)  # a compound names its head last
            n = compound_before_verb(toks[j : j + 5])
            if n:
                return TypePhrase(toks, i, j, j + n - 1, j + n)  # ... also before its verb (session 16)
            if toks[j].endswith(_ADJ_ENDINGS) and _is_word(nxt):
                return TypePhrase(toks, i, j, j + 1, j + 2)
            return TypePhrase(toks, i, j, j, j + 1)
    return None


def _participle(word: str) -> bool:
    """Whether a word after the asked noun is a past participle that opens a clause, not a compound's head ("list
    every game **made** by ...", "name the dams **designed** by ..."): ``-ed`` (not ``-eed``) or ``made``. Session 17."""
    return word == "made" or (len(word) > 4 and word.endswith("ed") and not word.endswith("eed"))


def _verb_before_mask(first: str, second: str, cue: str) -> bool:
    """Whether ``first second X`` after a cue is a subject and its verb, not a compound noun: a plural first
    word ("which **orchards grow** X", "which airports serve X": a compound's modifier is singular), or after
    ``which``/``what`` a second word in ``-s`` ("which **winery produces** X"). Session 11 (kgw12)."""
    return singular(first) != first or (cue in ("which", "what") and second.endswith("s") and not second.endswith("ss"))


def asked_noun(text: str, phrase: bool = False) -> str | None:
    """The noun that names the asked type in a (masked) question, singular: the head of
    :func:`type_phrase` (``in which country`` -> ``country``, ``what is the highest point of`` -> ``point``,
    ``how many official languages`` -> ``language``); None when the question names no type (``who``,
    ``when``, ``what is X``). With ``phrase`` an adjective stays with its noun (``national team``,
    ``official language``)."""
    got = type_phrase(text)
    if got is None or got.noun is None:
        return None
    adjective = got.head > got.start and got.tokens[got.start].endswith(_ADJ_ENDINGS)
    return f"{got.tokens[got.start]} {got.noun}" if phrase and adjective else got.noun


class EndTyper:
    """Zero-shot fit of a type noun to KB entities (see the module docstring); caches per store."""

    def __init__(self, scorer: Any, store: KGStore, sample: int = 5, desc_weight: float = 1.0,
                 type_head: str = "off") -> None:
        if type_head not in TYPE_HEAD_MODES:
            raise ValueError(f"type_head must be one of {', '.join(TYPE_HEAD_MODES)} (got {type_head!r})")
        self.scorer = scorer
        self.store = store
        self.sample = sample
        self.desc_weight = desc_weight
        self._roles: dict[int, tuple[list[str], str]] = {}
        self._fit: dict[tuple[str, int], float] = {}
        self._desc: dict[int, np.ndarray] = {}
        self.schema = SchemaNouns(scorer, store)
        self._named: dict[str, tuple[set[int], set[int]]] = {}
        self._words: Any = None  # the KB's RelationWords, built on first use
        self.type_head = type_head  # the trained type head (graphhop.kgqa.type_head): off, add or only
        self._head: Any = None

    def noun_role(self, noun: str, ends: Sequence[int]) -> int | None:
        """Whether the ends are of the noun's type by a relation the noun *names* (``publisher`` / ``published
        by``, ``currency`` / ``currency``; :class:`~graphhop.kgqa.scorer.RelationWords`): +1 when some end is
        the object of such a relation (a publisher is what something is published by), -1 when none is but
        some is its subject (a book *has* a publisher; it is not one), else 0 (the sides swap for a relation that
        names its subject: ``superintendent of``, :func:`~graphhop.kgqa.asked.names_subject`); None when the noun
        names no relation of the KB."""
        got = self._named.get(noun)
        if got is None:
            rels = [r for r in self.relations_named(noun) if not self.owner_relation(noun, r)]
            got = self._named[noun] = noun_sides(self.store, rels, noun)  # ``superintendent of``: subjects (s16)
        tails, heads = got
        ids = set(int(e) for e in ends)
        if not tails:
            return None
        if not ids:
            return 0
        if ids & tails:
            return 1
        return -1 if ids & heads else 0

    def relations_named(self, noun: str) -> list[int]:
        """Ids of the KB relations ``noun`` (its last word) names (:class:`~graphhop.kgqa.scorer.RelationWords`)."""
        if self._words is None:
            from graphhop.kgqa.scorer import RelationWords

            self._words = RelationWords(self.store.relations)
        return self._words.relations_named(self._words.stems(noun.split()[-1]))

    def owner_relation(self, noun: str, rel: int) -> bool:
        """Whether ``rel`` names the *owner* of its values by ``noun``: the noun modifies its name (:func:`modifies`:
        ``grape colour``) and every object of ``rel`` is a bare value, an entity with no fact but ``rel``'s and no
        number (``red``, ``white``). The relation then gives a grape's colour: its subjects are of the noun's
        kind, its objects are not. A relation whose objects have facts of their own (``capital city``, ``hub
        airport``: a capital and a hub are things of the KB) is not one: there the modifier may describe the object."""
        from graphhop.kgqa.owner import modifies

        if not modifies(noun, self.store.relations[rel]):
            return False
        edges = np.nonzero(self.store.rels == rel)[0]
        tails = np.unique(self.store.tails[edges]).tolist()
        own = np.bincount(self.store.tails[edges], minlength=len(self.store.entities))
        return bool(tails) and all(self.store.degree(t) == own[t] and parse_number(self.store.entities[t]) is None
                                   for t in tails)

    def roles(self, entity: int) -> tuple[list[str], str]:
        """(role phrases, description) of an entity from its signed relations."""
        got = self._roles.get(entity)
        if got is None:
            phrases, plain = set(), set()
            for rel, fwd in self.store.signed_relations(np.asarray([entity])):
                name = clean_relation(self.store.relations[rel])
                phrases.add(f"it has a {name}" if fwd else f"it is the {name} of something")
                plain.add(name if fwd else "^" + name)
            got = self._roles[entity] = (sorted(phrases), "; ".join(sorted(plain)))
        return got

    def entity_fit(self, noun: str, entity: int) -> float:
        """How well ``noun`` fits one entity: best role-phrase cosine + description cosine + schema analogy;
        with ``type_head`` the trained head's probability replaces (``only``) or joins (``add``) them."""
        key = (noun, entity)
        fit = self._fit.get(key)
        if fit is None:
            fit = 0.0 if self.type_head == "only" else self._zero_shot(noun, entity)
            if self.type_head != "off":
                if self._head is None:
                    from graphhop.kgqa.type_head import KBTypeFit, TypeHead

                    self._head = KBTypeFit(TypeHead.load(), self.store, self.scorer.word_vectors)
                fit += HEAD_WEIGHT * self._head.fit(noun, entity)
            self._fit[key] = fit
        return fit

    def _zero_shot(self, noun: str, entity: int) -> float:
        phrases, desc = self.roles(entity)
        if not phrases:
            return 0.0
        nv = self.scorer.word_vectors([noun])[0]
        best = float((self.scorer.word_vectors(phrases) @ nv).max())
        dv = self._desc.get(entity)
        if dv is None:
            dv = self._desc[entity] = self.scorer.word_vectors([desc])[0]
        fit = best + self.desc_weight * float(dv @ self.scorer.word_vectors([f"a {noun}"])[0])
        return fit + SCHEMA_WEIGHT * self.schema.fit(noun, entity)

    def fit(self, noun: str, ends: Sequence[int]) -> float:
        """Mean :meth:`entity_fit` over (the first ``sample`` of) a path's end entities."""
        ids = list(ends)[: self.sample]
        return float(np.mean([self.entity_fit(noun, e) for e in ids])) if ids else 0.0

    def name_fit(self, noun: str, ends: Sequence[int]) -> float:
        """Mean MiniLM cosine between ``a <noun>`` and the names of (the first ``sample`` of) the end entities
        (``St. Alder Hospital`` .67 for ``hospital``, the city ``Kesh`` .22): the evidence left when two end
        sets play the same roles (both are ``located in`` something; :func:`retype`'s repeated relation)."""
        ids = list(ends)[: self.sample]
        if not ids:
            return 0.0
        names = [self.store.entities[e].replace("_", " ") for e in ids]
        return float(np.mean(self.scorer.word_vectors(names) @ self.scorer.word_vectors([f"a {noun}"])[0]))


@dataclass
class Retyped:
    """The path answering the asked type: ``path`` (the best one when nothing fits better)."""

    path: RelPath
    noun: str | None
    moved: int = 0
    fit_before: float = 0.0
    fit_after: float = 0.0


def _continuations(store: KGStore, path: RelPath, extra: int, max_nodes: int = 2000, room: int | None = None) -> list[RelPath]:
    """Paths that extend ``path`` by 1..``extra`` signed relations, never stepping straight back
    and never ending only on entities the path has already visited. With ``room`` (at least ``extra``), a step
    that walks the previous step's signed relation again (``located in → located in``: up a containment chain,
    town -> region -> country) does not count against ``extra``, only against ``room`` (all new steps)."""
    room = extra if room is None else max(room, extra)
    out, frontier = [], [(path, 0)]
    for _ in range(room):
        new = []
        for p, used in frontier:
            seen = set(np.concatenate(p.layers).tolist())
            for (rel, fwd), ends in successors(store, p, max_nodes):
                if (p.steps and p.steps[-1] == (rel, not fwd)) or set(ends.tolist()) <= seen:
                    continue
                cost = used + (0 if len(p.steps) > len(path.steps) and p.steps[-1] == (rel, fwd) else 1)
                if cost <= extra:
                    new.append((RelPath(p.steps + ((rel, fwd),), p.layers + [ends], score=path.score), cost))
        out += [p for p, _ in new]
        frontier = new
    return out


#: Typing window: how many hops answer typing may continue the scorer's path (within ``max_hops``).
#: Two (session 4): "What currency is used in the country where the director of X was born?" stops
#: at ``born in``; the currency is ``located in`` -> ``currency`` further. Chosen on the selection KBs.
WINDOW = 2
#: ``EndTyper(type_head=...)`` (:data:`~graphhop.kgqa.type_head.TYPE_HEAD_MODES`): the zero-shot fit alone (off), plus the head's probability
#: x :data:`HEAD_WEIGHT` (add), or the head's probability alone (only). Session 6 (typ12).
HEAD_WEIGHT = 1.0
#: Weight of the schema-analogy fit (:class:`~graphhop.kgqa.answer_types.SchemaNouns`) in :meth:`EndTyper.entity_fit`.
SCHEMA_WEIGHT = 1.0


def _repeats(path: RelPath, cand: RelPath) -> bool:
    """Whether ``cand`` continues ``path`` only by walking its last signed relation again (``^located in →
    ^located in``: "how many **stations** are located in X" counts what is located in X's cities). Such a
    move asks no relation the question does not name, so :func:`retype` charges it no hop penalty; and since
    both end sets play the same role (located in something), it compares them by their names as well
    (:meth:`EndTyper.name_fit`). Chosen on the selection KBs (rw16, hs16)."""
    n = len(path.steps)
    return n > 0 and len(cand.steps) > n and cand.steps[:n] == path.steps and all(s == path.steps[-1] for s in cand.steps[n:])


def retype(typer: EndTyper, path: RelPath, noun: str | None, max_hops: int, extra: int | None = None,
           hop_penalty: float = 0.08, margin: float = 0.08,
           numeric: Callable[[RelPath], bool] | None = None, rivals: Sequence[tuple[RelPath, int]] = (),
           against: str | None = None) -> Retyped:
    """The continuation of ``path`` by up to ``extra`` hops (default :data:`WINDOW`), or one of ``rivals``
    (other paths of the reading that ask as much of the question, with the hops each counts as moved:
    :func:`graphhop.kgqa.cover.rivals`), whose ends fit ``noun`` best, when it beats the path's own ends by ``margin`` after
    ``hop_penalty`` per hop moved; else ``path`` itself. Paths that end at literals (``numeric``: years,
    counts) are never moved to, nor away from: a type noun names a thing, and a path the scorer chose to end
    at a value answers a question about that value. A noun that names a relation of the KB decides by it
    (:meth:`EndTyper.noun_role`): ends that are its objects stay; ends that are only its subjects are never
    moved to (the books a publisher published are not publishers), and a value the noun does not name is left
    for an end of that relation only ("what **currency** is used in the country where X was formed": not
    ``year formed``). With ``against`` (the noun the question gives another entity of the chain: "which
    astronauts flew on **the mission** launched in X"), fits are contrasted: the noun's fit less ``against``'s,
    so the entity the question calls a mission is not taken for an astronaut (:func:`described_noun`)."""
    extra = WINDOW if extra is None else extra
    if against is not None:
        typer = _Contrast(typer, against)
    if noun is None:
        return Retyped(path, None)
    role = typer.noun_role(noun, path.ends.tolist())
    value = numeric is not None and numeric(path)
    if value and (role is None or role > 0):
        return Retyped(path, noun)  # the scorer's path reads a value (``jersey number``): no type noun to move for
    base = typer.fit(noun, path.ends.tolist())
    if role is not None and role > 0:
        return Retyped(path, noun, 0, base, base)
    room = max(0, max_hops - len(path.steps))
    cands = list(rivals) + [(p, len(p.steps) - len(path.steps))
                            for p in _continuations(typer.store, path, min(extra, room), room=room)]
    cands.sort(key=lambda c: c[1])  # nearest first: a farther move must beat a nearer one by the margin
    if role is not None and role < 0:  # the ends only *have* what the noun names (a country has a capital)
        owned = _owned(typer, noun, path, cands)
        if owned is not None:
            return Retyped(owned[0], noun, owned[1], base, typer.fit(noun, owned[0].ends.tolist()))
    best, best_adj, best_fit, moved = path, base, base, 0
    for cand, hops in cands:
        cand_role = typer.noun_role(noun, cand.ends.tolist())
        if (numeric is not None and numeric(cand)) or (cand_role is not None and cand_role < 0):
            continue
        if value and cand_role != 1:
            continue  # from a value only to the noun's own relation ("what currency ...": not ``year formed``)
        fit = typer.fit(noun, cand.ends.tolist())
        adj = fit - hop_penalty * hops
        if _repeats(path, cand):  # the same relation walked on: no unasked hop, and the names tell the ends apart
            adj = fit + typer.name_fit(noun, cand.ends.tolist()) - typer.name_fit(noun, path.ends.tolist())
        # a longer move must beat the best shorter one by the margin too (the nearest end of the type)
        extra_margin = margin if best is not path and hops > moved else 0.0
        if adj > best_adj + extra_margin + 1e-9:
            best, best_adj, best_fit, moved = cand, adj, fit, hops
    if best is path or best_adj - base < margin:
        return Retyped(path, noun, 0, base, base)
    if _repeats(path, best):
        best = _narrowed(typer, noun, path, best)
    return Retyped(best, noun, moved, base, best_fit)


def _as_noun(word: str, name: str) -> bool:
    """Whether a relation's ``name`` holds ``word`` itself, not before a preposition (``capital city``, ``currency``;
    not ``filmed in`` for ``film``, nor ``member of``, whose subject is the member)."""
    words = [singular(w) for w in clean_relation(name).lower().split()] + [""]
    return any(w == word and words[i + 1] not in _PREP for i, w in enumerate(words[:-1]))


def _owned(typer: EndTyper, noun: str, path: RelPath, cands: Sequence[tuple[RelPath, int]]) -> tuple[RelPath, int] | None:
    """The continuation of ``path`` by one step forward along a relation ``noun`` names (the best fitting, if
    several), when ``path``'s ends are only subjects of such relations; None otherwise. "What is the **capital**
    of the country where X was born" stops at the country, which *has* a ``capital city`` (MiniLM fits ``capital``
    to the country's "it has a capital city" better than to the city): the noun asks for the relation's object,
    one hop on. Only that one step: "how many **members** does X have" over ``^member of`` (a member is the
    *subject* of ``member of``) has no such step, and "how many **films** did X direct" over ``^directed by`` does
    not walk ``filmed in`` (a verb): the relation must hold the noun itself (:func:`_as_noun`)."""
    word = singular(noun.split()[-1])
    named = {r for r in typer.relations_named(noun) if _as_noun(word, typer.store.relations[r])}
    n = len(path.steps)
    got = [(c, h) for c, h in cands if len(c.steps) == n + 1 and c.steps[:n] == path.steps and c.steps[-1][1]
           and c.steps[-1][0] in named]
    return max(got, key=lambda c: typer.fit(noun, c[0].ends.tolist())) if got else None


#: Words that open a clause describing the noun before them (:func:`described_noun`).
_CLAUSE = frozenset("that which who whose".split())


class _Contrast:
    """An :class:`EndTyper` whose :meth:`fit` is the asked noun's fit less the ``against`` noun's.

    Only :meth:`fit` is contrasted; every other method (:meth:`EndTyper.noun_role`, :meth:`EndTyper.name_fit`,
    :meth:`EndTyper.entity_fit`, :meth:`EndTyper.roles`) is the wrapped typer's, plain, through ``__getattr__``
    (so :func:`_narrowed`'s score mixes a contrasted fit with a plain name fit). :func:`retype`'s ``margin`` and
    ``hop_penalty`` were chosen on raw fits, not on these differences."""

    def __init__(self, typer: EndTyper, against: str) -> None:
        self.typer, self.against, self.store = typer, against, typer.store

    def fit(self, noun: str, ends: Sequence[int]) -> float:
        return self.typer.fit(noun, ends) - self.typer.fit(self.against, ends)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.typer, name)


def described_noun(text: str) -> str | None:
    """The class noun a (masked) question gives another entity of its chain after the asked type's phrase: the
    first ``the <noun>`` after it, not the asked noun, that a clause describes ("which astronauts flew on **the
    mission** launched in X" -> ``mission``, "which company built **the train** that runs on X" -> ``train``);
    None when there is none or no asked type. Only a noun a clause follows (``that``/``which``/``who`` or a
    participle in ``-ed``): ``the <noun> of`` is a relational noun, the name of a hop ("the **capital** of X"),
    and "which movies share **the screenwriter with** X" asks the noun's own relation (MetaQA-2H)."""
    got = type_phrase(text)
    if got is None or got.noun is None:
        return None
    toks = got.tokens
    for i in range(got.end, len(toks) - 2):
        w, nxt = toks[i + 1], toks[i + 2]
        if toks[i] == "the" and _is_word(w) and w != "x" and singular(w) != got.noun and (
                nxt in _CLAUSE or (nxt.endswith("ed") and nxt not in _AUX)):
            return singular(w)
    return None


def _narrowed(typer: EndTyper, noun: str, path: RelPath, moved: RelPath) -> RelPath:
    """``moved`` (a :func:`_repeats` move) with only the ends that fit ``noun`` nearer the best-fitting end than
    the ends moved away from (by :meth:`EndTyper.entity_fit` + :meth:`EndTyper.name_fit`): what is located in
    X's cities holds the hospitals *and* the university; "how many hospitals" counts the former. Marked
    ``extra["narrowed"]`` so that :meth:`~graphhop.kgqa.pipeline.KGQA.answers` keeps to these ends."""
    score = lambda ids: typer.fit(noun, ids) + typer.name_fit(noun, ids)  # noqa: E731
    ends = moved.ends.tolist()
    each = [score([e]) for e in ends]
    cut = (max(each) + score(path.ends.tolist())) / 2
    keep = [e for e, v in zip(ends, each) if v >= cut]
    if not keep or len(keep) == len(ends):
        return moved
    layers = moved.layers[:-1] + [np.asarray(keep, dtype=moved.ends.dtype)]
    return RelPath(moved.steps, layers, score=moved.score, extra={**moved.extra, "narrowed": True})
