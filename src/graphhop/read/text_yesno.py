"""Yes/no questions over text (:class:`graphhop.read.text_qa.TextQA`'s ``boolean`` type), in this order:

``Is A older than B?`` (a comparative and ``than``; either side may describe its entity: ``the body that funded
    Holloway's expeditions``)
    the two sides compared as a comparison question is (``TextQA._compare``: a description resolved to its entity
    first); ``yes`` when the first side wins.
``Was A released before B?`` (a comparative and two names)
    A's and B's values compared; ``yes`` when A wins.
``Are A and B in the same country?``, ``Did A come from the same city where B stands?``
    each side's value read as a question of its own (``Which country are A in?``, ``Which city where B
    stands?``); ``yes`` when both are the same entity, ``no`` when they differ, no supported answer when a side
    has none.
a claimed value (``Was the director of X born in Castelvane?``)
    the claim is the question's last name or number, and the question is read with it replaced by ``what``:
    ``yes`` when the answer found is the claim, or its sentence names the claim after it (``Vinci, a town in
    Italy``) or the first sentence of its own passage does (``Vinci is a town in Italy``); ``no`` when a
    supported answer says otherwise (its evidence is the support) **or** a sentence of the subject's own passage
    names the claim and denies it (``... led two expeditions to Mount Oskelt, but he never stood on its summit``:
    a negation, :data:`NEGATION`, or a negative quantifier: ``nobody was killed``); no supported answer when nothing
    is found. A question asked with a negative quantifier (``Did nobody ...?``) takes the opposite verdict.
``Was A the first keeper of X?`` (:func:`graphhop.read.text_forms.identity_question`)
    read as ``Who was the first keeper of X?``: ``yes`` iff the answer found is A (support: that answer's chain);
    the claimed value below when that reading finds nothing.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from graphhop.kb.names import fold_name, name_mentions
from graphhop.read.numbers import is_number
from graphhop.read.text_forms import DENIES, denied_item, identity_question, negated_question
from graphhop.read.text_qa import TextAnswer, _is_name, _mentions, _same

__all__ = ["answer_yes_no", "NEGATION", "split_than", "split_same_as"]

_COMPARE_WORDS = {"before", "after", "earlier", "later", "older", "younger", "bigger", "smaller", "larger", "higher",
                  "lower", "longer", "shorter"}
_ARTICLES_VERBS = {"is", "was", "are", "were", "a", "an", "the"}
_CLAUSE_WORDS = {"to", "in", "on", "of", "at", "from", "by", "and", "with", "whose", "which", "that", "who", "where",
                 "near", "north", "south", "east", "west", "between", "founded", "built", "known"}
#: Words that deny what a sentence says (general English), negative quantifiers among them (``nobody was killed``).
NEGATION = DENIES
_AUX = r"(?:is|was|are|were|do|does|did|has|have|had)"
_THAN = re.compile(r"^" + _AUX + r"\s+(?P<a>.+?)\s+(?P<cmp>(?:more|less)\s+\w+|\w+er)\s+than\s+(?P<b>.+?)[\s?.!]*$", re.I)
_SAME_AS = re.compile(r"^(?P<aux>" + _AUX + r")\s+(?P<a>.+?)\s+the\s+same\s+(?P<noun>[a-z]+)\s+"
                      r"(?P<conn>where|that|which|as|in which|whose|of)\s+(?P<b>.+?)[\s?.!]*$", re.I)


def split_than(question: str) -> tuple[str, str, str] | None:
    """``"Is the body that funded X older than the club that organised Y?"`` -> ``("the body that funded X",
    "older", "the club that organised Y")``; None without ``<comparative> than``."""
    m = _THAN.match(question.strip())
    return (m["a"], m["cmp"], m["b"]) if m else None


def split_same_as(question: str) -> tuple[str, str] | None:
    """The two questions a ``same`` yes/no question asks, one per side: ``"Did A come from the same city where B
    stands?"`` -> ``("Which city did A come from?", "Which city where B stands?")``; ``"Are A and B in the same
    country?"`` -> ``("Which country are A in?", "Which country are B in?")``; None for another question."""
    from graphhop.kgqa.compare import split_same

    q = " ".join(question.split())
    m = _SAME_AS.match(q)
    if m and m["conn"].lower() == "as":  # ``Is A in the same country as B?``: B asked as A is
        words = m["a"].split()
        verb = " ".join(w for w in words[-2:] if w.islower())  # ``in``, ``born in``: what follows A's name
        side_a = " ".join(words[: len(words) - len(verb.split())])
        return tuple(f"Which {m['noun']} {m['aux'].lower()} {side} {verb}".strip() + "?" for side in (side_a, m["b"]))  # type: ignore[return-value]
    if m:  # ``his survey station`` in B: the survey station of A's name
        owner = (name_mentions(m["a"]) or [""])[0]
        side_b = re.sub(r"\b(?:his|her|its|their)\b", f"{owner}'s", m["b"]) if owner else m["b"]
        return f"Which {m['noun']} {m['aux'].lower()} {m['a']}?", f"Which {m['noun']} {m['conn']} {side_b}?"
    splits = split_same(q)
    if not splits:
        return None
    side_a, side_b, predicate = next((s for s in splits if _is_name(s[1])), splits[0])
    words = predicate.split()
    noun = words[-1] if words and words[-1].isalpha() else ""
    rest = " ".join(re.sub(r"\bthe\s+" + re.escape(noun) + r"$", "", predicate).split()) if noun else predicate
    aux = q.split()[0].lower()
    return tuple(f"Which {noun} {aux} {side} {rest}".replace("  ", " ").strip() + "?" for side in (side_a, side_b))  # type: ignore[return-value]


