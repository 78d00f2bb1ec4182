"""Hop-by-hop reading over entity links: the default reader of ``ask`` over passages.

Text is read as a graph of *sentence edges*, the way a KG is walked relation by relation:

* an **edge** joins the entity a sentence is about (the passage's title, which its pronouns refer
  to, or an entity the sentence names) to another mention of the same sentence (a proper name, a
  number, a title of the index, ``the <noun>`` ending a clause); its **relation words** are the
  sentence's words *between* the two (``Night Ferry to Kestrin`` --[is a 1994 drama film directed
  by]--> ``Mara Voss``), plus the two words after the later one. A sentence that names an entity
  inside another passage also gives the *inverse* edge to that passage's title (``Mara Voss``
  --[... directed by]--> ``The Salt Road``), so ``Which films did X direct?`` walks backwards.
* The passages of an entity come from the **whole index**: those titled with it (entity links) and
  the BM25 hits of its name that mention it.
* A question's **relation words** are its content words (Snowball stems; agent nouns reduced:
  ``director`` -> ``direct``) that are not in its entity names nor comparatives.
* The **walk** starts at the question's entities (names and index titles it mentions) and follows
  edges whose relation words meet the question's, up to ``max_hops``; every hop must meet at least
  one of them (a hop that meets only words already used costs ``reuse_penalty``). The bridge entity of
  each hop is what the next hop starts from: the question with ``the director of X`` read as
  ``Mara Voss`` (decomposition the way KGQA walks relations), and the passages of the hops are the
  evidence chain.
* An answer's score: the share of the question's relation words its walk covers, plus ``w_type``
  times its fit to the question's answer type (:func:`graphhop.read.candidates.type_fit`), minus
  ``hop_penalty`` per hop; the reading's margin is the score minus ``threshold``. When no walk clears
  the threshold (``match_mode="fallback"``), the **trained matcher** (:mod:`graphhop.read.walk_scorer`:
  the shipped KGQA path head reading edge labels as relation names) adds the chains it walks to and
  ``w_match`` times its probability of each chain, so paraphrased relations (``taught`` / ``trained
  under``) and unnamed bridge entities are read by what was learned, not by word lists. The weights
  were set on the selection sets (``tests/pipeline/data``), never on the regression suites.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from graphhop.kb.names import fold_name, name_mentions, name_spans
from graphhop.read.text_qa import NUMBER_WORDS, asks_list

__all__ = ["Edge", "SentenceGraph", "WalkReader", "WalkRetriever", "question_words", "relation_keys", "word_key"]

_STOP = set("""a an the of in on at to for by with and or is was are were be been being do does did has have had
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
_TOKEN = re.compile(r"[A-Za-z0-9]+")
_NUMBER = re.compile(r"\b\d[\d,.]*\d\b|\b\d\b|\b(?:" + "|".join(NUMBER_WORDS) + r")\b", re.I)
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


def question_words(question: str, entities: Sequence[str] = ()) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """``(relation words, answer type nouns, bridge type nouns)`` of a question (keys, :func:`relation_keys`).

    A *type noun* names what an entity is rather than how it is related: the noun after ``which``/
    ``what``/``how many`` names the answer's type (``In which country``); a noun before a relative
    word (``the country where``, ``the label that``) or a participle with ``by`` (``the school founded
    by``) names a bridge entity's type. A noun followed by ``of`` is a relation (``the capital of``,
    ``the director of``) even after ``what``."""
    words = _TOKEN.findall(question.lower())
    answer: set[str] = set()
    bridge: set[str] = set()
    for i, w in enumerate(words):
        nxt, nxt2 = (words[i + 1 : i + 3] + ["", ""])[:2]
        if w in _STOP or nxt == "of":
            continue
        if i > 0 and words[i - 1] in ("which", "what", "many"):
            answer.add(word_key(w))
        elif nxt in _RELATIVE or (nxt == "in" and nxt2 == "which") or (nxt.endswith(("ed", "en", "wn")) and nxt2 == "by"):
            bridge.add(word_key(w))
    keys = relation_keys(question, drop=entities)
    return keys - answer - bridge, keys & frozenset(answer), keys & frozenset(bridge) - answer


