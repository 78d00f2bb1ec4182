"""Passages read as a KB of triples with provenance, for the ``kgqa`` pipeline (the ``text-kg`` pipeline).

Each sentence of a passage gives triples ``(subject, relation, object)``:

* the *subject* is the passage's title (named in the sentence, or referred to by a pronoun or not at
  all), else the name the sentence starts with; an apposition (``Castelvane, a port town in Eldoria``)
  or a relative clause (``Velmark, which lies in Merrin``) makes the mention before it the subject;
* an *object* is every other mention the walk reader's sentence graph finds
  (:meth:`graphhop.read.sentence_graph.SentenceGraph.mentions`: names, numbers, index titles);
* the *relation* is the words between the object and the mention before it, without articles,
  pronouns and auxiliaries (``is a 1994 drama film directed by`` -> ``drama film directed by``); with no
  content word left it is the sentence's last relation (``born in 1956 in Castelvane``: both ``born in``),
  or for a number the words after it (``is 214 kilometres long`` -> ``kilometres long``).

Every triple keeps the passage it was read in (its fact id is ``<passage id>#<n>``), so the facts a
``kgqa`` answer rests on map back to passages (:func:`passages_of`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from graphhop.core import Fact
from graphhop.kb.names import fold_name
from graphhop.read.numbers import NUMBER
from graphhop.read.sentence_graph import LIFE

__all__ = ["TextFact", "TextKB", "relation_name", "sentence_facts"]

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['’-][A-Za-z0-9]+)*")
#: Words a relation name leaves out (articles, pronouns, auxiliaries, linking words; general English).
_DROP = set("""a an the it its he she they his her their them him this that these those there is was are were be been
being has have had also and but which who whom whose where when then later now still both s""".split())
_PREPOSITIONS = set("of in on at to for by with from into onto over under near as about after before since during "
                    "through across along between among against".split())
#: Text between two mentions that makes the first one the subject of what follows (apposition, relative clause).
_ATTACH = re.compile(r"^\s*(?:,\s*(?:(?:a|an|the)\b|which\b|who\b|where\b|whose\b)|\(?\s*(?:which|who|where|whose)\b)", re.I)
#: Words kept at most in a relation name (the ones nearest the object).
MAX_WORDS = 5


@dataclass(frozen=True)
class TextFact:
    """One extracted triple, with the passage and sentence it was read in."""

    head: str
    relation: str
    tail: str
    doc: str
    sentence: str


_ARTICLES = {"a", "an", "the"}
_RELATIVE = {"whose", "which", "who", "whom", "where", "that"}
#: Participles written without ``-ed``/``-en``/``-wn`` (general English).
_PARTICIPLES = {"born", "built", "made", "set", "held", "led", "run", "shot", "sung", "written", "found", "kept", "cut",
                "won", "lost", "sold", "bought", "taught", "brought", "told", "paid", "laid", "spent", "struck", "hung"}


def _is_participle(word: str) -> bool:
    return word in _PARTICIPLES or (len(word) > 4 and word.endswith(("ed", "en", "wn")))


def _core(words: list[str]) -> list[str]:
    """The relation words of a segment without the description before them: ``a film director born in`` ->
    ``born in``, ``a small country whose capital is`` -> ``capital is``, ``a port town in`` -> ``town in``."""
    lead = 0
    while lead < len(words) and words[lead] in _DROP and words[lead] not in _ARTICLES:
        lead += 1
    words = words[lead:]
    for j, w in enumerate(words[1:], start=1):
        if w in _RELATIVE:
            return words[j + 1 :]
        if _is_participle(w) and words[j - 1] not in _PREPOSITIONS:
            return words[j:]
    if words and words[0] in _ARTICLES:
        for j, w in enumerate(words[1:], start=1):
            if w in _PREPOSITIONS:
                return words[j - 1 :] if j > 1 else words[j:]
    return words


def _without_role(words: list[str]) -> list[str]:
    """Words before a name without the role noun written before it (``built by the instrument maker``
    -> ``built by``, ``patron was the banker`` -> ``patron was``)."""
    for j in range(len(words) - 1, max(0, len(words) - 4), -1):
        if words[j] in _ARTICLES:
            role = words[j + 1 :]
            if all(w not in _PREPOSITIONS and w not in _RELATIVE and not _is_participle(w) for w in role):
                return words[:j]
            break
    return words


def relation_name(text: str, before_name: bool = False) -> str:
    """The relation words of ``text``: lower case, the description before a participle or a relative word
    cut (:func:`_core`), before a name (``before_name``) the role noun cut (:func:`_without_role`), no
    articles/pronouns/auxiliaries, at most :data:`MAX_WORDS` words (the last ones); empty when no word other
    than prepositions is left."""
    words = _TOKEN.findall(text.lower())
    words = [w for w in _core(_without_role(words) if before_name else words) if w not in _DROP]
    if not any(w not in _PREPOSITIONS for w in words):
        return ""
    return " ".join(words[-MAX_WORDS:])


def _tail_words(sentence: str, end: int, n: int = 2) -> str:
    return relation_name(" ".join(_TOKEN.findall(sentence[end:])[:n]))


_YEAR_IN_DESCRIPTION = re.compile(r"\b(?:a|an|the)\s+$", re.I)
_YEAR = re.compile(r"1\d{3}|20\d{2}")


def _number_relation(sentence: str, start: int, end: int, name: str) -> str:
    """A number's relation when the words before it name none: ``year`` for a year inside a description
    (``a 1994 drama film``), else the words after it (``is 214 kilometres long`` -> ``kilometres long``)."""
    if _YEAR.fullmatch(name) and _YEAR_IN_DESCRIPTION.search(sentence[:start]):
        return "year"
    return _tail_words(sentence, end)


#: A pronoun standing for the passage's subject: at the sentence's start, or after a leading clause (``Besides X, he``).
_PRONOUN_SUBJECT = re.compile(r"^\s*(?:it|he|she|they|its|his|her|their)\b|,\s+(?:it|he|she|they)\b|^\s*[Tt]he\s+[a-z]+\b(?!\s+of\b)")
#: After a number, a preposition and a description continue the relation before it (``in 1818 in the port of``).
_AFTER_NUMBER = re.compile(r"^\s*(?:in|at|on|near|by|from)\s+(?:the|a|an)\s+[a-z][a-z\s]*\b(?:of|in|at)\s*$")
_LOCATIVE = {"in", "at", "near", "on"}


#: Words a name does not start with (a capitalized sentence opener: ``Since 2011``, ``Besides the Ferrow Viaduct``).
_OPENERS = _DROP | _PREPOSITIONS | _ARTICLES | {"since", "besides", "although", "though", "while", "unlike", "like",
                                                "until", "despite", "today", "later", "however"}


def _spans(graph: Any, sentence: str) -> list[tuple[int, int, str]]:
    """The sentence graph's mentions resolved to index titles, without a capitalized opener or participle before
    a name (``Besides the Ferrow Viaduct`` -> ``Ferrow Viaduct``; ``Built`` is no name)."""
    out = []
    for a, z, name in graph.mentions(sentence):
        words = name.split()
        while words and (words[0].lower() in _OPENERS or (a == 0 and _is_participle(words[0].lower())))\
                and fold_name(" ".join(words)) not in graph.titles:
            words = words[1:]
        if not words:
            continue
        rest = " ".join(words)  # the mentions cut a possessive (``Gideon Holloway's``), the span still covers it
        start = sentence.rfind(rest, a, z)
        start = start if start >= 0 else z - len(rest)
        out.append((start, start + len(rest), graph.resolve(rest)))
    return out


def _subject(title: str, sentence: str, spans: list[tuple[int, int, str]]) -> tuple[str, int, list[tuple[int, int, str]]]:
    """``(subject, where its mention ends, the other spans)`` of a sentence (module docstring)."""
    key = fold_name(title)
    own = [i for i, (_, _, n) in enumerate(spans) if fold_name(n) == key]
    if own:
        return title, spans[own[0]][1], [s for i, s in enumerate(spans) if i != own[0]]
    pronoun = _PRONOUN_SUBJECT.search(sentence)
    if pronoun:
        return title, pronoun.end(), spans
    if spans and not relation_name(sentence[: spans[0][0]]) and not NUMBER.fullmatch(spans[0][2]):
        return spans[0][2], spans[0][1], spans[1:]
    return title, 0, spans


def _bare_relation(segment: str, last_rel: str, prev: tuple[int, int, str] | None, head: str) -> tuple[str, str]:
    """``(relation, head)`` of an object after nothing but a preposition: the sentence's last relation after a
    number (``born in 1956 in Castelvane``) or the same preposition; ``located <in|at|near|on>`` the mention
    before it otherwise (``the Sallow Footbridge in Porthen``)."""
    bare = [w for w in _without_role(_TOKEN.findall(segment.lower())) if w not in _DROP]
    prep = bare[-1] if bare else ""
    words = last_rel.split()
    if prev is not None and NUMBER.fullmatch(prev[2]) and bare and bare[0] in _PREPOSITIONS:
        prep = bare[0]  # ``born in 1818 in the port of Valdane``: born in
    if prep and prep in _PREPOSITIONS and words[-1] in _PREPOSITIONS and words[-1] != prep:
        return " ".join(words[:-1] + [prep]), head  # ``completed in 1862 by X``: completed by
    if prev is None or NUMBER.fullmatch(prev[2]) or not prep or last_rel.endswith(prep) or prep not in _LOCATIVE:
        return last_rel, head
    return f"located {prep}", prev[2]


def sentence_facts(graph: Any, title: str, doc_id: str, sentence: str) -> list[TextFact]:
    """The triples of one sentence of passage ``doc_id`` titled ``title`` (see the module docstring);
    ``graph`` is a :class:`~graphhop.read.sentence_graph.SentenceGraph` (its mentions and name resolution)."""
    subject, s_end, spans = _subject(title, sentence, _spans(graph, sentence))
    out: list[TextFact] = []
    life = LIFE.match(sentence, len(sentence) - len(sentence[s_end:].lstrip()))  # a year range right after the subject
    if life:  # ``Amos Teel (1790-1860) was ...``: the years of birth and death
        out += [TextFact(subject, "born year", life.group(1), doc_id, sentence),
                TextFact(subject, "died year", life.group(2), doc_id, sentence)]
        spans = [sp for sp in spans if not life.start() <= sp[0] < life.end()]
        s_end = life.end()
    last_rel = ""
    prev: tuple[int, int, str] | None = None
    for a, z, name in spans:
        if fold_name(name) == fold_name(subject):
            continue
        head = subject
        if a < s_end:  # before the subject (``Built in 1831 to plans by X, it is ...``)
            segment = sentence[prev[1] if prev and prev[1] <= a else 0 : a]
        else:
            segment = sentence[prev[1] if prev and prev[1] > s_end else s_end : a]
            if prev is not None and prev[1] > s_end and _ATTACH.match(segment):
                head = prev[2]
        rel = relation_name(segment, before_name=not NUMBER.fullmatch(name))
        if not rel and NUMBER.fullmatch(name):
            rel = _number_relation(sentence, a, z, name)
        elif last_rel and (not rel or (prev and NUMBER.fullmatch(prev[2]) and _AFTER_NUMBER.match(segment))):
            rel, head = _bare_relation(segment, last_rel, prev, head)
        if rel:
            if head == subject:
                last_rel = rel
            if _YEAR.fullmatch(name) and "year" not in rel.split():
                words = rel.split()
                while len(words) > 1 and words[-1] in _PREPOSITIONS:
                    words.pop()
                rel = " ".join(words + ["year"])  # ``born in 1799`` / ``born in Kellering``: a year and a place are two relations
            out.append(TextFact(head, rel, name, doc_id, sentence))
        prev = (a, z, name)
    return out


class TextKB:
    """The triples of every passage of a passages index (read through a sentence graph), as facts with
    provenance: ``facts`` (:class:`~graphhop.core.Fact`, id ``<passage id>#<n>``) and ``docs`` (fact id -> passage id)."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.triples: list[TextFact] = []
        for doc in graph.index.docs.docs:
            title = doc.title or ""
            for sentence in graph.sentences(doc.id):
                self.triples += sentence_facts(graph, title, doc.id, sentence)
        self.facts: list[Fact] = []
        self.docs: dict[str, str] = {}
        seen: dict[str, int] = {}
        for t in self.triples:
            n = seen[t.doc] = seen.get(t.doc, 0) + 1
            fid = f"{t.doc}#{n}"
            self.facts.append(Fact(t.head, t.relation, t.tail, fid))
            self.docs[fid] = t.doc

    def passages_of(self, fact_ids: Iterable[str], store: Any = None) -> list[str]:
        """The passages the facts ``fact_ids`` were read in (with ``store``, a
        :class:`~graphhop.kb.store.KGStore` of these facts: every passage stating the same triple), in order."""
        out: dict[str, None] = {}
        copies: dict[str, Sequence[str]] = {}
        if store is not None:
            copies = {ids[0]: ids for ids in store.fact_ids}
        for fid in fact_ids:
            for f in copies.get(fid, [fid]):
                if f in self.docs:
                    out[self.docs[f]] = None
        return list(out)