def answer_yes_no(qa: Any, question: str) -> TextAnswer:
    """Answer a yes/no question with ``qa`` (a :class:`~graphhop.read.text_qa.TextQA`; module docstring)."""
    than = split_than(question)
    if than is not None and not (_is_name(than[0]) and _is_name(than[2])):
        res = _two_sided(qa, question, [than[0], than[2]], lambda opt: f"{question.split()[0]} {opt} {than[1]}")
        if res is not None:
            return res
    names = name_mentions(question[1:])
    words = set(re.findall(r"[a-z]+", question.lower()))
    if len(names) >= 2 and (words & _COMPARE_WORDS or "than" in words):
        first, second = names[0], names[-1]
        res = _two_sided(qa, question, [first, second],
                         lambda opt: question.replace(second if opt == first else first, "").strip())
        if res is not None:
            return res
        return _unsupported(qa, question, {"first": first, "second": second,
                                           "reason": "fewer than two options with a value"})
    same = split_same_as(question)
    if same is not None:
        return _same_value(qa, question, same)
    identity = identity_question(question)
    res = _identity(qa, question, *identity) if identity is not None else None
    return res if res is not None else _claim(qa, question)


def _unsupported(qa: Any, question: str, trace: dict[str, Any], paths: Sequence[Any] = ()) -> TextAnswer:
    return qa._result("boolean", list(paths), None, question, trace)


def _two_sided(qa: Any, question: str, sides: list[str], sub_question: Any) -> TextAnswer | None:
    """``yes`` when the first side wins the comparison of the two (None when a side has no value)."""
    res = qa._compare(question, sides, sub_question)
    if not res.supported:
        return None
    verdict = "yes" if res.trace.get("chosen") == 0 else "no"
    return TextAnswer("boolean", verdict, res.score, [verdict], True, res.support, res.graph,
                      {**res.trace, "first": sides[0], "second": sides[1]})


def _same_value(qa: Any, question: str, asked: tuple[str, str]) -> TextAnswer:
    """``yes`` when both sides' questions have the same answer, ``no`` when they differ; support: both answers'."""
    sides = [qa._query(q, names=True) for q in asked]  # two entities compared: names, not numbers nor common nouns
    trace = {"side_questions": list(asked), "values": [s.answer for s in sides]}
    if not all(s.supported for s in sides):
        return _unsupported(qa, question, {**trace, "reason": "a side has no supported answer"})
    verdict = "yes" if _same(sides[0].answer, sides[1].answer) else "no"
    support = list(dict.fromkeys(d for q, s in zip(asked, sides) for d in (*s.support, *qa.stating(q, s.answer))))
    graph = qa.retriever.graph_from_paths(question, [])
    return TextAnswer("boolean", verdict, min(s.score for s in sides), [verdict], True, tuple(support), graph, trace)


def _identity(qa: Any, question: str, name: str, asked: str) -> TextAnswer | None:
    """``Was A the ...?`` read as ``asked`` (``Who was the ...?``): ``yes`` iff the answer found is ``name``, with that
    answer's chain as the support; None when the reading finds no supported answer."""
    res = qa._query(asked)
    if not res.supported:
        return None
    verdict = "yes" if _same(res.answer, name) else "no"
    own = qa.stating(name, res.answer) if verdict == "no" else []  # A's own passage naming the one it is not
    return TextAnswer("boolean", verdict, res.score, [verdict], True, tuple(dict.fromkeys((*res.support, *own))), res.graph,
                      {"identity": name, "asked": asked, "found": res.answer})


