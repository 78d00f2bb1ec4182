"""A veto by answer type: an answer whose type clearly contradicts the question is not given.

"Wrong is worse than unsure" (issue 12). Answer typing (:mod:`graphhop.kgqa.end_type`, :mod:`graphhop.kgqa.levels`)
*moves* a path towards an end of the asked type; it never says that no end fits. Here the KB's own evidence
about the chosen path's ends is checked against what the question asks, and only a clear contradiction counts:

``who``
    the ends are *made or done by* someone and do nothing themselves: each is the subject of an agent relation
    (a relation named ``... by`` whose subjects and objects are different kinds of entity: ``written by``,
    ``founded by``), none is the object of one, and none shares a forward relation with the entities that are
    (the KB's agents: people, companies, bands — what things are written, founded, published by). A ``who``
    answered with a book is vetoed; a company that builds aircraft, or a person known only as a chief executive,
    is not. A bare number (``1931``) never answers ``who``, nor does a place: ends that are all objects of the KB's
    locative relations (:class:`graphhop.kgqa.levels.Places`: ``located in``) and no agent's (session 18, kge18).
a type noun the KB names (``what currency``)
    the noun is the head noun of some relation names (:func:`head_noun`: ``currency``, ``capital city`` for city), no
    end is an object of such a relation, no end shares a signed relation (other than those) with the objects that
    are, and no end is the object of a relation whose name holds the noun at all (``track performances`` for
    "the track performances of X": the question may name that relation): a country is not a currency. Value nouns
    (``year``, ``population``) and ends with digits are left to the next rule.
``when`` / ``what year`` (:func:`graphhop.kgqa.pipeline.expected_kind`)
    no end holds a digit.

On a veto the next path of the reading whose ends fit positively (an agent; an object of the noun's relation; a
date) is taken, when its probability is at least :data:`FALLBACK_RATIO` of the vetoed path's, or when it is the best
path the veto does not contradict (session 16: :func:`_fallback`); otherwise the answer is "no supported answer"
with the vetoed chain kept as the best partial chain. When that chain stops at the hop limit, the trace says so,
and names the relation one hop further that the asked noun names, if the ends have one (a longer chain may exist).
Session 15 (kgt15).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.levels import store_cached
from graphhop.kgqa.paths import RelPath

__all__ = ["AnswerTypes", "answer_types", "type_veto", "withheld", "FALLBACK_RATIO"]

#: A vetoed path gives way to the next one that fits only when that one's probability is at least this share of
#: the vetoed path's (else the KB does not answer the question within the hop limit). Set before measuring, not
#: tuned; what it is worth on the 21 selection KBs: docs/RESULTS.md, issue 12, session 15 (kgt15).
FALLBACK_RATIO = 0.1
_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"[\d.,\s:/-]+")
_WHO = re.compile(r"^(?:who|whom)\b")
_WHEN = re.compile(r"^(?:when|(?:in )?(?:what|which) year)\b")


class AnswerTypes:
    """The KB's evidence on what its entities are: agents, things made by agents, objects of named relations."""

    def __init__(self, store: Any) -> None:
        self.store = store
        by, nouns = _agent_relations(store)
        self.by_relations = by
        made = frozenset(store.heads[np.isin(store.rels, by)].tolist())
        acting = [r for r in _kind_leaving(store) if r not in set(by) | set(nouns)
                  and made & set(store.tails[store.rels == r].tolist())]
        self.agents = frozenset(store.tails[np.isin(store.rels, by + nouns)].tolist()) | frozenset(
            store.heads[np.isin(store.rels, acting)].tolist())
        self.made = made
        own = set(by) | set(nouns)
        self.agent_relations = frozenset(
            r for a in self.agents for r, fwd in store.signed_relations(np.asarray([a])) if fwd and r not in own)
        self._named: dict[str, tuple[frozenset, frozenset]] = {}

    def forward(self, entity: int) -> set[int]:
        """The relations ``entity`` is the subject of."""
        return {r for r, fwd in self.store.signed_relations(np.asarray([entity])) if fwd}

    def agent_like(self, entity: int) -> bool:
        """Whether the KB treats ``entity`` as an agent: the object of an agent relation, or the subject of a
        relation the agents have (``born in``, ``based in``)."""
        return entity in self.agents or bool(self.forward(entity) & self.agent_relations)

    def made_thing(self, entity: int) -> bool:
        """Whether ``entity`` is made or done by an agent and is no agent itself (a book, a film)."""
        return entity in self.made and not self.agent_like(entity)

    def noun_objects(self, typer: Any, noun: str) -> tuple[frozenset, frozenset, frozenset]:
        """(objects of the relations whose head noun is ``noun``'s (:func:`head_noun`: ``currency``, ``capital city``
        for ``city``, ``country of citizenship`` for ``country``), the signed relations those objects hold besides,
        objects of the relations whose name holds the noun anywhere: ``track performances`` for ``track``); the
        subjects, where a relation names its subject (``superintendent of``:
        :func:`graphhop.kgqa.asked.names_subject`)."""
        got = self._named.get(noun)
        if got is None:
            from graphhop.kgqa.asked import noun_sides
            from graphhop.kgqa.end_type import singular

            word = singular(noun.split()[-1])
            rels = [r for r, name in enumerate(self.store.relations)
                    if head_noun(name) == word and not typer.owner_relation(noun, r)]
            tails = frozenset(noun_sides(self.store, rels, word)[0])  # subjects of ``superintendent of`` (session 16)
            roles = frozenset(s for t in tails for s in self.store.signed_relations(np.asarray([t]))
                              if s[0] not in set(rels))
            named = [r for r, name in enumerate(self.store.relations)
                     if word in {singular(w) for w in clean_relation(name).lower().split()}]
            got = self._named[noun] = (tails, roles, frozenset(noun_sides(self.store, named, word)[0]))
        return got


