"""Chain reranker training lists re-read as strangers' KBs would store their relations (more variety per question).

A training list (:mod:`graphhop.kgqa.rerank_train`) holds verbalized chains (:func:`graphhop.kgqa.rerank.verbalize_chain`):
``X hub airport A ; A serves city ? ; ? = Ulmsted ; has capital city of , population``. A stranger's KB may store the
same facts under other names: ``hasHubAirport`` (a ``has`` prefix before a noun), or the other way round under an
``of`` name (``Y capital city of X`` for ``X capital city Y``; ``X capital of Y`` for ``Y capital X``). A variant list
rewrites every chain of a list with one consistent renaming per relation, rendered as the verbalizer renders a
stored name (:func:`graphhop.kb.verbalize.clean_relation`), the question and the gold index unchanged. Spellings
that render the same (camelCase, snake_case, UPPER_SNAKE: the cross-encoder's tokenizer is uncased) give no new text,
so the styles here are the ones that do: ``has`` (the prefix), ``flip`` (about half the flippable relations stored
the other way round) and ``both``.
"""

from __future__ import annotations

import random
import re
from typing import Any, Sequence

from graphhop.kb.verbalize import clean_relation

__all__ = ["LIST_STYLES", "restyle_name", "inverse_name", "variant_list", "variant_lists"]

LIST_STYLES = ("has", "flip", "both")

#: Last words that make a name a verb phrase or a prepositional one (no ``has`` prefix, no ``of`` inverse).
_PREPOSITIONS = frozenset("in of by at from to on for with into under near as".split())
_TRIPLE = re.compile(r"^([A-Z?]) (.+) ([A-Z?])$")


def _noun_like(name: str) -> bool:
    """A name a stranger may prefix with ``has`` or invert with ``of``: not ending in a preposition or a verb form."""
    words = name.split()
    if not words:
        return False
    verb = words[0] in ("has", "is") or (words[0].endswith("s") and not words[0].endswith(("ss", "us", "is")))
    return not verb and words[-1] not in _PREPOSITIONS and not words[-1].endswith("ed")


def restyle_name(name: str) -> str:
    """``capital city`` as a ``has``-prefixed camelCase name renders (``hasCapitalCity`` -> ``has capital city``);
    other names unchanged."""
    if not _noun_like(name):
        return name
    return clean_relation("has" + "".join(w[:1].upper() + w[1:] for w in name.split()))


def inverse_name(name: str) -> str | None:
    """The name of the relation stored the other way round: ``capital city`` <-> ``capital city of``; None when the
    name is neither a noun nor an ``of`` name (``located in``, ``founded by``)."""
    if name.endswith(" of") and len(name) > 3:
        return name[:-3]
    return name + " of" if _noun_like(name) else None


def _names(chains: Sequence[str]) -> list[str]:
    """The relation names of ``chains`` (in order of first appearance): the triples' and the type signatures' forward
    ones (a signature word ending in ``of`` may be a relation read backward, so it is left to the triples)."""
    out: list[str] = []
    for chain in chains:
        for part in chain.split(" ; "):
            m = _TRIPLE.match(part)
            words = [m.group(2)] if m else part[4:].split(" , ") if part.startswith("has ") else []
            out += [w for w in words if w not in out and (m or not w.endswith(" of"))]
    return out


def _signature_word(word: str, names: dict[str, tuple[str, bool]]) -> str:
    """One ``has`` word of a chain's type signature (``r`` or ``r of``) under the renaming ``names``."""
    base, back = (word, False) if word in names or not word.endswith(" of") else (word[:-3], True)
    new, flip = names.get(base, (base, False))
    return new + (" of" if back != flip else "")


def _rewrite(chain: str, names: dict[str, tuple[str, bool]]) -> str:
    """``chain`` with each relation renamed (and turned round where flipped) by ``names``: name -> (new, flipped)."""
    parts = []
    for part in chain.split(" ; "):
        m = _TRIPLE.match(part)
        if m:
            new, flip = names.get(m.group(2), (m.group(2), False))
            part = f"{m.group(3)} {new} {m.group(1)}" if flip else f"{m.group(1)} {new} {m.group(3)}"
        elif part.startswith("has "):
            part = "has " + " , ".join(_signature_word(w, names) for w in part[4:].split(" , "))
        parts.append(part)
    return " ; ".join(parts)


def variant_list(row: dict[str, Any], style: str, rng: random.Random) -> dict[str, Any] | None:
    """``row`` (a training list) re-read in ``style`` (one of :data:`LIST_STYLES`), or None when nothing changes."""
    if style not in LIST_STYLES:
        raise ValueError(f"unknown list style {style!r} (one of {', '.join(LIST_STYLES)})")
    names: dict[str, tuple[str, bool]] = {}
    for name in _names(row["chains"]):
        inv = inverse_name(name) if style in ("flip", "both") and rng.random() < 0.5 else None
        if inv is not None:
            names[name] = (restyle_name(inv) if style == "both" else inv, True)
        elif style in ("has", "both"):
            names[name] = (restyle_name(name), False)
    names = {k: v for k, v in names.items() if v != (k, False)}
    if not names:
        return None
    return {**row, "chains": [_rewrite(c, names) for c in row["chains"]], "style": style}


def variant_lists(rows: Sequence[dict[str, Any]], copies: int = 1, seed: int = 0) -> list[dict[str, Any]]:
    """``copies`` variant lists of each of ``rows``, the styles taken in turn (row ``i``, copy ``j``: style ``i + j``)."""
    rng, out = random.Random(seed), []
    for i, row in enumerate(rows):
        for j in range(copies):
            got = variant_list(row, LIST_STYLES[(i + j) % len(LIST_STYLES)], rng)
            if got is not None:
                out.append(got)
    return out
