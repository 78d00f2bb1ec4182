"""Named-relation coverage: the chain the question actually asks, not a shortcut to the same kind of answer.

The trained scorer (:mod:`graphhop.kgqa.scorer`) sometimes prefers a shortcut that reaches the right
*kind* of answer for the wrong reason: ``nationality`` where the question says ``born in → located in``,
``flows through → currency`` where it says ``source``. :func:`covering` lets the path that uses more of
the relations the question *names* (:class:`~graphhop.kgqa.scorer.RelationWords`) win over such a
shortcut; :func:`general` replaces a relation the question does not name by a more general one of the
KB that holds every one of its facts (``capital`` by ``located in``: "companies headquartered in
country X" are those in any of its cities, not only in its capital). Chosen on the selection KBs
(``tests/kgqa/data``) and the selection part of the training questions (docs/RESULTS.md, issue 12).
"""

from __future__ import annotations

import re
import weakref
from typing import Any, Sequence

import numpy as np

from graphhop.kgqa.end_type import asked_noun, type_phrase
from graphhop.kgqa.paths import RelPath

__all__ = ["named_relations", "rivals", "cut_back", "cut_to_verb", "who_cut", "lure_cut", "subject_of_named_verb", "walked_back",
           "covering", "gives_dates", "general", "relation_pairs", "walk"]


def named_relations(words: Any, text: str) -> tuple[list[str], list[str]]:
    """The relations a (masked) question *names*, the one definition the pipeline uses (the beam's extra
    paths, :func:`covering`, :func:`general`, the yes/no shortcut check): ``(stems outside, stems inside)``
    the phrase that names the asked type (:func:`~graphhop.kgqa.end_type.type_phrase`), each a stem of a
    question word that names some relation of the KB (:meth:`~graphhop.kgqa.scorer.RelationWords.asked`).
    In "name a **soccer club** in X" or "how many **publishers** are based in X" the type's words may name
    a relation (``plays in club``, ``published by``) without asking for it; a verb after the type's noun is
    outside the phrase ("which **company** built the train ...": ``built`` is asked)."""
    got = type_phrase(text)
    if got is None:
        return words.asked(text), []
    inside = range(got.start, got.end)
    outside = " ".join(w for i, w in enumerate(got.tokens) if i not in inside)
    return words.asked(outside), words.asked(" ".join(got.words))


#: Rivals of the best path for answer typing (:func:`rivals`): among the reading's first ``RIVALS`` paths,
#: those with at least ``RIVAL_RATIO`` x the best path's probability. Chosen on the selection KBs.
RIVALS, RIVAL_RATIO = 5, 1e-4


def rivals(kgqa: Any, reading: Any, text: str | None = None, loose: bool = False) -> list[tuple[RelPath, int]]:
    """Paths answer typing may take instead of the reading's best one (:func:`graphhop.kgqa.end_type.retype`),
    each with the hops it counts as moved, among the reading's next paths (:data:`RIVALS`, :data:`RIVAL_RATIO`)
    that name as many of the question's relations as the best path: those that arrive by the relation the
    type's phrase names ("what **currency** ... where X was formed": ``formed in → located in → currency``,
    not ``year formed``), and, when the best path only returns to the topic ("which doctors work at X":
    ``director → works at``) or ``loose`` (a comparison's side, typed by the compared noun), those that take no
    more unnamed relations. A rival counts as moved by the unnamed relations it takes beyond the fewest any
    rival takes (``^works at → specialty`` is not a doctor's nearer reading than ``^works at``). When the best
    path ends at values (a year) although the type's words name a relation ("which **country** is the maker of X
    based in" over ``manufacturer → founded_year``), a rival that arrives by that relation is one at any
    probability (session 8: answer typing moves from a value only to the noun's own relation). Other
    rivals (a shorter path, a sibling relation) moved right answers of the benchmarks' selection questions
    away (``which person wrote the movies starred by X`` to the actors): not taken."""
    best = reading.best
    if best is None:
        return []
    words = kgqa.relation_words
    asked, typed = named_relations(words, reading.text if text is None else text)
    named = asked + [w for w in typed if w not in asked]
    loose = loose or set(best.ends.tolist()) <= set(reading.mention.entities)
    have, extra = words.covered(asked, best.steps), words.unnamed(named, best.steps)
    value = bool(typed) and kgqa.is_numeric(best)  # the scorer stopped at a value although the type names a relation
    out = []
    for p, q in zip(reading.paths[1:RIVALS], reading.probs[1:RIVALS]):
        arrives = p.steps[-1][1] and words.covered(typed, p.steps[-1:]) > 0  # by the relation the type names
        if (q >= RIVAL_RATIO * reading.prob or (value and arrives)) and words.covered(asked, p.steps) >= have and (
                arrives or (loose and words.unnamed(named, p.steps) <= extra)):
            out.append(p)
    fewest = min((words.unnamed(named, p.steps) for p in out), default=0)
    return [(p, words.unnamed(named, p.steps) - fewest) for p in out]


