"""List questions over text: which questions ask a list, and which of the reader's readings are its items.

``asks_list`` / ``asks_people`` tell a list question (``Which paintings ...``, ``Name the ships ...``, ``Which people
...``); :func:`list_items` picks a list answer's items and support from the readings of
:class:`~graphhop.read.text_qa.TextQA` (the typed items when the text names some answer as the asked type, else the
answers within a margin of the best, then the best's siblings).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any, Sequence

from graphhop.kb.names import fold_name
from graphhop.read.numbers import is_number

if TYPE_CHECKING:
    from graphhop.read.text_qa import Reading

__all__ = ["asks_list", "asks_people", "split_list", "list_items", "margin_items", "typed_items", "sibling_items",
           "coordinated", "coordinated_items", "enumeration"]

#: At most this many words between two names a sentence coordinates (``the Golden Hoop for the best act of the year,
#: the Silver Nose for the best clown, and the Young Star Prize``).
COORDINATED_WORDS = 8
#: Two readings whose fits to the asked type differ by no more than this are of one kind (``TextQA.sibling_fit``).
SAME_KIND = 0.25
_PREPOSITIONS = {"of", "to", "in", "at", "from", "by", "for", "with", "on", "near", "into", "under", "over", "between"}


def asks_list(question: str) -> bool:
    """Whether ``question`` asks for every item of a plural type (``Which paintings ...``, ``What ships ...``,
    ``Name the ships ...``, ``At which universities ...``, ``Which Sawdust Academy graduates ...``, ``Who were the
    apprentices ...``); a question after a sentence of context is read from its last sentence."""
    from graphhop.read.facts import answer_type

    question = re.split(r"(?<=[.!])\s+(?=[A-Z])", question.strip())[-1]
    named = re.match(r"^\s*(?:name|list) the (\w+)", question, re.I)
    people = re.match(r"^\s*(?i:who) (?:were|are|have been) the (?:[a-z]+ )?([a-z]+)\b", question)
    unnamed = re.sub(r"(?<=\w )[A-Z][\w'&-]*\s*", "", question)  # ``Which Sawdust Academy graduates`` -> ``graduates``
    asked = [(named or people)[1]] if named or people else (answer_type(unnamed) or "").split()
    asks = bool(named or people or re.match(r"^\s*(?:(?:at|in|on|from|for|to|by|with|into) )?(?:which|what)\b", question, re.I))
    return asks and bool(asked) and asked[0].endswith("s") and not asked[0].endswith(("ss", "us", "is"))


def asks_people(question: str) -> bool:
    """Whether ``question`` asks for every person of a kind (``Which people are named as winners of X?``)."""
    return bool(re.match(r"^\s*(?:which|what) (?:people|persons|men|women|children)\b", question, re.I))


def split_list(text: str) -> list[str]:
    """``"A, B and C"`` -> ``["A", "B", "C"]``."""
    parts = re.split(r",(?!\d{3}(?!\d))\s*|\s+and\s+|\s*;\s*", text.strip(" ."))
    return [p.strip() for p in parts if p.strip()]


def _same(a: str, b: str) -> bool:
    fa, fb = fold_name(a), fold_name(b)
    return bool(fa and fb) and (fa == fb or f" {fa} " in f" {fb} " or f" {fb} " in f" {fa} ")


def list_items(qa: Any, question: str, readings: Sequence[Reading], best: Reading
               ) -> tuple[Reading, list[str], list[str]]:
    """A list question's best reading, items and support (``qa``: the :class:`~graphhop.read.text_qa.TextQA`); the
    items are of the best's kind: numbers when the best is a number, else no number (``Its holders include Oda Fenn
    (1930) and Gideon Holloway``: not ``1930``); the support of a list is every path on which the reader finds one of its
    items (margin above ``min_margin``), not only the first."""
    numbers = is_number(best.text)
    readings = [r for r in readings if is_number(r.text) == numbers]
    if any(r.type_fit >= 1.0 for r in readings):
        best, items, support = typed_items(qa, readings, best)
    else:
        items, support = margin_items(qa, readings, best, qa.list_margin)
    items, support = sibling_items(qa, question, readings, best, items, support)
    items, support = coordinated_items(readings, items, support)
    if len(items) > 1:  # every path on which the reader finds a kept item (``Two volcanoes dominate it: A ... and B``)
        support += [d for r in readings if r.margin > qa.min_margin and any(_same(r.text, i) for i in items)
                    for d in r.path if d not in support]
    stated = [d for item in items for d in qa.stating(question, item)] if len(items) > 1 else []
    return best, items, list(dict.fromkeys((*support, *stated)))  # ``Two volcanoes dominate it: A ... and B``


def sibling_items(qa: Any, question: str, readings: Sequence[Reading], best: Reading, items: list[str],
                  support: list[str]) -> tuple[list[str], list[str]]:
    """A list's items read off the same entity as its best item (walk reader): the other answers (names when the
    best is a name) within ``sibling_margin`` of the best, with a type fit at most ``sibling_fit`` under the best's
    (or under .5 when the text names the best as the asked type), read in the best's own
    sentence from the same entity (``Its crews went out to the steamer Castellan in 1889 and to the barque
    Harwick Maid in 1894``), or read straight off an entity the question names (``Fennimore Black ... was cut
    by his apprentice Hale Tobbin``, in another passage than ``Tobbin Roman ... completed by Hale Tobbin``)."""
    graph = getattr(qa.reader, "graph", None)
    if graph is None or not best.holder:
        return items, support
    asked = [fold_name(e) for e in graph.entities(question)]
    numbers = is_number(best.text)
    items, support = list(items), list(support)
    for r in sorted(readings, key=lambda r: -r.margin):
        if r.margin < best.margin - qa.sibling_margin or r.type_fit < min(best.type_fit, 0.5) - qa.sibling_fit \
                or is_number(r.text) != numbers or any(_same(r.text, seen) for seen in items):
            continue
        if (r.sentence == best.sentence and _same(r.holder, best.holder)) or fold_name(r.holder) in asked:
            items.append(r.text)
            support += [d for d in r.path if d not in support]
    return items, support


def coordinated(sentence: str, a: str, b: str, most: int = COORDINATED_WORDS, alike: bool = False) -> bool:
    """Whether ``sentence`` coordinates the names ``a`` and ``b`` (general English): between their mentions stand
    at most ``most`` words, among them a coordinator (``and``, ``or``, ``as well as``, a semicolon; or only a comma,
    ``Polgarrow Mine, Blackmarrow Pit``: not an apposition's, ``Pelasca, however, is Montaury``), no
    clause break (a colon, a dash, ``while``, ``but``, a relative pronoun), no third name, and the later name not the
    object of a preposition right before it (``Polgarrow Mine, two miles south of Tallowford``); two names only a comma
    parts, the first after a preposition, are one list only when ``alike`` (of one kind: ``at Pellock, Saltmere and
    Dunmarrow``, not ``three mines on Korrow Moor, Polgarrow Mine``) (``Its holders include Oda Fenn (1930) and Gideon Holloway``; ``to the steamer Castellan in 1889 and to the barque
    Harwick Maid in 1894``)."""
    from graphhop.read.sentence_graph import find_name

    at_a, at_b = find_name(sentence, a), find_name(sentence, b)
    if at_a is None or at_b is None or at_a == at_b:
        return False
    between = sentence[min(at_a[1], at_b[1]) : max(at_a[0], at_b[0])]
    words = re.findall(r"[\w'’-]+", between)
    before = re.findall(r"[\w'’-]+", sentence[: min(at_a[0], at_b[0])])[-1:]  # ``on Korrow Moor, Polgarrow Mine``:
    listed = re.search(r";|\b(?:and|or|as well as)\b", between) or (  # a place, then the first of the list
        re.fullmatch(r"\s*(?:\([^()]*\)\s*)?,\s*(?:the\s+)?", between) and (alike or not (before and before[0].lower() in _PREPOSITIONS)))
    return len(words) <= most and bool(listed) \
        and not re.search(r"[:–—]|\b(?:while|but|whereas|who|which|that|whom|whose)\b", between) \
        and not any(w[:1].isupper() for w in words) and not (words and words[-1].lower() in _PREPOSITIONS)


def coordinated_items(readings: Sequence[Reading], items: list[str], support: list[str]
                      ) -> tuple[list[str], list[str]]:
    """A list stated as one enumeration: the first kept item (best first) that a sentence coordinates with other
    names (:func:`enumeration`) gives the list — that enumeration alone, its paths the support (``It worked three
    mines on Korrow Moor, Polgarrow Mine, Blackmarrow Pit and Hollin Edge Mine``: not the mines read off other
    entities); the items as they are when no kept item is coordinated so."""
    from graphhop.read.text_forms import is_entity_name

    if not items or not all(is_entity_name(i) for i in items):
        return items, support
    for item in items:
        found = enumeration(readings, item)
        if len(found) > 1:
            listed = list(dict.fromkeys(r.text for r in found))
            named = [i for i in listed if not any(_same(i, j) for j in listed if j != i and len(j) > len(i))]
            return named, list(dict.fromkeys(d for r in found for d in r.path))
    return items, support


def enumeration(readings: Sequence[Reading], item: str) -> list[Reading]:
    """The readings of ``item`` and of the names a sentence coordinates with it (:func:`coordinated`), read off the
    same entity in the same sentence, names only (not a number nor a common noun: ``the year, the Silver Nose``), alike
    when their fits to the asked type differ by at most ``SAME_KIND`` (the walk reader's sibling tolerance); then
    again from each name added, so ``A, B and C`` joins whole."""
    from graphhop.read.text_forms import is_entity_name

    found = [r for r in readings if fold_name(r.text) == fold_name(item)]
    todo = list(found)
    while todo:
        r0 = todo.pop()
        for r in readings:
            if r.sentence == r0.sentence and _same(r.holder, r0.holder) and is_entity_name(r.text) \
                    and r not in found and coordinated(r.sentence, r0.text, r.text,
                                                       alike=abs(r.type_fit - r0.type_fit) <= SAME_KIND):
                found.append(r)
                todo.append(r)
    return found if len({fold_name(r.text) for r in found}) > 1 else []


def typed_items(qa: Any, readings: Sequence[Reading], best: Reading) -> tuple[Reading, list[str], list[str]]:
    """A list question's items (walk reader): the answers the text names as the asked type (type fit 1),
    read over as many hops as the best of them, within ``typed_margin`` of it."""
    typed = [r for r in readings if r.type_fit >= 1.0]
    top = max(typed, key=lambda r: r.margin)
    if top.margin < best.margin - qa.typed_margin:
        top = best
    kept = [r for r in typed if r.hops == top.hops and r.margin >= top.margin - qa.typed_margin]
    items: list[str] = []
    support: dict[str, None] = dict.fromkeys(top.path)
    for r in [top] + sorted(kept, key=lambda r: -r.margin):
        if not any(_same(r.text, seen) for seen in items):
            items.append(r.text)
            support.update(dict.fromkeys(r.path))
    return dataclasses.replace(top, margin=max(top.margin, best.margin)), items, list(support)


def margin_items(qa: Any, readings: Sequence[Reading], best: Reading, margin: float) -> tuple[list[str], list[str]]:
    """Distinct answers (list spans split into items) of the readings within ``margin`` of the
    best, best first, and the union of their supports (the best reading's first)."""
    kept = [r for r in readings if r.margin >= best.margin - margin and r.margin > qa.min_margin]
    items: list[str] = []
    support: dict[str, None] = dict.fromkeys(best.path)
    for r in [best] + sorted(kept, key=lambda r: -r.margin):
        for item in split_list(r.text):
            if not any(_same(item, seen) for seen in items):
                items.append(item)
                support.update(dict.fromkeys(r.path))
    return items, list(support)
