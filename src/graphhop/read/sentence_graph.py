"""Text read as a graph of *sentence edges* (the walk reader's graph, :mod:`graphhop.read.walk`).

Word keys (Snowball stems, agent nouns cut, irregular forms folded), the sentence edges of a passage (the
entity a sentence is about -> another mention, labelled with the words between them; inverse edges to the
passage's title) and the clean-ups the edges rely on: definite descriptions resolved to the entity named
before them, titles before names, a leading adverbial clause dropped, a year range read as birth and death.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from graphhop.kb.names import fold_name, name_mentions, name_spans
from graphhop.read.numbers import NUMBER as _NUMBER

__all__ = ["Edge", "LIFE", "STOP", "SentenceGraph", "TOKEN", "find_name", "noun_key", "question_words", "relation_keys",
           "surface_words", "title_name", "word_key"]

STOP = set("""a an the of in on at to for by with and or is was are were be been being do does did has have had
what which who whom whose where when why how that this these those it its he she they his her their there as into than
many much s also same one up out about after before over under then so not no yes any all some its
earlier later first last older younger oldest youngest more most fewer less least higher lower larger smaller bigger
longer shorter greater highest lowest largest smallest biggest earliest latest elder eldest""".split())
#: Irregular forms folded to one key (general English, not chosen on any question set).
_IRREGULAR = {"born": "born", "birth": "born", "bore": "born", "won": "win", "winner": "win", "wrote": "write",
              "written": "write", "writer": "write", "grew": "grow", "grown": "grow", "sang": "sing", "sung": "sing",
              "began": "begin", "begun": "begin", "made": "make", "held": "hold", "led": "lead", "taught": "teach",
              "built": "build", "came": "come", "went": "go", "gone": "go", "ran": "run", "took": "take",
              "taken": "take", "gave": "give", "given": "give", "known": "know", "knew": "know"}
TOKEN = re.compile(r"[A-Za-z0-9]+")
_THE_NOUN = re.compile(r"\bthe ([a-z][a-z\-]+)(?=\s*[.,;])")
#: ``the club`` / ``the painting``: a definite description not followed by a name or ``of`` (coreference candidates).
_DESCRIPTION = re.compile(r"\b[Tt]he ([a-z][a-z\-]+)\b(?!\s+(?:of\b|[A-Z0-9]))")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


def word_key(word: str) -> str:
    """A word's key: irregular forms folded, else its Snowball stem with an agent suffix cut
    (``director``/``directed`` -> ``direct``, ``founder``/``founded`` -> ``found``)."""
    import snowballstemmer

    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    stem = _stemmer(snowballstemmer).stemWord(w)
    if stem.endswith(("er", "or")) and len(stem) >= 6:
        stem = stem[:-2]
    _SURFACE.setdefault(stem, w)
    return stem


#: A surface word for each key (the first seen): what the encoder reads for soft matches.
_SURFACE: dict[str, str] = {}


_STEMMERS: dict[str, Any] = {}


def _stemmer(module: Any) -> Any:
    if "en" not in _STEMMERS:
        _STEMMERS["en"] = module.stemmer("english")
    return _STEMMERS["en"]


_RELATIVE = {"where", "that", "which", "who", "whom", "whose", "when"}


def question_words(question: str, entities: Sequence[str] = (),
                   described: bool = False) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """``(relation words, answer type nouns, bridge type nouns)`` of a question (keys, :func:`relation_keys`).

    A *type noun* names what an entity is rather than how it is related: the noun after ``which``/
    ``what``/``how many`` names the answer's type (``In which country``); a noun before a relative
    word (``the country where``, ``the label that``) or a participle with ``by`` (``the school founded
    by``) names a bridge entity's type. A noun followed by ``of`` is a relation (``the capital of``,
    ``the director of``) even after ``what``. With ``described``, ``the <noun>`` (lower case) placed by a preposition
    of :data:`_PLACING` or an ``-ing`` participle (``the engineer behind X``, ``the town nearest X``, ``the county
    containing the town``) names a bridge's type too."""
    written = TOKEN.findall(question)
    words = [w.lower() for w in written]
    answer: set[str] = set()
    bridge: set[str] = set()
    for i, w in enumerate(words):
        nxt, nxt2 = (words[i + 1 : i + 3] + ["", ""])[:2]
        if w in STOP or nxt == "of":
            continue
        if i > 0 and words[i - 1] in ("which", "what", "many"):
            answer.add(word_key(w))
        elif nxt in _RELATIVE or (nxt == "in" and nxt2 == "which") or (nxt.endswith(("ed", "en", "wn")) and nxt2 == "by") \
                or (described and i > 0 and words[i - 1] == "the" and written[i].islower() and _placed(nxt, nxt2)):
            bridge.add(word_key(w))
    keys = relation_keys(question, drop=entities)
    return keys - answer - bridge, keys & frozenset(answer), keys & frozenset(bridge) - answer