def cut_back(kgqa: Any, reading: Any, text: str) -> Any:
    """The best path without its last step, when that step takes a relation the question does not name and
    the rest names as many of the asked relations (``serves → located in`` for "which stations does X serve",
    ``flows through → currency`` for "which countries does X flow through": the scorer went one unasked hop
    too far); None otherwise. The rest may take relations the question names in other words than the KB's
    ("which designers **trained at** X" over ``^studied at → ^founding designer``; "which airlines **are in** X"
    over ``has_member → hub_airport``): the type's fit decides (session 13, kgf13; before, the rest had to be
    named word for word, and the question had to name a relation). It is one more rival for answer typing
    (:func:`~graphhop.kgqa.end_type.retype`, moved by 0 hops), so it is taken only when the asked noun fits its ends better by the margin ("in which country was X born" keeps
    ``born in → located in``: the country fits, the city does not). Not when the type's noun is followed by
    ``of``: "what is the address of X's children" asks the hop the noun names (``children → location``, though
    MiniLM fits ``address`` to the children better; PQ-2H). Chosen on the selection KBs (ri09, rw10) and that
    benchmark dev question."""
    best, got = reading.best, type_phrase(text)
    if best is None or len(best.steps) < 2 or got is None or got.tokens[got.end : got.end + 1] == ("of",):
        return None  # "what is the **address of** X's children": a relational noun names the last hop itself
    words = kgqa.relation_words
    asked, typed = named_relations(words, text)
    named = asked + [w for w in typed if w not in asked]
    if words.unnamed(named, best.steps[-1:]) == 0:
        return None
    steps = best.steps[:-1]
    if words.covered(asked, steps) < words.covered(asked, best.steps):
        return None
    prefix = next((p for p in reading.paths if p.steps == steps), None)
    prefix = prefix or type(best)(steps, best.layers[:-1], score=best.score)
    if set(prefix.ends.tolist()) <= set(reading.mention.entities):
        return None
    return prefix


def lure_cut(kgqa: Any, reading: Any, noun: str | None) -> tuple[RelPath, dict[str, Any]] | None:
    """The best path cut back one step, with its trace, before answer typing, when its last step gives a value of
    the asked noun's owner relation (:func:`~graphhop.kgqa.owner.owner_cut`: "what **grape** goes into X" over
    ``made from → grape colour``); None otherwise."""
    from graphhop.kgqa.owner import owner_cut

    owned = owner_cut(kgqa.typer, reading.best, noun, reading.mention.entities)
    if owned is None:
        return None
    return owned, {"answer_type": {"noun": noun, "moved_hops": -1, "owner_cut": True,
                                   "scorer_path": kgqa.describe(reading)["relation_path"]}}


