"""The lexical lure of an *owner* relation (session 8, kgf12): a relation whose name holds the asked noun as a
modifier and whose objects are bare values (``grape colour``: ``red``, ``white``) gives the noun's kind a value;
it does not name that kind. The trained scorer and MiniLM's zero-shot typing both follow the noun's word into
such a name ("what **grape** goes into X" -> ``made from → grape colour`` -> ``red``); these functions cut the
step back (:func:`owner_cut`) and start answer typing from the owner (:func:`typing_base`).
:meth:`~graphhop.kgqa.end_type.EndTyper.owner_relation` says which relations are owner relations. Chosen on the
blind selection KBs (kg_wine: wn05, wn08, wn17); docs/RESULTS.md, issue 12, "Session 8 (kgf12)"."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.end_type import _AUX, _PREP, _STRIP, _is_word, singular
from graphhop.kgqa.paths import RelPath

if TYPE_CHECKING:
    from graphhop.kgqa.end_type import EndTyper

__all__ = ["modifies", "owner_cut", "topic_noun", "typing_base"]


def modifies(noun: str, name: str) -> bool:
    """Whether ``noun`` (its last word, singular) is a *modifier* in a relation's ``name``: a word followed by
    another content word (``grape`` in ``grape colour``, ``capital`` in ``capital city``), not its last word
    (``colour``) nor a word before a preposition (``place`` in ``place of birth``); never when the name also ends
    with the noun (Freebase's ``sports team location teams``)."""
    head = singular(noun.split()[-1].lower()) if noun.strip() else ""
    words = clean_relation(name).lower().split()
    if not head or not words or singular(words[-1]) == head:  # the name's head: ``sports team location teams``
        return False
    return any(singular(w) == head and _is_word(nxt) and nxt not in _PREP
                              for w, nxt in zip(words, words[1:]))


def owner_cut(typer: EndTyper, path: RelPath, noun: str | None, topic: Sequence[int],
              to_topic: bool = False) -> RelPath | None:
    """``path`` without its last step when that step walks forward an :meth:`EndTyper.owner_relation` of ``noun``
    and the rest reaches entities other than the topic (with ``to_topic``: the topic itself, a path of no steps):
    "what **grape** goes into X" over ``made from → grape colour`` answers the grape, not its colour (the scorer
    and MiniLM both follow the asked noun's word into the relation's name: the lexical lure); None otherwise."""
    if noun is None or len(path.steps) < (1 if to_topic else 2):
        return None
    rel, fwd = path.steps[-1]
    back_to_topic = set(path.layers[-2].tolist()) <= set(topic)
    if not fwd or not typer.owner_relation(noun, rel) or back_to_topic != to_topic:
        return None
    return RelPath(path.steps[:-1], path.layers[:-1], score=path.score)


def topic_noun(text: str) -> str | None:
    """The noun a (masked) question puts right after the topic, ``the X <noun>`` followed by a verb or an
    auxiliary ("which region does **the X grape** come from" -> ``grape``): the topic's kind; None otherwise."""
    toks = [t.strip(_STRIP) for t in text.lower().split()]
    for i in range(1, len(toks) - 2):
        if toks[i] == "x" and toks[i - 1] == "the" and _is_word(toks[i + 1]) and toks[i + 1] not in _PREP | _AUX:
            return singular(toks[i + 1])
    return None


def typing_base(typer: EndTyper, path: RelPath, text: str, against: str | None, topic: Sequence[int]) -> RelPath:
    """Where answer typing starts: ``path``, or ``path`` cut back by :func:`owner_cut` for the noun a clause
    describes ("which country does **the grape** used in X come from" over ``made from → grape colour``: typed
    from the grape) or for the topic's own noun ("which region does **the X grape** come from" over ``grape
    colour``: typed from the topic itself, :func:`topic_noun`)."""
    base = owner_cut(typer, path, against, topic) if against else None
    base = owner_cut(typer, path, topic_noun(text), topic, to_topic=True) if base is None else base
    return path if base is None else base