#: Words that place a described entity (``the engineer behind X``, ``the town nearest X``; general English).
#: Not ``on``/``at``/``from``: they place things as often as they describe them (``into the sea at the town``).
_PLACING = frozenset("behind near nearest beside".split())


def _placed(nxt: str, nxt2: str) -> bool:
    """Whether ``the <noun>`` followed by ``nxt nxt2`` is placed by a preposition or an ``-ing`` participle before an
    article or a name (``behind Blackfen``, ``containing the town``)."""
    return nxt in _PLACING or (nxt.endswith("ing") and len(nxt) > 5 and nxt2 in ("the", "a", "an"))


def surface_words(text: str) -> dict[str, str]:
    """Each word key of ``text`` with the word written for it first there (lower case): the word the encoder reads
    for a key in that text (``teach``: ``teacher`` in one sentence, ``taught`` in another)."""
    out: dict[str, str] = {}
    for w in TOKEN.findall(text):
        out.setdefault(word_key(w), w.lower())
    return out


def relation_keys(text: str, drop: Sequence[str] = ()) -> frozenset[str]:
    """Keys of the content words of ``text`` (no stop words, no words of the names in ``drop``)."""
    dropped = {word_key(w) for n in drop for w in TOKEN.findall(n)}
    return frozenset(word_key(w) for w in TOKEN.findall(text) if w.lower() not in STOP and len(w) > 1) - dropped


@dataclass(frozen=True)
class Edge:
    """One sentence edge: ``source`` entity -> ``target`` mention, read in passage ``doc``."""

    source: str
    target: str
    doc: str
    sentence: str
    words: frozenset[str]
    inverse: bool = False
    label: str = ""  # the relation words as written (what the trained chain scorer reads)


def title_name(title: str) -> str:
    """The name a passage's title gives its entity, without a bracketed qualifier after it (``Castellan (steamer)``:
    ``Castellan``, as the text writes it)."""
    return _QUALIFIER.sub("", title) or title


_QUALIFIER = re.compile(r"\s*\([^()]*\)\s*$")


def find_name(text: str, name: str) -> tuple[int, int] | None:
    """Char range of the first whole-word, case-insensitive mention of ``name`` in ``text``."""
    words = TOKEN.findall(name)
    if not words:
        return None
    m = re.search(r"(?<![\w])" + r"\W+".join(map(re.escape, words)) + r"(?![\w])", text, re.I)
    return (m.start(), m.end()) if m else None