def subject_of_named_verb(kgqa: Any, reading: Any, text: str) -> bool:
    """Whether the asked noun is the subject of a verb that names the last relation of the reading's best path
    ("which **journalists write for** X" over ``^writes for``, "which **trains run on** lines ..." over ``... →
    ^runs on``; a passive verb after its auxiliaries: "which **wines are made** from X" over ``^made from``; the noun
    as the object of the verb after the masked subject: "which **pastries** does X **make**" over ``makes``), and
    the path leads away from the topic: the ends are then what the question asks for by its own words, and answer
    typing does not move them (MiniLM fits ``journalist`` to the journalists' birth cities better than to them:
    nw12, nw15). A path that only returns to the topic ("which doctors work at X"
    over ``director → works at``) is left to typing and its rivals (hs10)."""
    got, path, verb = type_phrase(text), reading.best, _verb_after_phrase(text) or _verb_after_mask(text)
    if verb is None or path is None or not path.steps or set(path.ends.tolist()) <= set(reading.mention.entities):
        return False
    words = kgqa.relation_words
    named = words.asked(verb)
    if not named or words.covered(named, path.steps[-1:]) == 0:
        return False
    return got.verb is not None or not _walks_on(kgqa.store, path)


#: Auxiliaries between the asked type's phrase and the masked subject of its verb: "which pastries **does** X make".
_DO = frozenset("does do did has have had".split())


def _verb_after_mask(text: str) -> str | None:
    """The verb whose object the asked type's phrase names: "which **pastries** does X **make**" (an auxiliary, the
    masked entity, then the verb); None otherwise."""
    got = type_phrase(text)
    if got is None or got.noun is None:
        return None
    toks, i = got.tokens, got.end
    if i + 2 < len(toks) and toks[i] in _DO and toks[i + 1] == "x" and toks[i + 2].isalpha():
        return toks[i + 2]
    return None


def _walks_on(store: Any, path: RelPath) -> bool:
    """Whether the last step's relation may be walked again from the path's ends, the same way ("how many
    hospitals are located in X" over ``^located in``: the cities reached are themselves where hospitals are
    located): a containment chain, left to answer typing's repeated-relation move."""
    rel, fwd = path.steps[-1]
    starts = {a for a, _ in relation_pairs(store, rel, fwd)}
    return any(e in starts for e in path.ends.tolist())


#: Auxiliaries passed between the asked type's phrase and its (passive) verb: "which trains **were** built by".
_AUXILIARIES = frozenset("is was are were be been has have had".split())


def _verb_after_phrase(text: str) -> str | None:
    """The verb of the asked type's phrase: the word right after it (:attr:`TypePhrase.verb`), or the first word
    after the auxiliaries that follow it ("which **trains were built** by ..."); None otherwise."""
    got = type_phrase(text)
    if got is None or got.noun is None:
        return None
    if got.verb is not None:
        return got.verb
    toks, i = got.tokens, got.end
    while i < len(toks) and toks[i] in _AUXILIARIES:
        i += 1
    w = toks[i] if got.end < i < len(toks) else ""
    return w if w.isalpha() and w != "x" else None


#: A topic the question describes by a relational noun: "the author **of X**", "the manufacturer **of the X**".
_OF_TOPIC = re.compile(r"\bof (?:the )?x\b")