def head_noun(relation: str) -> str | None:
    """The head noun of a relation's name, singular: its last word, or the word before its first preposition
    (``capital city`` -> ``city``, ``country of citizenship`` -> ``country``; ``mountain range`` -> ``range``,
    the type of its objects); None when that word is a participle (``brewed by``, ``located in``: a verb)."""
    from graphhop.kgqa.end_type import _PREP, singular

    words = clean_relation(relation).lower().split()
    cut = next((i for i, w in enumerate(words) if w in _PREP), len(words))
    head = words[cut - 1] if cut > 0 else ""
    return singular(head) if head.isalpha() and not (len(head) > 4 and head.endswith("ed") and not head.endswith("eed")) else None


def _kind_leaving(store: Any) -> list[int]:
    """Relations whose subjects are never their objects (``written by``; not ``sequel of``, ``borders``), and
    whose objects are not numbers."""
    from graphhop.kgqa.cover import relation_pairs
    from graphhop.read.ops import parse_number

    out = []
    for r in range(len(store.relations)):
        pairs = relation_pairs(store, r, True)
        objects = {b for _, b in pairs}
        if pairs and not ({a for a, _ in pairs} & objects) and not any(
                parse_number(store.entities[b]) is not None for b in list(objects)[:20]):
            out.append(r)
    return out


#: Endings of agent nouns (``manufacturer``, ``director``, ``chemist``): a relation so named gives its subject's agent.
_AGENT_NOUN = ("er", "or", "ist")


def _agent_relations(store: Any) -> tuple[list[int], list[int]]:
    """The KB's relations whose objects are agents (:func:`_kind_leaving` ones): (passive ``... by`` relations,
    relations named by an agent noun: ``manufacturer``, ``founder``, ``starred actors``: ``-er``/``-or``/``-ist``)."""
    from graphhop.kgqa.end_type import singular

    by, nouns = [], []
    for r in _kind_leaving(store):
        words = clean_relation(store.relations[r]).lower().split()
        if len(words) >= 2 and words[-1] == "by":
            by.append(r)
        elif words and len(words[-1]) > 4 and singular(words[-1]).endswith(_AGENT_NOUN):
            nouns.append(r)
    return by, nouns


def answer_types(kgqa: Any) -> AnswerTypes:
    """The pipeline's :class:`AnswerTypes`, built on first use and kept on the pipeline object."""
    return store_cached(kgqa, "_answer_types", AnswerTypes)


def _asked(kgqa: Any, text: str, reading: Any = None) -> tuple[str, str | None]:
    """What a (masked) question asks for: (``who`` | ``when`` | ``noun`` | ``""``, the noun); no noun that is a word
    of ``reading``'s topic's name (:func:`graphhop.kgqa.asked.names_topic`)."""
    from graphhop.kgqa.asked import names_topic
    from graphhop.kgqa.end_type import asked_noun
    from graphhop.kgqa.ops import VALUE_NOUNS

    low = text.strip().lower()
    if _WHO.match(low):
        return "who", None
    if _WHEN.match(low):
        return "when", None
    noun = asked_noun(text, phrase=True) if getattr(kgqa, "typer", None) is not None else None
    if noun is not None and noun.split()[-1] not in VALUE_NOUNS and not names_topic(reading, noun):
        return "noun", noun
    return "", None


def judge(kgqa: Any, asked: tuple[str, str | None], ends: Sequence[int], sample: int = 20) -> int:
    """-1 when ``ends`` clearly contradict what is asked (see the module docstring), +1 when they fit it
    positively, 0 when the KB cannot tell."""
    kind, noun = asked
    ids = list(ends)[:sample]
    names = kgqa.store.entities
    if not ids or not kind:
        return 0
    if kind == "when":
        dated = [bool(_DIGIT.search(names[e])) for e in ids]
        return 1 if any(dated) else -1
    types = answer_types(kgqa)
    if kind == "who":
        if all(_NUMBER.fullmatch(names[e].strip()) for e in ids):
            return -1
        if getattr(kgqa, "place_veto", False) and _all_places(kgqa, types, ids):
            return -1
        if any(types.agent_like(e) for e in ids):
            return 1
        return -1 if all(types.made_thing(e) for e in ids) else 0
    if any(_DIGIT.search(names[e]) for e in ids):
        return 0
    tails, roles, mentioned = types.noun_objects(kgqa.typer, noun)
    if not tails:
        return 0
    if set(ids) & tails:
        return 1
    if set(ids) & mentioned:
        return 0  # reached as the object of a relation the noun is a word of: the question may name that relation
    held = {s for e in ids for s in kgqa.store.signed_relations(np.asarray([e]))}
    return 0 if held & roles else -1