class SentenceGraph:
    """Sentence edges of a passages index, built lazily per entity (module docstring).

    ``search`` is a :class:`graphhop.retrieve.texthop.HopSearch` (BM25 + entity links of the index)."""

    def __init__(self, search: Any, depth: int = 20, after: int = 2) -> None:
        self.search = search
        self.index = search.index
        self.depth = depth
        self.after = after
        self.titles: dict[str, list[str]] = {}
        for d in self.index.docs.docs:
            if d.title:
                self.titles.setdefault(fold_name(title_name(d.title)), []).append(d.id)
        last: dict[str, set[str]] = {}
        for key in self.titles:
            words = key.split()
            if len(words) >= 2:
                last.setdefault(words[-1], set()).add(key)
        links = getattr(search, "entity_links", None)
        if links is None:
            from graphhop.index.links import EntityLinks

            links = EntityLinks(self.index)
        self.links = links
        self._surname = {w: next(iter(keys)) for w, keys in last.items() if len(keys) == 1 and w not in self.titles}
        heads: dict[str, set[str]] = {}  # a title without its last word (``wendrell`` of ``wendrell mine``)
        for key in (k for k in self.titles if " " in k):
            heads.setdefault(key.rsplit(" ", 1)[0], set()).add(key)
        self._headless = {k: next(iter(v)) for k, v in heads.items() if len(v) == 1 and k not in self.titles}
        self._edges: dict[str, list[Edge]] = {}
        self._sentences: dict[str, list[str]] = {}
        self._surface: dict[str, dict[str, str]] = {}

    def resolve(self, name: str) -> str:
        """The index's title for ``name`` (``Salt Road`` -> ``The Salt Road``, ``Petrak`` -> ``Anselm Petrak``), else ``name``."""
        key = fold_name(name)
        for k in (key, f"the {key}", self._surname.get(key, "")):
            if k in self.titles:
                return title_name(self.index.docs[self.titles[k][0]].title)
        return name

    def knows(self, name: str) -> bool:
        """Whether ``name`` is an index title, as :meth:`resolve` reads it (``Titanic`` for ``The Titanic``)."""
        key = fold_name(name)
        return any(k in self.titles for k in (key, f"the {key}", self._surname.get(key, "")))

    def own(self, name: str) -> list[str]:
        """The passages titled with ``name``: its own, as :meth:`resolve` reads it, or else the one title that is
        ``name`` and one word more (``Wendrell`` for ``Wendrell Mine``, ``Skerrow Rock`` for ``Skerrow Rock
        Lighthouse``: a name a sentence shortens)."""
        key = fold_name(name)
        for k in (key, f"the {key}", self._surname.get(key, ""), self._headless.get(key, "")):
            if k in self.titles:
                return self.titles[k]
        return []

    def entities(self, question: str) -> list[str]:
        """The question's entities: its proper names and the index titles it mentions (resolved)."""
        found = [self.resolve(re.sub(r"['’]s$", "", n)) for n in name_mentions(question[:1].lower() + question[1:])]
        if self.links.titled:
            found += [title_name(self.index.docs[self.titles[k][0]].title) for k in self.links.mentioned(question)
                      if k in self.titles]
        out: list[str] = []
        for name in found:  # longest first; a name inside a longer one is not another entity
            if not any(fold_name(name) in fold_name(o) for o in out):
                out = [o for o in out if fold_name(o) not in fold_name(name)] + [name]
        return out

    def described(self, question: str, k: int = 1) -> list[str]:
        """Start entities for a question that names none (``The clock whose painted moon seems to cry: ...``): the
        titles of the ``k`` passages the index's first stage (dense + BM25 of the question) ranks first."""
        if not hasattr(self.search, "first_stage") or not hasattr(self.search, "encode_queries"):
            return []
        hits = self.search.first_stage([question], self.search.encode_queries([question]))[0][:k]
        return list(dict.fromkeys(title_name(self.index.docs[h.id].title) for h in hits if self.index.docs[h.id].title))

    def passages(self, entity: str) -> list[str]:
        """Passages titled ``entity`` and BM25 hits of its name that mention it."""
        ids = list(self.titles.get(fold_name(entity), []))
        if self.search.bm25 is not None:
            for hit in self.search.bm25.search([entity], self.depth)[0]:
                if hit.id not in ids and find_name(self.index.docs[hit.id].text, entity):
                    ids.append(hit.id)
        return ids

    def sentences(self, doc_id: str) -> list[str]:
        """A passage's sentences, definite descriptions resolved (:meth:`resolve_descriptions`)."""
        if doc_id not in self._sentences:
            text = self.index.docs[doc_id].text.replace("[SEP]", ". ")
            self._sentences[doc_id] = self.resolve_descriptions(doc_id, [s.strip() for s in _SENTENCE.split(text) if s.strip()])
        return self._sentences[doc_id]

    def resolve_descriptions(self, doc_id: str, sentences: list[str]) -> list[str]:
        """``the <noun>`` written for an entity an earlier sentence named (``He has played for Corvel Athletic
        ... He also captains the club``) replaced by that name: the latest earlier name (other than the
        passage's title, which the passage's own sentences are about anyway) whose name ends with the noun or
        whose passage describes it with it (``Corvel Athletic is a football club``)."""
        title = fold_name(title_name(self.index.docs[doc_id].title or ""))
        named: list[str] = []
        out = []
        for sentence in sentences:
            def swap(m: re.Match) -> str:
                noun = word_key(m.group(1))
                for name in reversed(named):
                    if word_key(TOKEN.findall(name)[-1]) == noun or noun in relation_keys(self.first_clause(name)):
                        return name
                return m.group(0)

            resolved = _DESCRIPTION.sub(swap, sentence) if named else sentence
            out.append(resolved)
            named += [n for a, z, n in name_spans(sentence) if fold_name(n) != title and TOKEN.findall(n)]
        return out

    def first_clause(self, name: str) -> str:
        """What the passage titled ``name`` first says it is (``is a football club``), from its raw text."""
        ids = self.titles.get(fold_name(name), [])
        if not ids:
            return ""
        text = self.index.docs[ids[0]].text
        return _clause_after(text[: (text.find(". ") + 1) or len(text)], name)

    def mentions(self, sentence: str) -> list[tuple[int, int, str]]:
        """Candidate targets in a sentence: names, numbers, index titles, ``the <noun>`` ending a clause. A name span
        that cuts a number (``About 9`` of ``About 9,400``, ``105-metre`` of ``7,105-metre``) is dropped."""
        numbers = [(m.start(), m.end(), m.group(0)) for m in _NUMBER.finditer(sentence)]
        spans = [_untitled(a, z, n) for a, z, n in name_spans(sentence)
                 if not (_not_a_name(sentence, a, z) and not self.knows(sentence[a:z]))  # a title is a name
                 and not any(a < z2 and a2 < z and not a <= a2 < z2 <= z for a2, z2, _ in numbers)  # cuts no number
                 and not _only_numbers(n)]  # ``From 1715 to 1730``: two numbers, no name
        spans += numbers
        spans += [(m.start(1), m.end(2), m.group(0)[1:-1]) for m in LIFE.finditer(sentence)]  # ``(1895–1961)``: one span
        spans += [(m.start(1), m.end(1), m.group(1)) for m in _THE_NOUN.finditer(sentence)]
        if self.links.titled:
            for key in self.links.mentioned(sentence):
                at = find_name(sentence, key)
                if at and key in self.titles:
                    spans.append((at[0], at[1], sentence[at[0] : at[1]]))
        spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        out: list[tuple[int, int, str]] = []
        for a, z, n in spans:  # drop spans inside a longer one already kept
            if not any(a >= a2 and z <= z2 for a2, z2, _ in out):
                out.append((a, z, _POSSESSIVE.sub("", n.strip(" .,;:'’"))))  # ``Magnus Orrel's laboratory``: Magnus Orrel
        return out

    def _sentence_edges(self, entity: str, doc_id: str, sentence: str, own: bool) -> list[Edge]:
        """Edges of one sentence from ``entity`` (see the module docstring)."""
        at = find_name(sentence, entity)
        if at is None and not own:
            return []
        s0, s1 = at if at else (0, 0)
        key = fold_name(entity)
        out = []
        for a, z, name in self.mentions(sentence):
            if a < s1 and s0 < z or not name or fold_name(name) in key or key in fold_name(name):
                continue
            tail = " ".join(TOKEN.findall(sentence[max(z, s1) :])[: self.after])
            between = sentence[s1:a] if a >= s1 else sentence[z:s0]
            between = _main_clause(between) if s1 == 0 and a >= s1 else between
            words = relation_keys(f"{between} {tail}") | (_LIFE_WORDS if LIFE.fullmatch(sentence[a - 1 : z + 1]) else frozenset()) \
                | (_LENGTH_WORDS if _LENGTH.match(sentence[z:]) else frozenset())
            out.append(Edge(entity, name, doc_id, sentence, words, label=_label(between, tail)))
        title = title_name(self.index.docs[doc_id].title or "")
        if at is not None and not own and title and find_name(sentence, title) is None:
            tail = " ".join(TOKEN.findall(sentence[s1:])[: self.after])
            head = _main_clause(sentence[:s0])
            out.append(Edge(entity, title, doc_id, sentence, relation_keys(f"{head} {tail}"), inverse=True,
                            label=_label(head, tail)))
        return out

    def surface(self, sentence: str) -> dict[str, str]:
        """:func:`surface_words` of a sentence (cached)."""
        if sentence not in self._surface:
            self._surface[sentence] = surface_words(sentence)
        return self._surface[sentence]

    def edges(self, entity: str) -> list[Edge]:
        """Every edge from ``entity`` (cached)."""
        key = fold_name(entity)
        if key not in self._edges:
            out: list[Edge] = []
            for doc_id in self.passages(entity):
                own = fold_name(title_name(self.index.docs[doc_id].title)) == key
                for sentence in self.sentences(doc_id):
                    out += self._sentence_edges(entity, doc_id, sentence, own)
            self._edges[key] = out
        return self._edges[key]