def walked_back(kgqa: Any, reading: Any, text: str, margin: float = 0.08) -> RelPath | None:
    """The best path up to its last step that the asked type's verb names, then that relation walked straight
    back, when the asked noun names the kind of the topic: "how many **trains were built by** the manufacturer of
    X" over ``built by → based in`` (the scorer went on to the manufacturer's city) -> ``built by → ^built by``,
    the trains built by X's manufacturer. When the verb names no step ("how many **books** did the author of X
    write" over ``written by``), the best path's last step walked back, if the scorer has that path among its
    first :data:`RIVALS` and the question describes the topic by a relational noun ("the author **of X**":
    :data:`_OF_TOPIC`; session 11, kgc12: bk10). Answer typing never continues a path straight back
    (:func:`~graphhop.kgqa.end_type.retype`'s continuations), so this is one more rival for it (moved by 0 hops:
    the question names the relation). Only when the walk back reaches entities the chain has not visited at the
    step it walks back to, and the asked noun fits the entities it walks back from (the topic in rw15) better than
    the ends of the best path and of the kept prefix by ``margin`` (:meth:`~graphhop.kgqa.end_type.EndTyper.fit`):
    the answers are peers of those entities ("which company built the train that runs on X" does not walk
    ``built by`` back to trains; "which labels are headquartered in X", a country, does not walk ``^located in →
    ^headquartered in`` back to X's cities). None otherwise. Chosen on the selection KBs (rw15, mu12, bk10)."""
    best, typer, got = reading.best, getattr(kgqa, "typer", None), type_phrase(text)
    if best is None or typer is None or got is None or got.noun is None:
        return None
    words, verb = kgqa.relation_words, _verb_after_phrase(text)
    named = words.asked(verb) if verb is not None else []
    k = next((k for k in range(len(best.steps), 0, -1) if words.covered(named, best.steps[k - 1 : k])), 0)
    scored = k == 0  # no step named by a verb: the scorer's own walk back of the last step only
    k = len(best.steps) if scored else k
    if k == 0 or k + 1 > kgqa.max_hops:
        return None
    rel, fwd = best.steps[k - 1]
    steps = best.steps[:k] + ((rel, not fwd),)
    if scored and (not _OF_TOPIC.search(text.lower()) or not any(p.steps == steps for p in reading.paths[1:RIVALS])):
        return None
    topic = [int(e) for e in reading.mention.entities]
    path = walk(kgqa.store, topic, steps, best.score)
    origin = best.layers[k - 1].tolist()  # what the relation is walked back from: the topic in rw15
    others = [] if path is None else [e for e in path.ends.tolist() if e not in set(topic)]
    if not others or set(others) <= set(origin):
        return None  # nothing new: back to where the chain already was
    fit = typer.fit(got.noun, origin)
    if any(fit < typer.fit(got.noun, ends.tolist()) + margin for ends in (best.ends, best.layers[k])):
        return None
    return RelPath(path.steps, path.layers[:-1] + [np.asarray(others, dtype=np.int64)], score=best.score)


def cut_to_verb(kgqa: Any, reading: Any, text: str) -> RelPath | None:
    """:func:`cut_back`'s prefix when its last relation is the one the asked type's verb names and the step cut is
    not ("how many **trains were built** by the manufacturer of X" over ``built by → ^built by → runs on``: the
    trains, not the lines they run on): the prefix's ends are what the question asks for by its own words, as in
    :func:`subject_of_named_verb`, so answer typing's margin does not judge them. None otherwise. Session 11
    (kgc12: rw15)."""
    cut, verb = cut_back(kgqa, reading, text), _verb_after_phrase(text)
    if cut is None or verb is None:
        return None
    words = kgqa.relation_words
    named = words.asked(verb)
    if not named or not words.covered(named, cut.steps[-1:]) or words.covered(named, reading.best.steps[-1:]):
        return None
    return cut


#: A ``who`` question with a verb ("who wrote ..."), not ``who is the <noun> of`` (the noun names what is asked:
#: "who is the sex of X's dad", PathQuestion's wording).
_WHO = re.compile(r"^(?:who|whom)\s+(?!(?:is|was|are|were|s)\b)")


def who_cut(kgqa: Any, reading: Any, text: str, margin: float = 0.08) -> RelPath | None:
    """For a ``who`` question with a verb (:data:`_WHO`; no type noun to type by): the best path without its last
    step, when the question does not name that step and ``person`` fits the prefix's ends better than the path's by
    ``margin`` (:meth:`~graphhop.kgqa.end_type.EndTyper.fit`): "who wrote the book that X is a sequel of" over
    ``sequel of → written by → born in`` answers the writer, not the writer's birth city. Only when the step leaves
    the kind of entity it came from (no entity of the KB is both a subject and an object of its relation: "who is
    the father of X's wife" keeps ``spouse → parents``, MiniLM's person fit notwithstanding; PQ-2H), and only a cut
    back, never a longer path (a ``who`` may be a company: "who published X"). None otherwise. Session 11 (kgc12:
    bk04)."""
    best, typer = reading.best, getattr(kgqa, "typer", None)
    if best is None or typer is None or len(best.steps) < 2 or not _WHO.match(text.strip().lower()):
        return None
    words = kgqa.relation_words
    asked, typed = named_relations(words, text)
    if words.unnamed(asked + typed, best.steps[-1:]) == 0:
        return None
    steps = best.steps[:-1]
    prefix = next((p for p in reading.paths if p.steps == steps), None) or RelPath(steps, best.layers[:-1], score=best.score)
    if set(prefix.ends.tolist()) <= set(reading.mention.entities):
        return None
    pairs = relation_pairs(kgqa.store, *best.steps[-1])
    if {a for a, _ in pairs} & {b for _, b in pairs}:
        return None  # a relation within one kind of entity (``parents``: a parent has parents) stays
    if typer.fit("person", prefix.ends.tolist()) < typer.fit("person", best.ends.tolist()) + margin:
        return None
    return prefix


