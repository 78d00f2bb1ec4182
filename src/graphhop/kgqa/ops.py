"""Question-type operations of the ``kgqa`` pipeline, over scored relation paths.

Each takes ``(kgqa, question, mentions)`` and returns ``answer``, ``answers``, ``score`` (the
probability of the path used), ``supported``, ``chains`` (KB edge chains: the support) and
``trace``:

``query``
    the best path over every topic mention; its end entities are the answers (several for a list
    question; the topic itself only when nothing else is reached). Two mentions whose best paths
    share end entities form a conjunction (``who plays Forward for club X``): the answers are the
    shared ones and both chains are the support.
``count``
    ``how many ...`` is read as ``which ...``; the answer is the number of entities the best path
    reaches, and the support holds a chain to each of them; when the path reaches one number, the KB
    stores the count itself (``number of employees``, ``population``) and that number is the answer.
``boolean``
    ``Was A founded after B?`` / ``Is A older than B?``: a comparison of the two sides (yes when the
    first wins); ``Do A and B play in the same league?``: whether both reach a common entity on
    the same relation path; otherwise a *claim* (:mod:`graphhop.kgqa.claims`): the last mention is the claimed value (a
    description such as ``the capital of Y`` is resolved to its entity first), removed from the
    question, and paths are scored from the topic. Only paths whose end entities have the claimed
    entity's type count (:func:`graphhop.kgqa.claims._typed_like`: a country claim is checked against a chain ending in
    a country, not a city); ``yes`` when the best of them reaches the claim. ``Did A found B?`` is also read from
    B with A claimed; the reading with the more probable chain is used. For ``no`` the support is
    the chain showing what the KB says instead.
``comparison``
    ``..., A or B?``: for each option the paths from its entity to numeric values (years,
    numbers); the relation path shared by both options with the highest joint probability is
    used (so a birth year is compared with a birth year), and the holder of the smaller or larger
    value (by the comparative: earlier/later, more/less, higher/lower, ...) is the answer.
``relation``
    ``How is A related to B?``: the relations of the KB facts linking A and B.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.claims import boolean_claim
from graphhop.kgqa.identity import identity_claim
from graphhop.kgqa.cover import (covering, cut_back, cut_to_verb, general, lure_cut, rivals, subject_of_named_verb, walk,
                                 walked_back, who_cut)
from graphhop.kgqa.compare import (COMPARATIVES, compare_sides, names_entity, read_options, resolve, same_value, split_choice,
                                   split_comparative, split_same)
from graphhop.kgqa.asked import names_topic
from graphhop.kgqa.end_type import asked_noun, described_noun, retype, singular, type_phrase
from graphhop.kgqa.levels import level_climb, level_move
from graphhop.kgqa.owner import typing_base
from graphhop.kgqa.link import Mention, masked, tokens
from graphhop.kgqa.result import finish, no_answer
from graphhop.kgqa.stored import counts_noun as _counts_noun, stored_value
from graphhop.kgqa.veto import type_veto, withheld
from graphhop.read.ops import parse_number, relation_sides

__all__ = ["OPERATIONS", "run_query", "run_count", "run_boolean", "run_comparison", "run_relation"]


def run_query(kgqa: Any, question: str, mentions: Sequence[Mention], entities_only: bool = False,
              keep: bool = False, things: bool = True, veto: bool = True) -> dict[str, Any]:
    """The best path over every topic mention (or a conjunction of two); see the module docstring.
    With ``entities_only``, paths that end at literals (years, numbers) are left out; so they are, where
    others remain, when ``things`` and the asked noun names a thing (:func:`asks_thing`); with ``keep``,
    the result holds the reading and path used under ``"_used"`` (for :func:`run_count`); with ``veto``, an
    answer whose type contradicts the question gives way or is withheld (:func:`graphhop.kgqa.veto.type_veto`)."""
    readings = [kgqa.read(question, m) for m in mentions]
    if entities_only:
        readings = [_without_literals(kgqa, r) for r in readings]
    elif things and asks_thing(masked(question, list(mentions))):
        readings = [_without_literals(kgqa, r, keep_all=True) for r in readings]
    readings = [r for r in readings if r.best is not None]
    if not readings:
        return no_answer("no entity of the KB found in the question" if not mentions else "no path from the question's entities")
    readings.sort(key=lambda r: -r.best.score)
    top = readings[0]
    conj = _conjunction(kgqa, readings)
    if conj is not None:
        return conj
    # with two mentions (``a player who plays at Defender position at the club X``) the other mention's
    # relation words are in the question too: they name no relation from this topic
    scorer_best = top.best  # its probability is the one judged, whatever path the rules below move to
    top, cover = covering(kgqa, top) if len(readings) == 1 else (top, {})
    top, wider = general(kgqa, top) if len(readings) == 1 else (top, {})
    top, typing = _typed(kgqa, top, masked(question, list(mentions)))
    vetoed = None
    if veto and getattr(kgqa, "type_veto", True):
        top, vetoed = type_veto(kgqa, top, masked(question, list(mentions)))
        if vetoed is not None:
            typing = {**typing, "type_veto": vetoed}
    names = kgqa.store.entities
    ans = kgqa.answers(top.best, top.mention.entities)
    res = finish(kgqa, top, top.best, ans, [names[a] for a in ans], kgqa.support(top.best, ans[:10]),
                  {"relation_path": kgqa.describe(top)["relation_path"], **cover, **wider, **typing},
                  pool=kgqa.confidence == "answer", scorer_path=scorer_best)
    if vetoed is not None and vetoed.get("withhold"):
        res = withheld(res, vetoed)
    if keep:
        res["_used"] = (top, top.best)
    return res


def _typed(kgqa: Any, reading: Any, text: str) -> tuple[Any, dict[str, Any]]:
    """The reading with its best path continued (or cut back) to an end of the asked noun's type
    (:func:`graphhop.kgqa.end_type.retype`; the noun is read from ``text``, the question with every
    entity mention masked, so ``which Germany footballer`` names no type); the continued path keeps
    the best path's probability."""
    typer = getattr(kgqa, "typer", None)
    noun = asked_noun(text, phrase=True) if typer is not None else None
    if names_topic(reading, noun):  # "which ferries does Brannock Ferries run": the topic's kind (session 16)
        return reading, {"answer_type": {"noun": noun, "moved_hops": 0, "topic_name": True}}
    if noun is None:
        who = who_cut(kgqa, reading, text) if typer is not None else None
        if who is None:
            return reading, {}
        return _moved(reading, who), {"answer_type": {"noun": "person", "moved_hops": -1, "who_cut": True,
                                                      "scorer_path": kgqa.describe(reading)["relation_path"]}}
    if subject_of_named_verb(kgqa, reading, text):
        return reading, {"answer_type": {"noun": noun, "moved_hops": 0, "subject_of": type_phrase(text).verb}}
    verb_cut = cut_to_verb(kgqa, reading, text)  # session 11 (kgc12): a hop past the asked verb's relation
    if verb_cut is not None:
        return _moved(reading, verb_cut), {"answer_type": {"noun": noun, "moved_hops": -1, "verb_cut": True,
                                                           "scorer_path": kgqa.describe(reading)["relation_path"]}}
    lured = lure_cut(kgqa, reading, noun)  # session 8 (kgf12): an owner relation's value
    if lured is not None:
        return _moved(reading, lured[0]), lured[1]
    cut, back, against = cut_back(kgqa, reading, text), walked_back(kgqa, reading, text), described_noun(text)
    more = [(p, 0) for p in (cut, back) if p is not None]
    got = retype(typer, typing_base(typer, reading.best, text, against, reading.mention.entities), noun,
                 kgqa.max_hops, numeric=kgqa.is_value, rivals=rivals(kgqa, reading) + more, against=against)
    gap = long_move_gap(kgqa, reading, got.path)
    if gap is not None and gap < -STOP_GAP:  # the scorer does not read a hop past SURE_HOPS in the question
        return _leveled(kgqa, reading, reading, noun, {"answer_type": {
            "noun": noun, "moved_hops": 0, "fit": round(got.fit_before, 4),
            "refused": {"relation_path": kgqa.describe(_moved(reading, got.path))["relation_path"], "gap": round(gap, 3)}}})
    trace = {"answer_type": {"noun": noun, "moved_hops": got.moved, "fit": round(got.fit_after, 4)}}
    if against is not None:
        trace["answer_type"]["against"] = against  # the fits are contrasted with this noun's
    if got.path is reading.best:
        return _leveled(kgqa, reading, reading, noun, trace)
    if got.path.steps[: len(reading.best.steps)] != reading.best.steps:
        trace["answer_type"]["rival"] = True  # another reading of the question, not a continuation
    trace["answer_type"]["scorer_path"] = kgqa.describe(reading)["relation_path"]
    trace["answer_type"]["scorer_fit"] = round(got.fit_before, 4)
    return _leveled(kgqa, reading, _moved(reading, got.path), noun, trace)