def _claim(qa: Any, question: str) -> TextAnswer:
    """A claimed value (module docstring)."""
    names = name_mentions(question[1:])
    nums = re.findall(r"\b\d[\d,.]*\b", question)
    claim = (nums[-1] if nums and question.rfind(nums[-1]) > question.rfind(names[-1] if names else "\0") else
             (names[-1] if names else ""))
    if not claim:
        paths, _ = qa._read(question)
        return _unsupported(qa, question, {"reason": "no claimed value found"}, paths)
    at = question.rfind(claim)
    before = re.sub(r"\b(?:the|a|an)\s*$", "", question[:at], flags=re.I)
    kind = _kind_of(qa, claim)
    masked = before + (f"which {kind}" if kind else "what") + question[at + len(claim):]
    paths, readings = qa._read(masked, query=question)
    best = qa._best(readings)
    trace = {"claim": claim, "masked_question": masked, "found": best.text if best else ""}
    if best is None or best.margin <= qa.min_margin:
        return qa._result("boolean", paths, None, question, trace)
    holds, described = _holds(qa, best, claim)
    named = qa._best([r for r in readings if not is_number(r.text)])
    if not holds and is_number(best.text) and not is_number(claim) and named is not None \
            and named.margin > qa.min_margin:  # a name is claimed: read the best name found (not the life years)
        best, (holds, described) = named, _holds(qa, named, claim)
        trace["found"] = best.text
    trace["claim_in"] = "answer" if _same(best.text, claim) else ("what describes the answer" if holds else "")
    denied = _denied(qa, [n for n in names if not _same(n, claim)], claim) if holds else None
    flip = negated_question(question)  # ``Did nobody ...?``: the verdict the other way round
    if denied is None and _same(best.text, claim) and denied_item(best.sentence, best.text):
        trace["denied_clause"] = best.sentence  # ``... never had offices in Brennick``: the clause naming it denies it
        return qa._result("boolean", paths, best, question, trace, text="yes" if flip else "no", support=list(best.path))
    if denied is not None:
        trace["denied_in"] = denied
        return qa._result("boolean", paths, best, question, trace, text="yes" if flip else "no", support=[denied])
    support = list(dict.fromkeys((*best.path, *described)))  # ``Quillhaven is the principal port of Oskaria``
    return qa._result("boolean", paths, best, question, trace, text="yes" if holds != flip else "no", support=support)


def _holds(qa: Any, found: Any, claim: str) -> tuple[bool, list[str]]:
    """Whether the reading ``found`` bears out ``claim`` (it is the claim, or its sentence names the claim after it, or
    the first sentence of its own passage does), and those passages of its own."""
    described = [d for d in qa._titled(found.text) if _describes(_first_sentence(qa.retriever.text(d)), claim)]
    return _same(found.text, claim) or _describes(_after_answer(found.sentence, found.text), claim) or bool(described), \
        described


def _denied(qa: Any, subjects: Sequence[str], claim: str) -> str | None:
    """The passage of a subject (titled with it) with a sentence that names ``claim`` (or its head noun after
    ``the``: ``not by the works itself`` for ``the Orvane Crystal Works``) and a negation, if any."""
    head = re.compile(r"\bthe " + re.escape(claim.split()[-1].lower()) + r"\b") if claim.split() else None
    for name in subjects:
        for doc in qa._titled(name):
            for sentence in re.split(r"(?<=[.!?])\s+", qa.retriever.text(doc)):
                named = _mentions(sentence, claim) or (head is not None and head.search(sentence) is not None)
                if named and NEGATION.search(sentence):
                    return doc
    return None


def _kind_of(qa: Any, name: str) -> str:
    """What the text says ``name`` is (the head noun of its passage's first clause: ``Estmark is a small
    republic to the west of ...`` -> ``republic``), when the reader can tell (walk reader); else ``""``."""
    graph = getattr(qa.reader, "graph", None)
    if graph is None or not hasattr(graph, "first_clause"):
        return ""
    words = re.findall(r"[a-z]+", graph.first_clause(name).lower())
    for w, nxt in zip(words, words[1:] + [""]):
        if w not in _ARTICLES_VERBS and (not nxt or nxt in _CLAUSE_WORDS):
            return w
    return ""


def _after_answer(sentence: str, answer: str) -> str:
    """The part of ``sentence`` after ``answer``'s mention (``Żelazowa Wola, a village in Poland``:
    where the sentence says what the answer is in); the whole sentence when the answer is not in it."""
    at = fold_name(sentence).find(fold_name(answer)) if answer.strip() else -1
    if at < 0:
        return sentence
    words_before = len(fold_name(sentence)[:at].split())
    return " ".join(re.findall(r"\w+", sentence)[words_before + len(fold_name(answer).split()) :])


def _first_sentence(text: str) -> str:
    """A passage's first sentence (how it describes its title)."""
    m = re.search(r"[.!?](?:\s|$)", text)
    return (text[: m.end()] if m else text).strip()


def _describes(text: str, claim: str) -> bool:
    """Whether ``text`` places its subject in ``claim`` (mentions it, but not as a bearing: ``north of Arland``)."""
    if not _mentions(text, claim):
        return False
    bearing = r"\b(?:north|south|east|west)(?:ern)?(?:-\w+)? of (?:the )?" + r"\W+".join(map(re.escape, claim.split()))
    return not re.search(bearing, text, re.I)