def _all_places(kgqa: Any, types: AnswerTypes, ids: Sequence[int]) -> bool:
    """Whether every one of ``ids`` is a place (:class:`graphhop.kgqa.levels.Places`: what things are located in) and
    none is an agent by the KB's agent relations: "who owns X" is not answered by the town X is in (session 18, kge18)."""
    from graphhop.kgqa.levels import places

    where = places(kgqa).entities
    return all(e in where and e not in types.agents for e in ids)


def type_veto(kgqa: Any, reading: Any, text: str, ratio: float = FALLBACK_RATIO) -> tuple[Any, dict[str, Any] | None]:
    """``reading`` (its best path the one answer typing chose) judged by the asked type (:func:`judge`): unchanged
    with None when nothing contradicts; else the reading with the next fitting path first and a trace, or the
    reading unchanged with a trace whose ``withhold`` is True (no path fits: "no supported answer")."""
    asked = _asked(kgqa, text, reading)
    best = reading.best
    if best is None or judge(kgqa, asked, best.ends.tolist()) >= 0:
        return reading, None
    names = kgqa.store.entities
    trace: dict[str, Any] = {"asked": asked[1] or asked[0], "vetoed": kgqa.describe(reading)["relation_path"],
                             "vetoed_answers": [names[e] for e in kgqa.answers(best, reading.mention.entities)[:3]]}
    fallback = _fallback(kgqa, reading, asked, ratio * float(reading.probs[0]))
    if fallback is not None:
        from graphhop.kgqa.ops import _moved

        return _moved(reading, fallback), {**trace, "fallback": kgqa.describe(reading, fallback)["relation_path"]}
    trace["withhold"] = True
    if len(best.steps) >= kgqa.max_hops:
        trace["hop_limit"] = kgqa.max_hops
        further = _further(kgqa, best, asked)
        if further:
            trace["longer_chain"] = further
    return reading, trace


def _fallback(kgqa: Any, reading: Any, asked: tuple[str, str | None], floor: float) -> RelPath | None:
    """The path a vetoed reading gives way to: the first (best) one whose ends fit positively with a probability of at
    least ``floor``; else the best path the veto does not contradict, when its ends fit positively (the paths of the
    wrong type set aside, the scorer's next reading: "who runs X" over ``^chief executive of`` once the ships X
    operates are vetoed; session 16), and it does not walk on from the vetoed ends (the builders of the ships X
    operates answer a question not asked). Paths back to the topic itself are passed; None when nothing fits."""
    topic, first_open, vetoed = set(reading.mention.entities), None, reading.best.steps
    for p, q in zip(reading.paths[1:], reading.probs[1:].tolist()):
        if set(p.ends.tolist()) <= topic:
            continue
        verdict = judge(kgqa, asked, p.ends.tolist())
        if verdict > 0 and q >= floor:
            return p
        if first_open is None and verdict >= 0 and p.steps[: len(vetoed)] != vetoed:
            first_open = (p, verdict)
    return first_open[0] if first_open is not None and first_open[1] > 0 else None


def _further(kgqa: Any, path: RelPath, asked: tuple[str, str | None]) -> list[str]:
    """The relations one hop past ``path``'s ends that lead to ends of the asked type (their objects fit
    positively: :func:`judge`): a chain longer than the hop limit may answer."""
    store, out = kgqa.store, []
    for rel, fwd in store.signed_relations(path.ends):
        _, reached = store.step(path.ends, rel, fwd)
        if judge(kgqa, asked, np.unique(reached).tolist()) > 0:
            out.append(("" if fwd else "^") + store.relations[rel])
    return out


def withheld(res: dict[str, Any], veto: dict[str, Any]) -> dict[str, Any]:
    """``res`` (an operation's result) withheld by the type veto: no supported answer, its chains kept as the best
    partial chain, the reason (and the hop limit, when the chain stops there) in the trace."""
    trace = res.setdefault("trace", {})
    why = f"no supported answer: no chain ends at the asked type ({veto['asked']})"
    if "hop_limit" in veto:
        why += f" within the hop limit ({veto['hop_limit']})"
        if veto.get("longer_chain"):
            why += f"; a longer chain may exist: {', '.join(veto['longer_chain'])} one hop further"
    trace["reason"] = why
    if res.get("answers"):  # a result the threshold already withheld keeps its best guess
        trace["best_guess"] = list(res["answers"])[:10]
    res.update(answer="", answers=[], supported=False)
    res.pop("alternatives", None)
    return res