def _leveled(kgqa: Any, reading: Any, typed: Any, noun: str, trace: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``typed`` (the reading answer typing chose) moved along its containment chain to the place level the
    asked noun names (:func:`graphhop.kgqa.levels.level_move`: "which **region** is X in" is not the town),
    unless the move lengthens the path past the scorer's reading (:func:`long_move_gap`)."""
    moved = level_move(kgqa, typed.best, noun, [reading.best], reading.mention.entities)
    if moved is None:
        return typed, trace
    gap = long_move_gap(kgqa, reading, moved)
    climbed = gap is not None and gap < -STOP_GAP and level_climb(kgqa, typed.best, moved, noun)
    if gap is not None and gap < -STOP_GAP and not climbed:
        return typed, trace
    if climbed:
        trace["answer_type"]["level_climb"] = round(gap, 3)  # the KB's containment finished the chain (kge18)
    trace["answer_type"].update(level=True, level_from=kgqa.describe(typed)["relation_path"])
    trace["answer_type"].setdefault("scorer_path", kgqa.describe(reading)["relation_path"])
    return _moved(reading, moved), trace


#: Answer typing may lengthen a path past ``SURE_HOPS`` hops only when the trained scorer scores the longer path
#: within ``STOP_GAP`` (logits) of the path it continues: the scorer, not the type noun, decides whether the
#: question asks for a fourth hop ("the country where the chairman of X was born": -4.4; "what types are the
#: films directed by the director of X" continued past the genre: -17). Chosen on the 21 selection KBs and the
#: benchmark dev sets (session 12, kgh12: every typing move into hop 4 that lost a benchmark question was
#: below -11, every one that won a selection question above -10 but one, at -11.9).
SURE_HOPS, STOP_GAP = 3, 10.0


def long_move_gap(kgqa: Any, reading: Any, path: Any) -> float | None:
    """The scorer's logit of ``path`` less that of ``reading``'s best path, when ``path`` is longer than both
    the best path and :data:`SURE_HOPS` hops; else None (nothing to judge)."""
    best = reading.best
    if best is None or len(path.steps) <= max(SURE_HOPS, len(best.steps)):
        return None
    scores = kgqa.scorer.score_paths(kgqa.question_vector(reading.text), kgqa.store, [path, best], reading.text)
    return float(scores[0] - scores[1])


def _moved(reading: Any, path: Any) -> Any:
    """The reading with ``path`` first, keeping the best path's probability (the threshold judges the scorer's)."""
    rest = [(p, q) for p, q in zip(reading.paths, reading.probs.tolist()) if p.steps != path.steps]
    paths = [path] + [p for p, _ in rest]
    probs = np.asarray([reading.prob] + [q for _, q in rest])
    return type(reading)(reading.mention, reading.text, paths, probs)


def _conjunction(kgqa: Any, readings: list[Any], min_prob: float = 0.2) -> dict[str, Any] | None:
    """Two mentions whose confident best paths share some, but neither all, of their end entities:
    the intersection (``who plays Forward for club X``)."""
    good = [r for r in readings if r.prob >= min_prob]
    for i, a in enumerate(good):
        for b in good[i + 1 :]:
            ea = set(kgqa.answers(a.best, a.mention.entities))
            eb = set(kgqa.answers(b.best, b.mention.entities))
            both = ea & eb
            if both and both != ea and both != eb:  # each chain alone is ambiguous: join them
                names = kgqa.store.entities
                ans = sorted(both, key=lambda e: names[e])
                chains = kgqa.support(a.best, ans[:10]) + kgqa.support(b.best, ans[:10])
                res = finish(kgqa, a if a.prob <= b.prob else b, (a if a.prob <= b.prob else b).best, ans,
                              [names[e] for e in ans], chains, {"join": "and"})
                res["trace"]["relation_paths"] = [kgqa.describe(a)["relation_path"], kgqa.describe(b)["relation_path"]]
                return res
    return None


_HOW_MANY = re.compile(r"\bhow many\b|\b(?:what is |what's )?(?:the )?(?:total )?number of\b", re.I)


def run_count(kgqa: Any, question: str, mentions: Sequence[Mention]) -> dict[str, Any]:
    """How many entities the best path reaches (``how many`` read as ``which``)."""
    text = _HOW_MANY.sub("which", question)
    found = kgqa.linker.link(text) if text != question else mentions
    res = run_query(kgqa, text, found, keep=True, things=False, veto=False)
    used = res.pop("_used", None)
    if not res["supported"]:
        return {**res, "answer": "", "answers": []}
    counted = res["answers"]
    stored = stored_value(kgqa, text, found, used) if getattr(kgqa, "stored_counts", True) else None
    if stored is not None:  # "how many people live in the town where ...": the town's population
        return stored
    if _counts_values(kgqa, text, found, counted, used[1] if used else None):
        if len(counted) == 1 and _counts_noun(kgqa, text, found, res["trace"]["relation_path"]):  # the KB stores the count itself
            res["trace"]["stored_count"] = counted[0]
            res["answers"] = [counted[0]]
            return res
        held = _value_holders(kgqa, used) if len(counted) > 1 else None
        res = held or run_query(kgqa, text, found, entities_only=True, keep=True, veto=False)
        used = res.pop("_used", None)
        if not res["supported"]:
            return {**res, "answer": "", "answers": []}
        if len(counted) > 1:
            res["trace"]["values_not_counted"] = counted[:10]
        counted = res["answers"]
    _support_every(kgqa, res, used)
    counted = _with_described_topic(kgqa, text, res, counted, used)
    res["trace"]["counted"] = counted
    res["answer"] = str(len(counted))
    res["answers"] = [res["answer"]]
    return res


def _support_every(kgqa: Any, res: dict[str, Any], used: Any, shown: int = 10) -> None:
    """A count's support with a chain to every counted entity, not only to the first ``shown`` (the list's): the
    lots of *every* auction held in a country are counted, and each one's chain is a reason (session 17, kga17).
    The support's edge limit grows with the count (``max_support`` or one chain of the path's length per entity)."""
    reading, path = used or (None, None)
    if path is None:
        return
    ids = kgqa.answers(path, reading.mention.entities)
    if len(ids) > shown:
        res["chains"] = kgqa.support(path, ids, limit=max(kgqa.max_support, len(ids) * len(path.steps)))


def _counts_values(kgqa: Any, text: str, mentions: Sequence[Mention], counted: Sequence[str], path: Any = None) -> bool:
    """Whether a count's answers are numbers that are not what it counts: one number (a stored count, or a value
    to be read again over things), or several numbers when the counted noun names a thing ("how many different
    **pastries** ..." over ``makes → first baked``: the pastries' years are not pastries; :func:`asks_thing`).
    Session 14 (kgp14). Never when the ends ``path`` reached are things with facts of their own, not values
    (:meth:`~graphhop.kgqa.pipeline.KGQA.is_value`): "how many elections has X won" over ``^winner`` counts the
    ``2019 general election`` and its like, each the subject of a fact, whatever number their names begin with
    (session 15, kgt15)."""
    if not counted or any(parse_number(c) is None for c in counted):
        return False
    if path is not None and not kgqa.is_value(path):
        return False
    return len(counted) == 1 or asks_thing(masked(text, list(mentions)))


def _value_holders(kgqa: Any, used: Any) -> dict[str, Any] | None:
    """The things whose values a count's path reached, as a :func:`run_query` result (``_used`` set): the path
    without its last step, when its ends are things (not values, not only the topic). "How many different
    pastries are made by the bakeries ..." over ``^flour from → makes → first baked`` counts the pastries the
    scorer's chain passed through, not their years. None when there is no such prefix."""
    reading, path = used or (None, None)
    if path is None or len(path.steps) < 2:
        return None
    prefix = type(path)(path.steps[:-1], path.layers[:-1], score=path.score)
    if kgqa.is_value(prefix) or set(prefix.ends.tolist()) <= set(reading.mention.entities):
        return None
    moved, names = _moved(reading, prefix), kgqa.store.entities
    ans = kgqa.answers(prefix, reading.mention.entities)
    res = finish(kgqa, moved, prefix, ans, [names[a] for a in ans], kgqa.support(prefix, ans[:10]),
                 {"relation_path": kgqa.describe(moved)["relation_path"], "value_holders": True}, scorer_path=path)
    res["_used"] = (moved, prefix)
    return res


def _with_described_topic(kgqa: Any, text: str, res: dict[str, Any], counted: list[str], used: Any) -> list[str]:
    """The counted entities, with the topic among them when the question describes something *by* the
    topic and the chain comes back to it: "How many films did **the director of X** direct?" counts X
    (X is one of the director's films), "How many siblings does X have?" does not (no ``of X``)."""
    reading, path = used or (None, None)
    if path is None or not len(path.steps) >= 2:
        return counted
    mention = reading.mention
    toks = tokens(text.replace("[", " ").replace("]", " "))
    before = [w for w in toks[max(0, mention.start - 2) : mention.start] if w != "the"]
    if before[-1:] != ["of"]:
        return counted
    full = walk(kgqa.store, mention.entities, path.steps, path.score)  # with the topic a walk-back leaves out
    topic = [e for e in mention.entities if full is not None and e in set(full.ends.tolist())]
    names = kgqa.store.entities
    if len(topic) != 1 or names[topic[0]] in counted:
        return counted
    res["chains"] = kgqa.support(full, topic) + res["chains"]
    res["trace"]["topic_counted"] = names[topic[0]]
    return [names[topic[0]]] + counted


#: Nouns that name a value, not a thing of the KB (:func:`asks_thing`): "which **year**", "what **population**".
VALUE_NOUNS = frozenset("""year date day month time century decade era age number amount count total population
    height length width depth elevation altitude area size capacity price cost value rank ranking score weight
    distance speed percentage rate budget revenue salary duration temperature volume figure level rating
    attendance fee code""".split())


def asks_thing(text: str) -> bool:
    """Whether a (masked) question asks for a thing by a type noun ("which **region** is X in", "in which
    **province** was ... born"): no word of its phrase, nor the word after it ("what was the release **year**",
    "the jersey **number**"), in :data:`VALUE_NOUNS` (years, heights, populations). A bare number
    the scorer reaches (``area_hectares``, ``date of birth``) then does not answer it. Session 11 (kgw12)."""
    got = type_phrase(text)
    if got is None or got.noun is None or got.tokens[got.cue] not in ("which", "what"):
        return False
    near = got.tokens[got.start : got.end + 1]  # the phrase and the word after it: "the release **date** of"
    return not {singular(w) for w in near} & VALUE_NOUNS


_LETTER = re.compile(r"[^\W\d]")


def _bare_values(kgqa: Any, path: Any, sample: int = 20) -> bool:
    """Whether ``path`` ends at bare values: numbers (:meth:`~graphhop.kgqa.pipeline.KGQA.is_numeric`) written
    without letters, none of which is the subject of a fact (``14`` hectares, a birth year; not a track named
    ``2001``, a thing of the KB with facts of its own, nor the ``1996_Summer_Olympics``)."""
    names = kgqa.store.entities
    return kgqa.is_value(path, sample) and not any(_LETTER.search(names[e]) for e in path.ends[:sample].tolist())


def _without_literals(kgqa: Any, reading: Any, keep_all: bool = False) -> Any:
    """The reading without its paths that end at literals, probabilities renormalized (with ``keep_all``, only
    paths that end at bare values (:func:`_bare_values`), and unchanged when every path does)."""
    literal = (lambda p: _bare_values(kgqa, p)) if keep_all else kgqa.is_numeric
    keep = [(p, q) for p, q in zip(reading.paths, reading.probs.tolist()) if not literal(p)]
    if len(keep) == len(reading.paths) or (keep_all and not keep):
        return reading
    probs = np.asarray([q for _, q in keep])
    return type(reading)(reading.mention, reading.text, [p for p, _ in keep], probs / max(probs.sum(), 1e-12))


def run_boolean(kgqa: Any, question: str, mentions: Sequence[Mention]) -> dict[str, Any]:
    """Yes/no: a comparison of two sides (``Was A founded after B?``), a shared value (``Do A and
    B play in the same league?``), an identity (``Is A the biggest city in B?``: :mod:`graphhop.kgqa.identity`), or a
    claimed value (the last mention) checked against the best path from the other mentions whose last relation can
    arrive at the claim."""
    comparative = split_comparative(question)
    if comparative is not None and detect_comparative(comparative[1]):
        aux, middle, side_b = comparative
        res = _boolean_comparison(kgqa, question, aux, middle, side_b)
        if res is not None:
            return res
    for same in sorted(split_same(question), key=lambda split: not names_entity(kgqa, split[1])):
        res = _boolean_same(kgqa, question, *same)
        if res is not None:
            return res
    if getattr(kgqa, "identity", True):
        res = identity_claim(kgqa, question, mentions, run_query)  # "Is A the biggest city in B?"
        if res is not None:
            return res
    return boolean_claim(kgqa, question, mentions)


def detect_comparative(text: str) -> bool:
    """Whether ``text`` holds a comparative word (:data:`COMPARATIVES`: older, more, after, ...)."""
    return bool(set(re.findall(r"[a-z]+", text.lower())) & COMPARATIVES)


def _boolean_comparison(kgqa: Any, question: str, aux: str, middle: str, side_b: str) -> dict[str, Any] | None:
    found = kgqa.linker.link(middle)
    if not found:
        return None
    last = max(found, key=lambda m: m.end)
    toks = tokens(middle)
    side_a, predicate = " ".join(toks[: last.end]), " ".join(toks[last.end :])
    sides = [resolve(kgqa, side_a), resolve(kgqa, side_b)]
    if None in sides:
        return None
    cmp = compare_sides(kgqa, question, sides, f"{aux} X {predicate}")
    if cmp is None:
        return no_answer("no relation path leads both sides to a value", {"sides": [side_a, side_b]})
    verdict = "yes" if cmp["winner"] is cmp["picks"][0] else "no"
    return _two_sided(kgqa, cmp, [verdict], {"sides": [side_a, side_b]})


def _two_sided(kgqa: Any, cmp: dict[str, Any], text: list[str], trace: dict[str, Any]) -> dict[str, Any]:
    names = kgqa.store.entities
    trace = {**trace, "direction": cmp["direction"], "relation_path": cmp["relation_path"],
             "picks": [{"entity": names[p["side"]["entity"]], "value": p["value"]} for p in cmp["picks"]]}
    weakest = cmp["weakest"]
    chains = [c for p in cmp["picks"] for c in p["chains"]]
    return finish(kgqa, weakest["reading"], weakest["path"], [], text, chains, trace, weakest["among"])


def _boolean_same(kgqa: Any, question: str, side_a: str, side_b: str, predicate: str) -> dict[str, Any] | None:
    sides = [resolve(kgqa, side_a), resolve(kgqa, side_b)]
    if None in sides:
        return None
    noun = predicate.split()[-1] if predicate.split() else ""
    asked = f"which {noun} X {predicate}" if noun.isalpha() else f"X {predicate}"  # the shared value's type
    res = same_value(kgqa, sides, asked)
    if res is None:
        return None
    return finish(kgqa, res["reading"], res["path"], [], ["yes" if res["same"] else "no"], res["chains"],
                   {"sides": [side_a, side_b], "relation_path": res["relation_path"]})


def _past_verb(word: str) -> bool:
    """Whether a word read as the asked noun is a past-tense verb (``opened``, ``started``; not ``breed``, ``shed``)."""
    return len(word) > 4 and word.endswith("ed") and not word.endswith("eed")


def run_comparison(kgqa: Any, question: str, mentions: Sequence[Mention]) -> dict[str, Any]:
    """``..., A or B?``: the side whose value on the shared numeric path wins."""
    prefix, options = split_choice(question)
    noun = "person" if prefix.lower().startswith(("who ", "whom ")) else asked_noun(prefix)
    if noun is not None and _past_verb(noun):
        noun = None  # "which opened earlier": ``which`` is the pronoun and ``opened`` its verb, not a type noun
    prefix, texts, noun, by_owner = read_options(prefix, options, noun, lambda t: names_entity(kgqa, t))
    sides = [resolve(kgqa, o, noun) for o in texts]
    if len(options) != 2 or None in sides:
        return no_answer("fewer than two options name an entity of the KB", {"options": options})
    cmp = compare_sides(kgqa, question, sides, f"{prefix} X")
    if cmp is None:
        return no_answer("no relation path leads both options to a value", {"options": options})
    side = cmp["winner"]["side"]
    winner = kgqa.store.entities[side["mention"].entities[0] if by_owner else side["entity"]]
    return _two_sided(kgqa, cmp, [winner], {"options": options, **({"sides": texts} if texts != options else {})})


def run_relation(kgqa: Any, question: str, mentions: Sequence[Mention]) -> dict[str, Any]:
    """The relations of the facts that link the two sides' entities."""
    store = kgqa.store
    for side_a, side_b in relation_sides(question):
        ma, mb = kgqa.linker.link(side_a), kgqa.linker.link(side_b)
        if not ma or not mb:
            continue
        a, b = set(ma[0].entities), set(mb[0].entities)
        edges = [int(e) for e in store.edges_of(list(a), True) if int(store.tails[e]) in b]
        edges += [int(e) for e in store.edges_of(list(a), False) if int(store.heads[e]) in b]
        if edges:
            labels = list(dict.fromkeys(clean_relation(store.relations[store.rels[e]]) for e in edges))
            return {"answer": labels[0], "answers": labels, "score": 1.0, "supported": True,
                    "chains": [[e] for e in edges], "trace": {"sides": [side_a, side_b]}}
    return no_answer("no fact links the two sides")


OPERATIONS: dict[str, Callable[[Any, str, Sequence[Mention]], dict[str, Any]]] = {
    "query": run_query, "count": run_count, "boolean": run_boolean, "comparison": run_comparison,
    "relation": run_relation,
}