def relation_keys(text: str, drop: Sequence[str] = ()) -> frozenset[str]:
    """Keys of the content words of ``text`` (no stop words, no words of the names in ``drop``)."""
    dropped = {word_key(w) for n in drop for w in _TOKEN.findall(n)}
    return frozenset(word_key(w) for w in _TOKEN.findall(text) if w.lower() not in _STOP and len(w) > 1) - dropped


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


def _find(text: str, name: str) -> tuple[int, int] | None:
    """Char range of the first whole-word, case-insensitive mention of ``name`` in ``text``."""
    words = _TOKEN.findall(name)
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
                self.titles.setdefault(fold_name(d.title), []).append(d.id)
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
        self._edges: dict[str, list[Edge]] = {}
        self._sentences: dict[str, list[str]] = {}

    def resolve(self, name: str) -> str:
        """The index's title for ``name`` (``Salt Road`` -> ``The Salt Road``, ``Petrak`` -> ``Anselm Petrak``), else ``name``."""
        key = fold_name(name)
        for k in (key, f"the {key}", self._surname.get(key, "")):
            if k in self.titles:
                return self.index.docs[self.titles[k][0]].title
        return name

    def entities(self, question: str) -> list[str]:
        """The question's entities: its proper names and the index titles it mentions (resolved)."""
        found = [self.resolve(re.sub(r"['’]s$", "", n)) for n in name_mentions(question[:1].lower() + question[1:])]
        if self.links.titled:
            found += [self.index.docs[self.titles[k][0]].title for k in self.links.mentioned(question) if k in self.titles]
        out: list[str] = []
        for name in found:  # longest first; a name inside a longer one is not another entity
            if not any(fold_name(name) in fold_name(o) for o in out):
                out = [o for o in out if fold_name(o) not in fold_name(name)] + [name]
        return out

    def passages(self, entity: str) -> list[str]:
        """Passages titled ``entity`` and BM25 hits of its name that mention it."""
        ids = list(self.titles.get(fold_name(entity), []))
        if self.search.bm25 is not None:
            for hit in self.search.bm25.search([entity], self.depth)[0]:
                if hit.id not in ids and _find(self.index.docs[hit.id].text, entity):
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
        title = fold_name(self.index.docs[doc_id].title or "")
        named: list[str] = []
        out = []
        for sentence in sentences:
            def swap(m: re.Match) -> str:
                noun = word_key(m.group(1))
                for name in reversed(named):
                    if word_key(_TOKEN.findall(name)[-1]) == noun or noun in relation_keys(self.first_clause(name)):
                        return name
                return m.group(0)

            resolved = _DESCRIPTION.sub(swap, sentence) if named else sentence
            out.append(resolved)
            named += [n for a, z, n in name_spans(sentence) if fold_name(n) != title and _TOKEN.findall(n)]
        return out

    def first_clause(self, name: str) -> str:
        """What the passage titled ``name`` first says it is (``is a football club``), from its raw text."""
        ids = self.titles.get(fold_name(name), [])
        if not ids:
            return ""
        text = self.index.docs[ids[0]].text
        return _clause_after(text[: (text.find(". ") + 1) or len(text)], name)

    def mentions(self, sentence: str) -> list[tuple[int, int, str]]:
        """Candidate targets in a sentence: names, numbers, index titles, ``the <noun>`` ending a clause."""
        spans = [_untitled(a, z, n) for a, z, n in name_spans(sentence)]
        spans += [(m.start(), m.end(), m.group(0)) for m in _NUMBER.finditer(sentence)]
        spans += [(m.start(1), m.end(1), m.group(1)) for m in _THE_NOUN.finditer(sentence)]
        if self.links.titled:
            for key in self.links.mentioned(sentence):
                at = _find(sentence, key)
                if at and key in self.titles:
                    spans.append((at[0], at[1], sentence[at[0] : at[1]]))
        spans.sort(key=lambda s: (s[0], -(s[1] - s[0])))
        out: list[tuple[int, int, str]] = []
        for a, z, n in spans:  # drop spans inside a longer one already kept
            if not any(a >= a2 and z <= z2 for a2, z2, _ in out):
                out.append((a, z, n.strip(" .,;:'’")))
        return out

    def _sentence_edges(self, entity: str, doc_id: str, sentence: str, own: bool) -> list[Edge]:
        """Edges of one sentence from ``entity`` (see the module docstring)."""
        at = _find(sentence, entity)
        if at is None and not own:
            return []
        s0, s1 = at if at else (0, 0)
        key = fold_name(entity)
        out = []
        for a, z, name in self.mentions(sentence):
            if a < s1 and s0 < z or not name or fold_name(name) in key or key in fold_name(name):
                continue
            tail = " ".join(_TOKEN.findall(sentence[max(z, s1) :])[: self.after])
            between = sentence[s1:a] if a >= s1 else sentence[z:s0]
            between = _main_clause(between) if s1 == 0 and a >= s1 else between
            words = relation_keys(f"{between} {tail}") | (_LIFE_WORDS if _LIFE.fullmatch(sentence[a - 1 : z + 1]) else frozenset())
            out.append(Edge(entity, name, doc_id, sentence, words, label=_label(between, tail)))
        title = self.index.docs[doc_id].title
        if at is not None and not own and title and _find(sentence, title) is None:
            tail = " ".join(_TOKEN.findall(sentence[s1:])[: self.after])
            head = _main_clause(sentence[:s0])
            out.append(Edge(entity, title, doc_id, sentence, relation_keys(f"{head} {tail}"), inverse=True,
                            label=_label(head, tail)))
        return out

    def edges(self, entity: str) -> list[Edge]:
        """Every edge from ``entity`` (cached)."""
        key = fold_name(entity)
        if key not in self._edges:
            out: list[Edge] = []
            for doc_id in self.passages(entity):
                own = fold_name(self.index.docs[doc_id].title) == key
                for sentence in self.sentences(doc_id):
                    out += self._sentence_edges(entity, doc_id, sentence, own)
            self._edges[key] = out
        return self._edges[key]


