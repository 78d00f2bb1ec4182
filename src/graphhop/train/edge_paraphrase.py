"""Synthetic training lists for the edge reader: relations asked in one wording and stated in many.

Each relation family (birth, death, leadership, founding, ownership, location, designing/building, membership,
marriage, parents, teaching, naming) has question wordings (a direct question and a bridge phrase for two-hop
questions) and sentence wordings in several voices (active, passive, relative clause, apposition, idiom: ``came into
the world in``, ``headed the board of``, ``was the engineer behind``). A list is one question and one source entity:
the sentence stating the asked relation about the source (label 1) and sentences about the same source stating
other relations (label 0). Two-hop questions (``Where was the founder of X born?``) give a list for each hop. Names
are made up from syllables, drawn with a seeded generator; a third of the sentences start with a pronoun for the
source, as passages write about their title.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["FAMILIES", "Family", "synthetic_lists"]


@dataclass(frozen=True)
class Family:
    """One relation: who it is about (``person``, ``org``, ``place``, ``thing``), what it reaches, its wordings."""

    subject: str
    object: str
    questions: tuple[str, ...]  # {x}: the source
    bridges: tuple[str, ...]  # a noun phrase naming the object: ``the founder of {x}``
    sentences: tuple[str, ...]  # {x}: the source, {y}: the object


FAMILIES: dict[str, Family] = {
    "birth": Family("person", "place", ("Where was {x} born?", "In which town was {x} born?", "What is the birthplace of {x}?"),
                    ("the birthplace of {x}", "the town where {x} was born"),
                    ("{x} was born in {y}.", "{x} came into the world in {y} in a cold winter.", "{y} was the birthplace of {x}.",
                     "{x}, a native of {y}, moved away young.", "{x} first drew breath in {y}.", "Born in {y}, {x} later went abroad.",
                     "{x} entered life in the little town of {y}.")),
    "death": Family("person", "place", ("Where did {x} die?", "In which city did {x} die?"), ("the place where {x} died",),
                    ("{x} died in {y}.", "{x} passed away in {y} at the age of eighty.", "{x} spent the last years in {y}, dying there.",
                     "{x} breathed the last breath in {y}.", "{y} is where {x} ended the days.", "Death came to {x} in {y}.")),
    "lead": Family("org", "person", ("Who chaired {x}?", "Who led {x}?", "Who was the head of {x}?", "Who ran {x}?"),
                   ("the chairman of {x}", "the leader of {x}", "the person who headed {x}"),
                   ("{y} headed the board of {x}.", "{y} presided over {x} for a decade.", "{x} was led by {y}.",
                    "{y} was in charge of {x}.", "Under {y}, {x} doubled in size.", "{y} took the helm of {x} in 1901.",
                    "{x} had {y} at its head.")),
    "found": Family("org", "person", ("Who founded {x}?", "Who established {x}?", "Who started {x}?"),
                    ("the founder of {x}", "the man who founded {x}"),
                    ("{x} was established by {y}.", "{y} set up {x} in 1880.", "{x} owes its existence to {y}.",
                     "{x} was the creation of {y}.", "{y} launched {x} with two partners.", "{x} was started by {y}.",
                     "It was {y} who brought {x} into being.")),
    "own": Family("thing", "person", ("Who owned {x}?", "Who was the owner of {x}?"), ("the owner of {x}",),
                  ("{x} belonged to {y}.", "{y} acquired {x} in 1920.", "{x} was the property of {y}.", "{y} bought {x}.",
                   "{x} passed into the hands of {y}.", "{x} was held by {y} for years.")),
    "place": Family("thing", "place", ("Where is {x}?", "In which town is {x}?", "Where does {x} stand?"),
                    ("the town where {x} stands", "the place where {x} is"),
                    ("{x} stands in {y}.", "{x} lies just outside {y}.", "{x} is situated in {y}.", "{x} can be found in {y}.",
                     "{y} is home to {x}.", "{x} overlooks the harbour of {y}.")),
    "design": Family("thing", "person", ("Who designed {x}?", "Who built {x}?", "Who was the architect of {x}?"),
                     ("the architect of {x}", "the engineer who designed {x}", "the designer of {x}"),
                     ("{y} was the engineer behind {x}.", "{x} was drawn up by {y}.", "{y} drew the plans for {x}.",
                      "{x} was the work of {y}.", "{x} was constructed by {y}.", "{y} put up {x} in 1850.",
                      "The plans for {x} came from {y}.")),
    "member": Family("person", "org", ("Which club did {x} join?", "What group was {x} a member of?", "Which team did {x} play for?"),
                     ("the club {x} joined", "the team of {x}"),
                     ("{x} signed for {y}.", "{x} became a member of {y}.", "{x} joined the ranks of {y}.",
                      "{x} was enlisted in {y}.", "{x} turned out for {y} for six seasons.", "{y} took on {x} as a member.")),
    "marry": Family("person", "person", ("Who did {x} marry?", "Who was the spouse of {x}?", "Who was {x}'s wife?"),
                    ("the spouse of {x}", "the wife of {x}", "the husband of {x}"),
                    ("{x} wed {y}.", "{x} took {y} as a wife in 1890.", "{x} and {y} were married in 1890.",
                     "{y} became the wife of {x}.", "{x} tied the knot with {y}.", "{x} settled down with {y}.")),
    "parent": Family("person", "person", ("Who was the father of {x}?", "Who was {x}'s mother?", "Who were the parents of {x}?"),
                     ("the father of {x}", "the mother of {x}"),
                     ("{x} was the son of {y}.", "{y} fathered {x}.", "{x} was born to {y}.", "{x} was the daughter of {y}.",
                      "{x} was raised by a parent, {y}.", "{y} gave birth to {x}.")),
    "teach": Family("person", "person", ("Who taught {x}?", "Under whom did {x} study?", "Who was the teacher of {x}?"),
                    ("the teacher of {x}", "the master of {x}"),
                    ("{x} trained under {y}.", "{x} was apprenticed to {y}.", "{x} learned the craft from {y}.",
                     "{y} was the mentor of {x}.", "{x} studied with {y}.", "{y} took {x} on as a pupil.")),
    "name": Family("thing", "person", ("Who is {x} named after?", "After whom was {x} named?"), ("the namesake of {x}",),
                   ("{x} takes its name from {y}.", "{x} honours {y}.", "{x} was called after {y}.", "{x} bears the name of {y}.",
                    "{x} was named in memory of {y}.")),
}

_SYLLABLES = ("ar", "bel", "cor", "dun", "el", "fen", "gar", "hal", "ist", "jor", "kel", "lor", "mar", "nev", "or", "pell",
              "quin", "ros", "sel", "tor", "ul", "vard", "wen", "yar", "zel", "bra", "cal", "dor", "est", "fal")
_KINDS = {"person": ("{a} {b}",), "org": ("the {a} Company", "{a} Society", "the {a} Guild", "{a} Athletic"),
          "place": ("{a}", "{a}ford", "Port {a}"), "thing": ("the {a} Bridge", "{a} Light", "the {a} Hall", "the {a}")}
_PRONOUN = {"person": "He", "org": "It", "thing": "It", "place": "It"}


def _name(kind: str, rng: random.Random) -> str:
    def word() -> str:
        return "".join(rng.choice(_SYLLABLES) for _ in range(rng.choice((2, 2, 3)))).capitalize()

    return rng.choice(_KINDS[kind]).format(a=word(), b=word())


def _state(family: Family, x: str, y: str, rng: random.Random) -> str:
    """One wording of ``family`` about ``x`` (a third start with the pronoun where the source opens the sentence)."""
    text = rng.choice(family.sentences).format(x=x, y=y)
    if text.startswith(x) and rng.random() < 1 / 3:
        text = _PRONOUN[family.subject] + text[len(x):]
    return text[0].upper() + text[1:]


def _one_list(question: str, source: str, family: str, rng: random.Random, negatives: int) -> list[tuple[str, str, float]]:
    """``(question, "source : sentence", label)`` items: the asked family stated about ``source``, and others."""
    from graphhop.read.edge_reader import edge_text

    fam = FAMILIES[family]
    out = [(question, edge_text(source, _state(fam, source, _name(fam.object, rng), rng)), 1.0)]
    others = [k for k, f in FAMILIES.items() if k != family and f.subject == fam.subject]
    for other in rng.sample(others, min(negatives, len(others))):
        f = FAMILIES[other]
        out.append((question, edge_text(source, _state(f, source, _name(f.object, rng), rng)), 0.0))
    return out


def synthetic_lists(n: int, seed: int = 14, negatives: int = 4, two_hop: float = 0.5) -> list[list[tuple[str, str, float]]]:
    """``n`` questions' lists (a two-hop question, share ``two_hop``, gives two lists: one per hop)."""
    rng = random.Random(seed)
    keys = sorted(FAMILIES)
    out: list[list[tuple[str, str, float]]] = []
    for _ in range(n):
        last = rng.choice(keys)
        fam = FAMILIES[last]
        firsts = [k for k in keys if FAMILIES[k].object == fam.subject]
        if firsts and rng.random() < two_hop:  # ``Where was the founder of X born?``: X -> founder -> place
            first = rng.choice(firsts)
            x, bridge = _name(FAMILIES[first].subject, rng), _name(fam.subject, rng)
            phrase = rng.choice(FAMILIES[first].bridges).format(x=x)
            question = rng.choice(fam.questions).format(x=phrase)
            out.append(_one_list(question, x, first, rng, negatives))
            out.append(_one_list(question, bridge, last, rng, negatives))
        else:
            x = _name(fam.subject, rng)
            out.append(_one_list(rng.choice(fam.questions).format(x=x), x, last, rng, negatives))
    return out
