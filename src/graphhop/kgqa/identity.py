"""Yes/no questions that claim an entity *is* a described one: ``Is A the <description of B>?``, ``Is A B's <noun>?``.

"Is Orlesk the biggest city in Velmoria?" names a relation (``largest city``) between Velmoria and the thing
it leads to; the claim holds when that thing is Orlesk. Read as a claimed value (:mod:`graphhop.kgqa.claims`),
any chain from Orlesk to Velmoria (``in country``, ``^capital``) would say ``yes``. Here the description is
answered as a query (``what is the biggest city in Velmoria``, the pipeline's own reading: named relations,
typing, veto) and the claim holds when its answers hold A's entity: ``yes`` with the chain that reaches A,
``no`` with the chain that shows what the description is instead (Velmoria ``largest city`` Brannick).
Session 17 (kgy17).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from graphhop.kgqa.link import Mention, tokens

__all__ = ["identity_claim", "described_span", "description_text", "COPULAS"]

#: The verbs that open an identity claim ("**Is** A the ...", "**Was** A the ...").
COPULAS = frozenset({"is", "was", "are", "were"})


def described_span(toks: Sequence[str], mentions: Sequence[Mention]) -> tuple[int, int] | None:
    """The token span of the description in ``Is A the <description>?`` or ``Is A B's <noun>?``: the question opens
    with a copula and a mention A, then ``the`` with another mention after it (the description names its own
    entity), or a mention B right after A in the possessive; the span runs from ``the`` (from B) to the end. None
    for any other question ("Is A in B?", "Is the X of A in B?", "Is A a member of B?": a claimed value or a
    membership, not an identity)."""
    if len(mentions) < 2 or not toks or toks[0] not in COPULAS:
        return None
    first, second = mentions[0], mentions[1]
    if first.start > 1 or first.end >= len(toks):  # a fuzzy mention may take the copula in
        return None
    if toks[first.end] == "the" and second.start > first.end:
        return first.end, len(toks)
    mark = _possessive_mark(toks, second)
    if second.start == first.end and mark is not None and mark + 1 < len(toks):
        return second.start, len(toks)
    return None


def _possessive_mark(toks: Sequence[str], mention: Mention) -> int | None:
    """The index of the ``s`` of ``B's`` right after ``mention`` (or its last token: a fuzzy mention may take it in)."""
    if mention.end < len(toks) and toks[mention.end] == "s":
        return mention.end
    if mention.end - mention.start > 1 and toks[mention.end - 1] == "s":
        return mention.end - 1
    return None


def description_text(toks: Sequence[str], span: tuple[int, int], mentions: Sequence[Mention]) -> str:
    """The description as a question: ``what is the biggest city in velmoria``; a possessive one ("velmoria s largest
    city") is read as ``the largest city of velmoria``."""
    owner = next((m for m in mentions if m.start == span[0]), None)
    mark = None if owner is None or toks[span[0]] == "the" else _possessive_mark(toks, owner)
    if owner is not None and mark is not None:
        return " ".join(["what is the", *toks[mark + 1 : span[1]], "of", *toks[owner.start : mark]])
    return " ".join(["what is", *toks[span[0] : span[1]]])


def identity_claim(kgqa: Any, question: str, mentions: Sequence[Mention],
                   query: Callable[..., dict[str, Any]]) -> dict[str, Any] | None:
    """``Is A the <description>?`` decided by whether the description's answers (``query``, the pipeline's
    :func:`~graphhop.kgqa.ops.run_query` with ``keep``) hold A; None when the question is no such claim or the
    description has no answer of its own (the caller reads it as a claimed value instead). Withheld as the
    query is: its probability is the description's."""
    toks = tokens(question.replace("[", " ").replace("]", " "))
    span = described_span(toks, mentions)
    if span is None:
        return None
    text = description_text(toks, span, mentions)
    found = kgqa.linker.link(text)
    if not found:
        return None
    res = query(kgqa, text, found, keep=True)
    reading, path = res.pop("_used", (None, None))
    if path is None or (not res.get("answers") and not res["trace"].get("best_guess")):
        return None
    subject = set(mentions[0].entities)
    ends = kgqa.answers(path, reading.mention.entities)
    if subject & set(reading.mention.entities) or not ends:
        return None  # the description starts from A itself: no identity to check
    hit = [e for e in ends if e in subject][:1]
    verdict = "yes" if hit else "no"
    res["chains"] = kgqa.support(path, hit if hit else ends[:3])
    names = kgqa.store.entities
    res["trace"].update(identity={"subject": mentions[0].text, "description": text,
                                  "described": [names[e] for e in ends[:3]]})
    if res.get("supported"):
        res["answer"], res["answers"] = verdict, [verdict]
    else:
        res["trace"]["best_guess"] = [verdict]
    return res