@dataclass(frozen=True)
class _State:
    entity: str
    edges: tuple[Edge, ...]
    covered: frozenset[str]
    reused: int
    typed: frozenset[str] = frozenset()  # bridge type nouns the entity is (credited when it is a bridge)

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.doc for e in self.edges))


class WalkReader:
    """Answers by walking sentence edges from the question's entities (module docstring).

    :meth:`read` gives ``(paths, readings)`` in the form :class:`graphhop.read.text_qa.TextQA` uses."""

    def __init__(self, search: Any, encoder: Any = None, max_hops: int = 4, beam: int = 24, w_type: float = 0.5,
                 hop_penalty: float = 0.02, reuse_penalty: float = 0.15, threshold: float = 0.6,
                 soft: float | None = 0.65, matcher: bool = True, w_match: float = 1.0,
                 match_temperature: float = 4.0, match_mode: str = "fallback", clear_gap: float | None = 0.05) -> None:
        self.graph = SentenceGraph(search)
        self.encoder = encoder if encoder is not None else search.encoder
        self.matcher: Any = None
        if matcher and hasattr(self.encoder, "encode"):
            from graphhop.read.walk_scorer import ChainScorer

            self.matcher = ChainScorer(self.graph, self.encoder, max_hops=min(max_hops, 3))
        self.w_match = w_match
        self.match_temperature = match_temperature
        self.match_mode = match_mode
        self.clear_gap = clear_gap
        self.max_hops = max_hops
        self.beam = beam
        self.w_type = w_type
        self.hop_penalty = hop_penalty
        self.reuse_penalty = reuse_penalty
        self.threshold = threshold
        self.soft = soft if hasattr(self.encoder, "encode") else None
        self._word_vecs: dict[str, Any] = {}

    def walk(self, entities: Sequence[str], relations: frozenset[str], answer_types: frozenset[str] = frozenset(),
             bridge_types: frozenset[str] = frozenset()) -> list[_State]:
        """Every state reached (beam ``beam`` per depth), best coverage first. A hop must cover a new
        relation word, leave a bridge that is of a bridge type noun, or carry a type noun in its words;
        covered = relation words met (in the edge's words, by an encoder-similar word, or naming what the
        entity reached is) + bridge type nouns of the bridges passed."""
        states = [_State(e, (), frozenset(), 0, self._typed(e, "", bridge_types)) for e in entities]
        seen_entities = {fold_name(e) for e in entities}
        types = answer_types | bridge_types
        reached: list[_State] = []
        for _ in range(self.max_hops):
            grown: dict[tuple[str, tuple[str, ...]], _State] = {}
            for st in states:
                visited = seen_entities | {fold_name(e.target) for e in st.edges}
                edges = self.graph.edges(st.entity)
                similar = self._similar(edges, relations)
                for edge in edges:
                    new = self._extend(st, edge, relations, similar, types, bridge_types)
                    if new is None or fold_name(edge.target) in visited:
                        continue
                    key = (fold_name(new.entity), new.path)
                    if key not in grown or _rank(grown[key]) < _rank(new):
                        grown[key] = new
            states = sorted(grown.values(), key=_rank, reverse=True)[: self.beam]
            reached += states
            if not states:
                break
        return reached

    def _extend(self, st: _State, edge: Edge, relations: frozenset[str], similar: set[tuple[str, str]],
                types: frozenset[str], bridge_types: frozenset[str], free: bool = False) -> _State | None:
        """``st`` one edge further, or None when the hop covers no new relation word, passes no bridge
        of a bridge type and carries no type noun (unless ``free``: a chain the trained matcher chose)."""
        met = edge.words & relations | frozenset(r for r in relations for w in edge.words if (r, w) in similar)
        named = relations & relation_keys(edge.target)  # ``best-known bridge``: the Weir Bridge
        gain = (met | named | (st.typed if st.edges else frozenset())) - st.covered
        if not (free or gain or edge.words & types):
            return None
        return _State(edge.target, st.edges + (edge,), st.covered | gain, st.reused + (not gain),
                      self._typed(edge.target, edge.sentence, bridge_types))

    def chain_state(self, chain: Sequence[Edge], relations: frozenset[str], bridge_types: frozenset[str]) -> _State:
        """The walk state of a chain found by the trained matcher (coverage counted as the walk counts it)."""
        st = _State(chain[0].source, (), frozenset(), 0, self._typed(chain[0].source, "", bridge_types))
        similar = self._similar(chain, relations)
        for edge in chain:
            st = self._extend(st, edge, relations, similar, frozenset(), bridge_types, free=True) or st
        return st

    def _similar(self, edges: Sequence[Edge], relations: frozenset[str]) -> set[tuple[str, str]]:
        """``(relation word, edge word)`` pairs whose encoder cosine is at least ``soft`` (``taught`` ~
        ``trained``, ``founded`` ~ ``established``): the words' surface forms, encoded once and cached."""
        if self.soft is None or not relations:
            return set()
        import numpy as np

        words = {w for e in edges for w in e.words} | set(relations)
        missing = [w for w in words if w not in self._word_vecs]
        if missing:
            vecs = self.encoder.encode([_SURFACE.get(w, w) for w in missing], convert_to_numpy=True,
                                       normalize_embeddings=True)
            self._word_vecs.update(zip(missing, np.asarray(vecs, dtype=np.float32)))
        others = sorted(words - relations)
        if not others:
            return set()
        sims = np.stack([self._word_vecs[r] for r in relations]) @ np.stack([self._word_vecs[w] for w in others]).T
        rel = list(relations)
        return {(rel[i], others[j]) for i, j in zip(*np.nonzero(sims >= self.soft))}

    def _typed(self, name: str, sentence: str, bridge_types: frozenset[str]) -> frozenset[str]:
        """The nouns of ``bridge_types`` that ``name`` is, by its name, its description or the three words
        before it (``the town of X``)."""
        if not bridge_types:
            return frozenset()
        at = _find(sentence, name) if sentence else None
        before = " ".join(_TOKEN.findall(sentence[: at[0]])[-3:]) if at else ""
        return bridge_types & relation_keys(f"{name} {before} {self.description(name, sentence)}")

    def read(self, question: str, query: str | None = None) -> tuple[list[Any], list[Any]]:
        """Paths (:class:`~graphhop.graph.TextPath`) and readings for ``question``;
        ``query`` (the unmasked question) names the entities when given."""
        from graphhop.read.text_qa import Reading
        from graphhop.graph import TextPath

        entities = self.graph.entities(question)
        relations, answer_types, bridge_types = question_words(question, entities)
        wanted = relations | bridge_types
        if not entities or not (wanted | answer_types or self.matcher is not None):
            return [], []
        states = self.walk(entities, relations, answer_types, bridge_types)
        scores, fits = self._scores(question, states, np.zeros(len(states)), wanted, answer_types)
        if self.matcher is not None and (self.match_mode == "always" or max(scores, default=0.0) <= self.threshold
                                         or asks_list(question)):
            states, match = self.matcher.extend(self, question, entities, states, relations, bridge_types)
            scores, fits = self._scores(question, states, match, wanted, answer_types)
            scores = self._clear_winner(states, scores)
        paths, readings = [], []
        for st, score in zip(states, scores):
            path = TextPath(st.path, score)
            paths.append(path)
            readings.append(Reading(st.entity, score - self.threshold, st.path, score, st.edges[-1].sentence,
                                    holder=st.edges[-1].source, type_fit=fits[st.entity], hops=len(st.edges)))
        return paths, readings

    def _clear_winner(self, states: Sequence[_State], scores: list[float]) -> list[float]:
        """When nothing clears the threshold after the matcher, the best answer still counts (lifted just over
        the threshold) if it leads every other answer by ``clear_gap``: the walk and the head agree on it."""
        if self.clear_gap is None or not scores or max(scores) > self.threshold:
            return scores
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        top = order[0]
        rival = next((scores[i] for i in order[1:] if fold_name(states[i].entity) != fold_name(states[top].entity)), None)
        if rival is None or scores[top] - rival >= self.clear_gap:
            scores = list(scores)
            scores[top] = self.threshold + 1e-3
        return scores

    def _scores(self, question: str, states: Sequence[_State], match: Any, wanted: frozenset[str],
                answer_types: frozenset[str]) -> tuple[list[float], dict[str, float]]:
        """Each state's score (relation words covered, answer type fit, the matcher's probability, penalties)
        and each answer's type fit."""
        if not states:
            return [], {}
        fits = self._type_fits(question, states, answer_types)
        return [(len(st.covered) / len(wanted) if wanted else 1.0) + self.w_type * fits[st.entity] + self.w_match * m
                - self.hop_penalty * len(st.edges) - self.reuse_penalty * st.reused for st, m in zip(states, match)], fits

    def _type_fits(self, question: str, states: Sequence[_State], types: frozenset[str]) -> dict[str, float]:
        """Each answer's fit to the question's answer type: 1 when a type noun of the question is in its
        name or description (:meth:`description`), else :func:`graphhop.read.candidates.type_fit`."""
        from graphhop.read.candidates import type_fit
        from graphhop.read.facts import answer_type

        wanted = answer_type(question)
        wanted_keys = frozenset(noun_key(w) for w in _TOKEN.findall(wanted or "") if word_key(w) in types)
        last = {s.entity: s.edges[-1].sentence for s in reversed(states)}
        described = {t: self.description(t, sentence) for t, sentence in last.items()}
        cos = type_fit(self.encoder, wanted, question, [(t, f"{t} {d}") for t, d in described.items()], lambda c: "")
        return {t: 1.0 if _names_type(t, d, wanted_keys) else c for (t, d), c in zip(described.items(), cos)}

    def description(self, name: str, sentence: str = "") -> str:
        """How the text describes ``name``: the first clause after it in the passage titled with it
        (``Norvania is a northern country``) and its apposition in ``sentence`` (``Dovrik, a mountain village``)."""
        ids = self.graph.titles.get(fold_name(name), [])
        first = self.graph.sentences(ids[0])[0] if ids else ""
        return f"{_clause_after(first, name)} {_clause_after(sentence, name)}".strip()