def noun_key(word: str) -> str:
    """A noun's key: its Snowball stem, no agent suffix cut (a ``painter`` is no ``painting``)."""
    import snowballstemmer

    return _stemmer(snowballstemmer).stemWord(word.lower())



_CLAUSE_END = re.compile(r"[,.;:()]|\b(?:whose|which|that|who|where|in|on|of|at|from|by|and|with)\b")


def _clause_after(sentence: str, name: str) -> str:
    """The words after ``name`` in ``sentence`` up to the clause's end (a comma after an apposition's start)."""
    at = find_name(sentence, name)
    if not at:
        return ""
    rest = sentence[at[1] :].lstrip(" ,")
    end = _CLAUSE_END.search(rest)
    return rest[: end.start()] if end else rest


#: Titles written before a person's name (general English): ``Captain Edda Lorne`` names ``Edda Lorne``.
_TITLES = re.compile(r"^(?:(?:Captain|Capt|Admiral|General|Colonel|Major|Sergeant|Doctor|Dr|Professor|Prof|Sir|Dame|Lady|"
                     r"Lord|Mr|Mrs|Ms|Miss|King|Queen|Prince|Princess|President|Father|Sister|Brother|Saint|St)\.?\s+)+(?=[A-Z])")


def _untitled(start: int, end: int, name: str) -> tuple[int, int, str]:
    """A name span without the titles before the name (the title stays in the sentence, so an edge's words keep it)."""
    m = _TITLES.match(name)
    return (start + m.end(), end, name[m.end() :]) if m else (start, end, name)


