"""``How many ...`` answered by a number the KB stores (``population``, ``number of employees``), not a count.

"How many people live in the town where Castell Foundry has its works?" reaches the town (``works in``); what it asks
is the town's ``population``, one stored number, not how many towns there are (``1``). When the count's chain ends
at one thing that holds one number under a relation named like the counted noun (:func:`counts_noun`), that number
is the answer, shown by the chain continued to it (:func:`stored_value`). A real count ("How many stations does
the brigade run?") reaches several things, or none of its things stores a number named like the noun. Session 17
(kgy17); :func:`counts_noun` is session 12's check of a number the chain reached itself.
"""

from __future__ import annotations

from typing import Any, Sequence

from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.end_type import _continuations, asked_noun
from graphhop.kgqa.link import Mention, masked
from graphhop.kgqa.result import finish

__all__ = ["STORED_COUNT_MIN_COS", "STORED_PATH_SHARE", "counts_noun", "noun_closeness", "stored_value"]

#: How close (MiniLM cosine) the counted noun must be to the name of a relation whose value is one
#: number for that number to be the count (``employees`` / ``number of employees`` .60, ``people`` /
#: ``population`` .53, against ``rivers`` / ``elevation`` .25); chosen on the selection KBs' count questions.
STORED_COUNT_MIN_COS = 0.45


#: The share of the count chain's probability the chain continued to the stored number needs in the count's reading
#: (the scorer reads the question as asking for that number too: "how many people live in the town where ..." gives
#: ``works in`` .51, ``works in -> population`` .45); one half, fixed before the second out-of-fold run (the first
#: moved bk10), not tuned.
STORED_PATH_SHARE = 0.5


def noun_closeness(kgqa: Any, noun: str, relation: str) -> float:
    """The MiniLM cosine of a counted noun and a relation's name (``^`` and snake/camel case cleaned)."""
    vecs = kgqa.scorer.word_vectors([noun, clean_relation(relation.lstrip("^"))])
    return float(vecs[0] @ vecs[1])


def counts_noun(kgqa: Any, text: str, mentions: Sequence[Mention], relation_path: Sequence[str]) -> bool:
    """Whether the single number a count question reached is the count it asks for: the counted noun
    (``how many employees``) is close to the last relation's name (``number of employees``)."""
    noun = asked_noun(masked(text, list(mentions)))
    if noun is None or not relation_path:
        return True
    return noun_closeness(kgqa, noun, relation_path[-1]) >= STORED_COUNT_MIN_COS


def stored_value(kgqa: Any, text: str, mentions: Sequence[Mention], used: Any) -> dict[str, Any] | None:
    """The count question's answer read as a stored number: ``used`` (the count's reading and chain) ends at one
    thing, and one more step from it reaches one number under the relation closest to the counted noun (at least
    :data:`STORED_COUNT_MIN_COS`), a chain the reading itself scores at :data:`STORED_PATH_SHARE` of the count's or
    more ("How many books did the author of X write?" is not the ``pages`` of the author's other book); the result
    keeps the chain's probability. None when there is no such number."""
    reading, path = used or (None, None)
    if path is None or kgqa.is_value(path) or len(kgqa.answers(path, reading.mention.entities)) != 1:
        return None
    noun = asked_noun(masked(text, list(mentions)))
    if noun is None:
        return None
    probs = {p.steps: float(q) for p, q in zip(reading.paths, reading.probs)}
    rels, best, bar = kgqa.store.relations, None, STORED_PATH_SHARE * probs.get(path.steps, 0.0)
    for cont in _continuations(kgqa.store, path, 1):
        if not cont.steps[-1][1] or probs.get(cont.steps, 0.0) < bar or not kgqa.is_numeric(cont):
            continue
        values = kgqa.answers(cont, reading.mention.entities)
        near = noun_closeness(kgqa, noun, rels[cont.steps[-1][0]])
        if len(values) == 1 and near >= STORED_COUNT_MIN_COS and (best is None or near > best[0]):
            best = (near, cont, values)
    if best is None:
        return None
    _, cont, values = best
    names = kgqa.store.entities
    value, holder = names[values[0]], kgqa.answers(path, reading.mention.entities)[0]
    trace = {"relation_path": kgqa.describe(reading)["relation_path"] + [rels[cont.steps[-1][0]]],
             "stored_count": value, "stored_on": names[holder], "counted_noun": noun}
    return finish(kgqa, reading, path, values, [value], kgqa.support(cont, values), trace, scorer_path=path)
