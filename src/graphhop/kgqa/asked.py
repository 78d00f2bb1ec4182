"""What a question asks for: three readings of the asked noun, shared by its readers (session 16, kgn16).

A compound's head is its last word
    "which district **superintendent** oversees the school": when the words after the cue are a compound noun and a
    verb that agrees with its last word (``superintendent oversees the``, ``member wrote the``; after three words
    also an auxiliary: ``record label founder was``), the head is the last word (:func:`compound_before_verb`, used
    by :func:`graphhop.kgqa.end_type.type_phrase`, the one parser of the asked phrase).
A relation named by a noun and a final preposition names its subject
    ``superintendent of``, ``member of``, ``capital of``: the subject is the superintendent (X is the superintendent of
    Y); ``country of citizenship``, ``currency`` name their object (:func:`names_subject`, :func:`noun_sides`, used by
    the type veto and :meth:`graphhop.kgqa.end_type.EndTyper.noun_role`).
A plural word of the topic's own name names what the topic deals in, not the answer
    "which ferries does Brannock **Ferries** run": a company named for the things it runs; the noun does not type
    the answer (:func:`names_topic`: the answer typing and the type veto read no noun then). A singular one is the
    topic's own kind and still types ("what court sits above the X Magistrates' Court").

All are rules of English, no data set's words; the irregular past forms are a closed class of the language.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

__all__ = ["IRREGULAR_PAST", "compound_before_verb", "names_subject", "names_topic", "noun_sides", "past_form"]

#: Irregular past forms of common English verbs ("which company **built** ships for X" is a subject and its verb,
#: not a compound; "which band member **wrote** the song" is a compound and its verb). Forms that are as often
#: nouns or bare verbs (``set``, ``cut``, ``read``, ``found``, ``left``) are left out.
IRREGULAR_PAST = frozenset("""built made won wrote ran led held took gave began sold bought taught brought fought
    drew grew flew rose fell lost met paid sent spent stood told thought wore bore became came went saw chose drove
    rode spoke stole struck threw kept shot bred fed fled sang sank hung dug ate knew overtook oversaw undertook
    withdrew rebuilt remade""".split())
#: Adverbs that stand between a subject and its verb ("which outfit **actually** built X", "which company **first**
#: made"): with the ``-ly`` words, no compound's head.
_ADVERBS = frozenset("first later still once now never ever often already soon last again together".split())
#: Words that may follow a transitive or prepositional verb (``oversees **the** school``, ``play **in** X``).
_DETERMINERS = frozenset("the a an x its their his her this that these those".split())
_WORD = re.compile(r"[a-z]+")


def past_form(word: str) -> bool:
    """Whether ``word`` is a past form of a verb: irregular (:data:`IRREGULAR_PAST`) or in ``-ed`` (``founded``;
    not ``-eed``: ``breed``)."""
    return word in IRREGULAR_PAST or (len(word) > 4 and word.endswith("ed") and not word.endswith("eed"))


def _third_person(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def compound_before_verb(words: Sequence[str]) -> int:
    """How many words of ``words`` (the question's words after its cue word: ``which``, ``how many``) make a compound
    noun whose head is followed by its verb ("which district superintendent **oversees the** school", "which school
    district superintendent **oversees** X", "which band member **wrote the** song"): two or three content words,
    the modifiers singular nouns, no word a verb form, an adverb or of two letters, then a verb that agrees with the
    head (a past form, or ``-s`` after a singular head) and a determiner, the mask or a preposition, or (after three)
    an auxiliary. 0 when the words read otherwise ("which winery produces wines for": a subject and its verb; "which
    football clubs play in", a plural head and a bare verb, is not told from "which team plays football in" and stays
    unread)."""
    from graphhop.kgqa.end_type import _ADJ_ENDINGS, _AUX, _PREP, _is_word, singular

    for n in (2, 3):
        if len(words) < n + 1:
            return 0
        *mods, head, verb = words[: n + 1]
        after = words[n + 1] if len(words) > n + 1 else ""
        if not all(_is_word(w) and len(w) > 2 for w in (*mods, head)) or head in _AUX:
            return 0  # two letters: a piece of a word the tokenizer split ("co-op", "e-mail"), no compound
        if any(singular(m) != m or m.endswith(_ADJ_ENDINGS) or past_form(m) or _third_person(m) for m in mods):
            return 0  # a plural or verb-like word before the head: a subject and its verb
        if past_form(head) or (_third_person(head) and singular(mods[-1]) == mods[-1]) or head in _ADVERBS or (
                head.endswith("ly") and len(head) > 4):
            return 0
        if verb in _AUX and n == 3:
            return n  # "which record label founder was born in": the two-word case is type_phrase's own
        if _is_word(verb) and after in _DETERMINERS | _PREP and (
                past_form(verb) or (singular(head) == head and _third_person(verb))):
            return n
    return 0


def names_topic(reading: Any, noun: str | None) -> bool:
    """Whether the asked noun's head is a plural word of the topic's own name as the question says it ("which ferries
    does **Brannock Ferries** run", "which hotels does Corvo Hotels manage"): a name headed by a plural names a
    company or a group by the things it deals in, not its own kind (a court named ``... Court`` is a court; that
    noun still types), so the noun tells nothing of the answer's type."""
    from graphhop.kgqa.end_type import singular

    mention = getattr(reading, "mention", None)
    if noun is None or mention is None:
        return False
    head = singular(noun.split()[-1])
    return any(singular(w) == head != w for w in _WORD.findall(str(mention.text).lower()))


def names_subject(relation: str, noun: str | None = None) -> bool:
    """Whether a relation's name calls its *subject* by its noun: a noun, then a final preposition (``superintendent
    of``, ``member of``, ``capital of``: X is the superintendent of Y), not a verb form (``located in``, ``founded
    by``, ``sold in``). With ``noun``, only when that noun is the asked one (``head brewer of`` calls its subject a
    brewer, not a brewery)."""
    from graphhop.kb.verbalize import clean_relation
    from graphhop.kgqa.end_type import _PREP, singular

    words = clean_relation(relation).lower().split()
    if len(words) < 2 or words[-1] not in _PREP or not words[-2].isalpha() or words[-2] in _PREP:
        return False
    if noun is not None and singular(words[-2]) != singular(noun.split()[-1]):
        return False
    return not past_form(words[-2]) and not _third_person(words[-2])


def noun_sides(store: Any, relations: Sequence[int], noun: str) -> tuple[set[int], set[int]]:
    """(the entities ``noun`` names by ``relations``, the entities at their other ends): the objects of each relation,
    or its subjects where the name calls the subject by that noun (:func:`names_subject`)."""
    import numpy as np

    named: set[int] = set()
    other: set[int] = set()
    for r in relations:
        edges = np.nonzero(store.rels == r)[0]
        heads, tails = set(store.heads[edges].tolist()), set(store.tails[edges].tolist())
        if names_subject(store.relations[r], noun):
            heads, tails = tails, heads
        named |= tails
        other |= heads
    return named, other