def noun_key(word: str) -> str:
    """A noun's key: its Snowball stem, no agent suffix cut (a ``painter`` is no ``painting``)."""
    import snowballstemmer

    return _stemmer(snowballstemmer).stemWord(word.lower())


def _names_type(name: str, description: str, type_keys: frozenset[str]) -> bool:
    """Whether a (non-numeric) name is of a type by its words (noun keys, :func:`noun_key`): a word of its
    description or of the name that is or ends with it (``Rijksmuseum``, ``Van Gogh Museum`` for ``museum``,
    ``a steamship`` for ``ship``)."""
    if not type_keys or _NUMBER.fullmatch(name.strip()):
        return False
    heads = []
    for text in (name, description):
        words = _TOKEN.findall(text.lower())
        heads += [noun_key(w) for w, nxt in zip(words, words[1:] + [""]) if w not in _STOP and _is_head(nxt)]
    return any(w == k or (w.endswith(k) and len(k) >= 4) for w in heads for k in type_keys)


def _is_head(next_word: str) -> bool:
    """Whether the word before ``next_word`` ends its noun phrase (a ``bridge builder`` is no bridge)."""
    return not next_word or next_word in _STOP or next_word.endswith(("ed", "ing")) or bool(_NUMBER.fullmatch(next_word))