#: ``Amos Teel (1790-1860) was ...``: a parenthesised year range after a name gives the years of birth and death.
LIFE = re.compile(r"\((\d{3,4})\s*[-–]\s*(\d{3,4})\)")
_LIFE_WORDS = frozenset({"born", "die"})
#: ``7,412 metres``, ``(7,412 m)``, ``a 7,105-metre peak``: a number with a unit of length gives the words that ask for it.
_LENGTH = re.compile(r"[\s-]*(?:metres?|meters?|m|kilometres?|kilometers?|km|feet|foot|ft|miles?)\b", re.I)
_LENGTH_WORDS = frozenset({"tall", "high", "height", "long", "length"})
#: A sentence-initial adverbial clause (``Before coaching she ...``, ``After the war, ...``): not the relation.
_LEAD_CLAUSE = re.compile(r"^\s*(?:before|after|while|until|when|once)\b[^,]*?(?:,\s*|\s+(?=(?:he|she|it|they|his|her|its|their)\b))",
                          re.I)


#: A participle, adverb or adjective written with a capital (``Born in Elsby, she ...``, ``Having no children, he ...``,
#: ``Today the university ...``, ``the Kallundrian capital``): one capitalized word that opens the sentence as a
#: participle or adverb before a function word (not an auxiliary: ``Reading is``),
#: or an adjective of a people or place (``-ian``, ``-ish``, ...) between an article and a lower-case word, names nothing.
_PARTICIPLE_START = re.compile(r"[A-Z][a-z]+(?:ing|ed)|Born|Known|Given|Made|Built|Written|Taken"
                               r"|Today|Now|Here|Later|Afterwards|Meanwhile|Together|Soon"
                               # sentence adverbs by name, not every ``-ly`` word (``Italy``, ``Emily`` are names)
                               r"|Finally|Eventually|Originally|Initially|Formerly|Previously|Subsequently|Recently"
                               r"|Currently|Shortly|Briefly|Early|Unusually|Notably|Reportedly|Traditionally", re.A)