def covering(kgqa: Any, reading: Any, text: str | None = None, paths: Sequence[Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """The reading with the path that uses the most relations the question names first, when its best
    path leaves one out: a *shortcut* (``nationality`` where the question says ``born``, ``flows through``
    where it says ``source``; :class:`~graphhop.kgqa.scorer.RelationWords`). The words of the phrase naming
    the asked type (``soccer club``, ``currency``, ``publishers``: :func:`named_relations`)
    never force a move; they only break ties, and so do class nouns named only through an agent noun
    (``bakeries`` ~ ``head baker``: :meth:`~graphhop.kgqa.scorer.RelationWords.class_nouns`; ``kgqa.cover_class``). Candidates are ``paths`` (default: all of the reading's) whose
    probability is at least ``kgqa.cover`` x the best one's and that take no more unnamed relations than the
    best path (a move adds named relations, never unasked ones: ``capital → lies on → flows through`` names
    more of "cities that lie on rivers that flow through X" than ``^flows through`` but walks through an
    unasked capital); among those naming the most, then naming the type's words, then naming every asked relation
    and nothing else, the scorer's best wins. Such an *exact* chain (two asked relations or more, no unnamed one)
    is a candidate at any probability ("which doctors work at hospitals located in X": ``^located in → ^located in
    → ^works at`` scores e^-25 below the shortcut ``capital → located in``; chosen on hs12, kgc12).
    The moved path keeps the best path's probability (the threshold judges whether the KB answers at all),
    and the trace says what moved."""
    ratio = float(getattr(kgqa, "cover", 0.0))
    cands = list(reading.paths if paths is None else paths)
    if ratio <= 0 or not cands:
        return reading, {}
    words = kgqa.relation_words
    asked, typed = named_relations(words, reading.text if text is None else text)
    if getattr(kgqa, "cover_class", False):  # a class noun (``bakeries`` ~ ``head baker``) only breaks ties
        classes = set(words.class_nouns(reading.text if text is None else text))
        asked, typed = [a for a in asked if a not in classes], typed + [a for a in asked if a in classes and a not in typed]
    if not asked:
        return reading, {}
    prob = {id(p): float(q) for p, q in zip(reading.paths, reading.probs)}
    floor, best = ratio * prob[id(cands[0])], cands[0]
    named = asked + [w for w in typed if w not in asked]
    extra = words.unnamed(named, best.steps)

    def exact(p: RelPath) -> bool:  # every asked relation (two or more) and no other
        return len(asked) >= 2 and words.covered(asked, p.steps) == len(asked) and not words.unnamed(named, p.steps)

    dated = _asks_date(reading.text if text is None else text) and gives_dates(kgqa, best)
    counted = [(words.covered(asked, p.steps), words.covered(typed, p.steps), exact(p), -i, p) for i, p in enumerate(cands)
               if ((prob[id(p)] >= floor and words.unnamed(named, p.steps) <= extra) or exact(p))
               and (not dated or p is best or gives_dates(kgqa, p)) and (p is best or not _round_trip(best, p))]
    exact_paths = [c[4] for c in counted if c[2]]
    detour = _without_detour(words, asked, named, best, exact_paths)
    if detour is None:  # a best path back home to a topic of another kind than asked: any unnamed step is a detour
        home = _without_detour(words, asked, named, best, exact_paths, home=True)
        detour = home if _home_not_asked(kgqa, reading, reading.text if text is None else text, home) else None
    if words.covered(asked, best.steps) >= max(c[0] for c in counted) and detour is None:
        return reading, {}
    chosen = max(counted, key=lambda c: c[:4])[4] if detour is None else detour
    trace = {"coverage": {"asked": asked, "scorer_path": kgqa.describe(reading, cands[0])["relation_path"],
                          "scorer_prob": round(prob[id(cands[0])], 4), "prob": round(prob[id(chosen)], 4)}}
    rest = [(p, prob[id(p)]) for p in reading.paths if p is not chosen and p is not cands[0]]
    paths_out = [chosen, cands[0]] + [p for p, _ in rest]
    probs = np.asarray([prob[id(cands[0])], prob[id(chosen)]] + [q for _, q in rest])
    return type(reading)(reading.mention, reading.text, paths_out, probs), trace


def _round_trip(best: RelPath, cand: RelPath) -> bool:
    """Whether ``cand`` walks a relation straight back (to the topic's peers) where ``best`` does not: named-relation
    coverage does not move to a round trip that only names an asked word twice ("what year was its parent
    **variety** introduced" over ``seedling of → ^growsVariety → growsVariety → year of introduction``)."""
    from graphhop.kgqa.pipeline import walks_back

    return walks_back(cand.steps) and not walks_back(best.steps)


def _asks_date(text: str) -> bool:
    """Whether a (masked) question asks for a date: ``when ...``, or the asked noun is ``year`` / ``date``."""
    return text.strip().lower().startswith("when ") or asked_noun(text) in ("year", "date")


def gives_dates(kgqa: Any, path: RelPath) -> bool:
    """Whether ``path`` ends at dates: its last relation names one (``foundingYear``, ``inception``:
    :func:`graphhop.read.ops.gives_dates`) or every end is a whole number from 1000 to 2100. A question that asks
    for a date keeps a scorer's path that gives dates against named-relation coverage ("what **year** did the firm
    that **employs** X's creator get started": ``foundingYear``, not ``employeeCount``). Session 11 (kgw12)."""
    from graphhop.read.ops import gives_dates as dated, parse_number

    if not path.steps:
        return False
    values = [parse_number(kgqa.store.entities[e]) for e in path.ends[:20].tolist()]
    return dated(kgqa.store.relations[path.steps[-1][0]], values)


def _home_not_asked(kgqa: Any, reading: Any, text: str, cand: RelPath | None, margin: float = 0.08) -> bool:
    """Whether the reading's best path only comes back to the topic although the question asks a type noun that fits
    ``cand``'s ends better than the topic by ``margin`` ("how many **newspapers** are owned by the media group
    headquartered in X", X a city); a question with no type noun may ask for the topic itself ("who is the spouse of
    the parent of X's kid", PQ-3H)."""
    best, typer, noun = reading.best, getattr(kgqa, "typer", None), asked_noun(text)
    topic = sorted(set(reading.mention.entities))
    if cand is None or best is None or typer is None or noun is None or not set(best.ends.tolist()) <= set(topic):
        return False
    return typer.fit(noun, cand.ends.tolist()) >= typer.fit(noun, topic) + margin


def _without_detour(words: Any, asked: list[str], named: list[str], best: RelPath, exact: list[RelPath],
                    home: bool = False) -> RelPath | None:
    """Of the ``exact`` chains (every asked relation, two or more, and no other), the shortest (then the scorer's
    best) that is shorter than ``best`` and walks no relation straight back, when ``best`` names every asked
    relation but, before its last named step, takes an unnamed relation and walks it straight back: a detour to the
    topic's peers ("which company built the train that runs on X" over ``serves → ^serves → ^runs on → built by``).
    Any other unnamed step may be asked in words the stems do not match ("the nationality of **mom** of X's child":
    ``children → parents → nationality``, PQ-3H), unless the best path only comes ``home`` to the topic ("how many
    newspapers are owned by the media group headquartered in X" over ``^published in → owned by → headquartered
    in``, back to X: no answer at all); one after the last named step is answer typing's to judge. None otherwise.
    Session 11 (kgc12: rw05, nw18)."""
    from graphhop.kgqa.pipeline import walks_back

    if not exact or words.covered(asked, best.steps) < len(asked):
        return None
    last = max(i for i in range(len(best.steps)) if words.covered(asked, best.steps[i : i + 1]))
    if not home and (not walks_back(best.steps[:last]) or words.unnamed(named, best.steps[:last]) < 2):
        return None
    if home and not words.unnamed(named, best.steps[:last]):
        return None  # an unnamed step may be asked in words the stems miss ("mom": ``parents``); a round trip is not
    got = [p for p in exact if len(p.steps) < len(best.steps) and not walks_back(p.steps)]
    return min(got, key=lambda p: len(p.steps)) if got else None


#: per store: the entity pairs of each signed relation asked for so far
_PAIRS: "weakref.WeakKeyDictionary[Any, dict[tuple[int, bool], frozenset]]" = weakref.WeakKeyDictionary()


def relation_pairs(store: Any, relation: int, forward: bool) -> frozenset:
    """The (from, to) entity pairs of a signed relation over ``store`` (cached per store)."""
    cache = _PAIRS.setdefault(store, {})
    key = (relation, forward)
    got = cache.get(key)
    if got is None:
        edges = np.nonzero(store.rels == relation)[0]
        a, b = (store.heads[edges], store.tails[edges]) if forward else (store.tails[edges], store.heads[edges])
        got = cache[key] = frozenset(zip(a.tolist(), b.tolist()))
    return got


def walk(store: Any, topic: Sequence[int], steps: Sequence[tuple[int, bool]], score: float) -> RelPath | None:
    """The relation path ``steps`` walked from ``topic`` over every edge (a relation walked straight back
    may return to where it came from); None when some hop reaches nothing."""
    layers = [np.unique(np.asarray(topic, dtype=np.int64))]
    for rel, fwd in steps:
        _, reached = store.step(layers[-1], rel, fwd)
        if len(reached) == 0:
            return None
        layers.append(np.unique(reached))
    return RelPath(tuple(steps), layers, score=score)


def general(kgqa: Any, reading: Any, text: str | None = None) -> tuple[Any, dict[str, Any]]:
    """The reading with its best path's unnamed relations replaced by more general ones: a relation of the
    KB that holds every pair of the step's relation and more (``^located in`` ⊋ ``capital``), when the
    question names neither (``how many publishers are based in X`` counts those in every city of X, not
    only in its capital). The new path keeps the best path's probability; the trace says what changed."""
    best = reading.best
    if best is None or float(getattr(kgqa, "cover", 0.0)) <= 0:
        return reading, {}
    words, store = kgqa.relation_words, kgqa.store
    asked, typed = named_relations(words, reading.text if text is None else text)
    named = asked + [w for w in typed if w not in asked]
    steps = list(best.steps)
    changed = []
    for i, (rel, fwd) in enumerate(best.steps):
        if words.covered(named, [(rel, fwd)]):
            continue
        pairs = relation_pairs(store, rel, fwd)
        for alt, afwd in store.signed_relations(best.layers[i]):
            if alt == rel or words.covered(named, [(alt, afwd)]):
                continue
            wider = relation_pairs(store, alt, afwd)
            if len(wider) > len(pairs) and pairs <= wider:
                steps[i] = (alt, afwd)
                changed.append(i)
                break
    if not changed:
        return reading, {}
    path = walk(store, reading.mention.entities, steps, best.score)
    if path is None:
        return reading, {}
    trace = {"general": {"scorer_path": kgqa.describe(reading)["relation_path"], "steps": changed}}
    paths = [path] + [p for p in reading.paths if p.steps != path.steps]
    probs = np.asarray([reading.prob] + [float(q) for p, q in zip(reading.paths, reading.probs) if p.steps != path.steps][: len(paths) - 1])
    return type(reading)(reading.mention, reading.text, paths, probs), trace