_CLAUSE_END = re.compile(r"[,.;:()]|\b(?:whose|which|that|who|where|in|on|of|at|from|by|and|with)\b")


def _clause_after(sentence: str, name: str) -> str:
    """The words after ``name`` in ``sentence`` up to the clause's end (a comma after an apposition's start)."""
    at = _find(sentence, name)
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
_LIFE = re.compile(r"\(\d{3,4}\s*[-–]\s*\d{3,4}\)")
_LIFE_WORDS = frozenset({"born", "die"})
#: A sentence-initial adverbial clause (``Before coaching she ...``, ``After the war, ...``): not the relation.
_LEAD_CLAUSE = re.compile(r"^\s*(?:before|after|while|until|when|once)\b[^,]*?(?:,\s*|\s+(?=(?:he|she|it|they|his|her|its|their)\b))",
                          re.I)


def _main_clause(prefix: str) -> str:
    """A sentence's words before a mention without a leading adverbial clause (:data:`_LEAD_CLAUSE`)."""
    return _LEAD_CLAUSE.sub("", prefix, count=1)


def _label(between: str, tail: str) -> str:
    """An edge's relation words as written: the words between the mentions (the ones after when none)."""
    words = _TOKEN.findall(between.lower())
    return " ".join(words or _TOKEN.findall(tail.lower()))


def _rank(state: _State) -> tuple[int, int, int]:
    return (len(state.covered), -state.reused, -len(state.edges))


class WalkRetriever:
    """The walk reader as a passage retriever: passages ranked by the readings' walks (best first),
    then the hop search's first stage (dense + BM25) for the question to fill ``k``."""

    def __init__(self, search: Any, **options: Any) -> None:
        self.hop_search = search
        self.reader = WalkReader(search, **options)

    def search_one(self, question: str, k: int) -> list[Any]:
        """One ranking (:class:`~graphhop.core.Hit` list)."""
        from graphhop.core import ranked_ids

        _, readings = self.reader.read(question)
        walked = [d for r in sorted(readings, key=lambda r: -r.margin) for d in r.path]
        fill = self.hop_search.first_stage([question], self.hop_search.encode_queries([question]))[0]
        return ranked_ids(walked + [h.id for h in fill], k)

    def rank(self, questions: Sequence[str], k: int = 10) -> list[list[Any]]:
        """One ranking per question."""
        return [self.search_one(q, k) for q in questions]