_MODIFIER = re.compile(r"\b(?:[Tt]he|[Aa]n?)\s+$")
_POSSESSIVE = re.compile(r"['’]s$")
_ADJECTIVE_ENDS = ("ian", "ish", "ese", "ean", "ic")  # Italian, British, Chinese, Korean, Icelandic
_AUXILIARY = frozenset("is was are were has have had do does did be will would can could".split())


def _not_a_name(sentence: str, start: int, end: int) -> bool:
    """Whether the one-word capitalized span ``sentence[start:end]`` is a participle opening the sentence or an
    adjective between an article and a lower-case word (:data:`_PARTICIPLE_START`), not a name."""
    word = sentence[start:end]
    after = TOKEN.findall(sentence[end : end + 30])
    if " " in word.strip() or not after or not after[0].islower() or after[0] in ("of", "and"):
        return False
    if start == 0 and _PARTICIPLE_START.fullmatch(word):  # ``Born in``, ``Having no``; not ``Reading is``, ``Kipling wrote``
        return after[0] in STOP and after[0] not in _AUXILIARY
    return bool(_MODIFIER.search(sentence[:start])) and word.endswith(_ADJECTIVE_ENDS) and after[0] not in STOP


def _only_numbers(name: str) -> bool:
    """Whether a capitalized run holds numbers and function words only (``From 1715 to 1730``, ``In 1850``): the
    numbers are mentions of their own, the run names nothing."""
    words = TOKEN.findall(name)
    return any(w.isdigit() for w in words) and all(w.isdigit() or w.lower() in STOP or w.lower() in _FUNCTION
                                                   for w in words)


#: Function words that open a capitalized run at a sentence's start besides :data:`STOP` (general English).
_FUNCTION = frozenset("from until till since between during around circa through throughout".split())


def _main_clause(prefix: str) -> str:
    """A sentence's words before a mention without a leading adverbial clause (:data:`_LEAD_CLAUSE`)."""
    return _LEAD_CLAUSE.sub("", prefix, count=1)


def _label(between: str, tail: str) -> str:
    """An edge's relation words as written: the words between the mentions (the ones after when none)."""
    words = TOKEN.findall(between.lower())
    return " ".join(words or TOKEN.findall(tail.lower()))
