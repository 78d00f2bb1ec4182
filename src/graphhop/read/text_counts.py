"""Count questions over text (:class:`graphhop.read.text_qa.TextQA`'s ``count`` type), in this order:

``How many of the X were born in Ostham?``, ``How many of the named volcanoes are more than 2,000 metres high?``,
``How many women are among the X?`` (a count of the items of a list that pass a test)
    the items of ``Which X?`` (read as a list; words that only point at the texts, ``named in the texts``,
    ``described``, dropped), each tested on its own: a claim is asked as a yes/no question (``Was Oda Fenn born in
    Ostham?``, :func:`graphhop.read.text_yesno.answer_yes_no`), a bound (``more than 2,000 metres high``) as the
    value it bounds (``How high is Hekkavar?``), ``women`` / ``men`` by the pronouns of the item's own passage
    (``she`` / ``her`` against ``he`` / ``his``); the count is of those that pass, the support every passage read.
``How many times did X serve as warden?``, ``For how many years was X chairman?`` (a frequency or a duration, not a
count of entities: :mod:`graphhop.read.text_forms`)
    the frequency (``served twice``) or the duration (``from 1921 to 1935``, ``for twelve years``) written by the best
    reading that has one, in its text or its sentence.
a number the text writes (``The party numbered eleven Brennish climbers``; never one written as a duration, ``for
almost thirty years``)
    the number written just before the counted noun (:func:`counted_number`), else the best reading that is a
    number (not a year).
no number read so (``How many tents did Cirque Valdane take on the road?``)
    the one number written just before the counted noun in the own passage of an entity the question names
    (``with three tents``; :func:`own_count`).
otherwise
    the question read as ``Which ...?`` (``In how many towns`` as ``In which towns``) and its distinct answers
    counted: the items of a list (``TextQA._query`` with ``listing``).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from graphhop.read.numbers import NUMBER, is_number, parse_value
from graphhop.read.text_forms import asks_duration, asks_times, duration, frequency, is_duration, is_time_span
from graphhop.read.text_qa import Reading, TextAnswer, _mentions, split_list

__all__ = ["answer_count", "counted_number", "filtered_count", "how_often", "own_count"]

_COUNT = re.compile(r"^(?:(?:in|at|on|from|for|to|by|with|of) )?how many\b", re.I)
_OF_THE = re.compile(r"^how many of (?:the |these |those )?(?P<np>.+?)\s+(?P<aux>are|were|is|was|have|has|had|did|do|does)"
                     r"\s+(?P<pred>.+?)[\s?.!]*$", re.I)
_AMONG = re.compile(r"^how many (?P<kind>[a-z]+) (?:are|were|is|was) (?:there )?among (?:the |these |those )?(?P<np>.+?)"
                    r"[\s?.!]*$", re.I)
#: Words that only point at the texts themselves (``the holders named in the texts``, ``the typefaces described``).
_CORPUS = re.compile(r"\b(?:named|mentioned|described|listed)(?:\s+(?:in|by)\s+(?:the|these|this)\s+(?:texts?|passages?"
                     r"|documents?|articles?))?\b|\b(?:in|by)\s+(?:the|these|this)\s+(?:texts?|passages?)\b", re.I)
_BOUND = re.compile(r"^(?P<cmp>more|greater|higher|larger|over|above|less|fewer|lower|smaller|under|below)(?:\s+than)?\s+"
                    r"(?P<n>\d[\d,.]*)\s*(?P<rest>.*)$", re.I)
_GENDER = {"women": "she", "woman": "she", "female": "she", "men": "he", "man": "he", "male": "he"}


def answer_count(qa: Any, question: str) -> TextAnswer:
    """Answer a ``How many`` question with ``qa`` (a :class:`~graphhop.read.text_qa.TextQA`; module docstring)."""
    filtered = filtered_count(qa, question)
    if filtered is not None:
        return filtered
    unit = asks_duration(question)
    if unit or asks_times(question):
        often = how_often(qa, question, unit)
        if often is not None:
            return often
    paths, readings = qa._read(question)
    if not unit:  # ``for almost thirty years`` counts no entity
        readings = [r for r in readings if not (is_number(r.text) and is_duration(r.sentence, r.text))]
    best = counted_number(readings, question) or qa._best(readings)
    value = parse_value(best.text) if best is not None and best.margin > qa.min_margin else None
    is_year = 1000 <= (value or 0) <= 2100 and "," not in (best.text if best else "")
    if best is not None and value is not None and len(split_list(best.text)) == 1 and not is_year:
        return qa._result("count", paths, best, question, {"number": best.text}, text=str(int(value)))
    own = own_count(qa, question)
    if own is not None:
        return own
    listing = _COUNT.sub("Which", question.strip(), count=1)
    res = qa._query(listing, "count", listing=True, query=question)
    if not res.supported:
        return qa._result("count", [], None, question, {"listing_question": listing})
    n = str(len(res.answers))
    return TextAnswer("count", n, res.score, [n], True, res.support, res.graph,
                      {"listing_question": listing, "counted": res.answers})


def own_count(qa: Any, question: str) -> TextAnswer | None:
    """``How many tents did Cirque Valdane take on the road?`` when the walk read no count: the number written just
    before the counted noun (``with three tents``; not a year nor a duration) in the own passage of an entity the
    question names (titled with it, else with a name that holds it: ``Wendrell Mine`` for ``Wendrell``); None
    unless those passages write exactly one such value."""
    from graphhop.read.sentence_graph import STOP, TOKEN, word_key

    graph, asked = getattr(qa.reader, "graph", None), re.search(r"\bhow many ([a-z]+)\b", question, re.I)
    if graph is None or asked is None or asked[1].lower() in STOP:
        return None
    found: dict[float, tuple[str, str, str]] = {}  # value -> (number, sentence, passage)
    for name in graph.entities(question):  # a passage titled with it, or with a name holding it (``Wendrell Mine``)
        for doc in qa._titled(name)[:1] or [ids[0] for k, ids in graph.titles.items() if _mentions(k, name)]:
            for sentence in re.split(r"(?<=[.!?])\s+", qa.retriever.text(doc)):
                for m in NUMBER.finditer(sentence):
                    after = TOKEN.findall(sentence[m.end():].lower())[:2]
                    value = parse_value(m[0])
                    if value is None or is_time_span(m[0], sentence) or word_key(asked[1]) not in map(word_key, after):
                        continue
                    found.setdefault(value, (m[0], sentence, doc))
    if len(found) != 1:
        return None
    (value, (text, sentence, doc)), = found.items()
    best = Reading(text, qa.min_margin + 1e-3, (doc,), 0.0, sentence)
    return qa._result("count", [], best, question, {"own_passage": sentence}, text=str(int(value)))


def how_often(qa: Any, question: str, unit: str | None) -> TextAnswer | None:
    """``How many times ...?`` (``unit`` None) / ``For how many years ...?``: the frequency or duration (in ``unit``)
    of the best reading over the margin that writes one, in its own text first, then in its sentence; None if none."""
    paths, readings = qa._read(question)
    for r in sorted(readings, key=lambda r: -r.margin):
        if r.margin <= qa.min_margin:
            break
        value = frequency(r.sentence) if unit is None else (duration(r.text, unit) or duration(r.sentence, unit))
        if value is not None:
            return qa._result("count", paths, r, question, {"often": r.sentence}, text=str(int(value)))
    return None


def filtered_count(qa: Any, question: str) -> TextAnswer | None:
    """``How many of the X <predicate>?`` / ``How many <kind> are among the X?`` (module docstring); None for
    another question or when the list has no items."""
    q = " ".join(question.split())
    of, among = _OF_THE.match(q), _AMONG.match(q)
    if of is None and (among is None or among["kind"].lower() not in _GENDER):
        return None
    np = of["np"] if of else among["np"]  # type: ignore[index]
    listing = f"Which {' '.join(_CORPUS.sub(' ', np).split())}?"
    res = qa._query(listing, "count", listing=True)
    if not res.supported or not res.answers:
        return None
    support, passed, tests = list(res.support), [], []
    for item in res.answers:
        ok, used = (_passes(qa, item, of["aux"], of["pred"]) if of else
                    _gendered(qa, item, _GENDER[among["kind"].lower()]))  # type: ignore[index]
        support += [d for d in used if d not in support]
        tests.append({"item": item, "passes": ok})
        if ok:
            passed.append(item)
    n = str(len(passed))
    return TextAnswer("count", n, res.score, [n], True, tuple(support), res.graph,
                      {"listing_question": listing, "tested": tests, "counted": passed})


def _passes(qa: Any, item: str, aux: str, predicate: str) -> tuple[bool, list[str]]:
    """Whether ``item`` meets ``predicate`` (a claim or a numeric bound) and the passages that say so."""
    from graphhop.read.ops import _MIN
    from graphhop.read.text_yesno import answer_yes_no

    bound = _BOUND.match(predicate)
    if bound is not None:
        rest = bound["rest"].split()
        asked = f"How {rest[-1]} is {item}?" if rest else f"How many are {item}?"
        res = qa._query(asked)
        value = parse_value(res.answer) if res.supported and is_number(res.answer.split()[0] if res.answer else "") else None
        if value is None:
            return False, list(res.support)
        limit = float(bound["n"].replace(",", ""))
        return (value < limit if bound["cmp"].lower() in _MIN | {"under", "below"} else value > limit), list(res.support)
    res = answer_yes_no(qa, f"{aux.capitalize()} {item} {predicate}?")
    return res.supported and res.answer == "yes", list(res.support)


def _gendered(qa: Any, item: str, pronoun: str) -> tuple[bool, list[str]]:
    """Whether the item's own passages speak of it as ``she`` or as ``he`` (more of the asked pronoun's forms)."""
    forms = {"she": ("she", "her", "hers", "herself"), "he": ("he", "him", "his", "himself")}
    docs = qa._titled(item)
    words = [w for d in docs for w in re.findall(r"[a-z]+", qa.retriever.text(d).lower())]
    asked = sum(words.count(w) for w in forms[pronoun])
    other = sum(words.count(w) for w in forms["he" if pronoun == "she" else "she"])
    return asked > other, docs


def counted_number(readings: Sequence[Reading], question: str) -> Reading | None:
    """The best reading of a number written just before the noun a ``How many`` question counts (``the party
    numbered eleven Brennish climbers and surveyors, supported by about forty porters`` for ``How many Brennish
    climbers ... took part``: eleven, not forty): most of the question's next three content words among the three
    words after the number, in its clause (``in 1931, when he reached the summit`` counts nothing), then the margin
    (``210,000 people live`` over ``seats 640 people`` for ``How many people live``); None when no number is written
    so."""
    from graphhop.read.sentence_graph import STOP, TOKEN, find_name, word_key

    words = TOKEN.findall(question.lower())
    counted = {word_key(w) for w in words[2:5] if w not in STOP} if words[:2] == ["how", "many"] else set()
    found = []
    for r in readings:
        at = find_name(r.sentence, r.text) if counted and r.sentence and is_number(r.text) else None
        after = TOKEN.findall(re.split(r"[,;:.()]", r.sentence[at[1]:], maxsplit=1)[0].lower())[:3] if at else []
        met = len(counted & {word_key(w) for w in after})
        if met:
            found.append((met, r.margin, r))
    return max(found, key=lambda f: f[:2])[2] if found else None
