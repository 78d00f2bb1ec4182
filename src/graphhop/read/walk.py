"""Hop-by-hop reading over entity links: the default reader of ``ask`` over passages.

Text is read as a graph of *sentence edges* (built by :mod:`graphhop.read.sentence_graph`), the way a KG
is walked relation by relation:

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
  ``director`` -> ``direct``) that are not in its entity names nor comparatives. With ``placed_types`` (off: it lost more
  than it won on the selection sets, docs/RESULTS.md "Session 13 (txg13)"), a noun a question places by a preposition
  (``the engineer behind Blackfen Light``, ``the county containing the town``) is a bridge type, not a relation
  word: the text says who designed the light, not who was "behind" it.
* ``entity_cap`` / ``keep_cut`` (off; measured there too): at most ``entity_cap`` states per entity in each depth's
  beam; the states a beam cuts still counted as readings.
* The **walk** starts at the question's entities (names and index titles it mentions; a question naming none: the
  title of the first stage's best passage, :meth:`SentenceGraph.described`) and follows
  edges whose relation words meet the question's, up to ``max_hops``; every hop must meet at least
  one of them (a hop that meets only words already used costs ``reuse_penalty``). The bridge entity of
  each hop is what the next hop starts from: the question with ``the director of X`` read as
  ``Mara Voss`` (decomposition the way KGQA walks relations), and the passages of the hops are the
  evidence chain (with a hop's source's own passage when the hop was read elsewhere and that passage names
  its target too: :meth:`WalkReader.support`). A *climb* (``type_hops``, one by default) lets a chain that met every relation word
  take one more hop that meets none when its end is not named as the asked answer type and fits it
  below ``climb_fit`` (``In which country was X born?``: the birthplace, a city, to the country it is in).
  A *middle hop* (``middle_hops``, one by default) passes an unnamed entity on the way to an asked bridge type
  (``the capital of the province where the Harl Bridge stands``: the bridge's own passage puts it in a town,
  the town's in the province): a hop that meets no question word, read in its source's own passage, that
  the next hop must follow to an entity of the bridge type the chain still owes (never an answer itself).
* An answer's score: the share of the question's relation words its walk covers, plus ``w_type``
  times its fit to the question's answer type (:func:`graphhop.read.candidates.type_fit`), minus
  ``hop_penalty`` per hop; the reading's margin is the score minus ``threshold``. When no walk clears
  the threshold (``match_mode="fallback"``), the **trained matcher** (:mod:`graphhop.read.walk_scorer`:
  the shipped KGQA path head reading edge labels as relation names) adds the chains it walks to and
  ``w_match`` times its probability of each chain, so paraphrased relations (``taught`` / ``trained
  under``) and unnamed bridge entities are read by what was learned, not by word lists; if the best answer
  (by score plus ``clear_type_weight`` times its type fit) then leads every other by ``clear_gap`` it still
  counts. List questions always consult it. ``edge_reader`` (off: it lost on strangers' passages, docs/RESULTS.md
  "Session 14 (txr14)"): a trained cross-encoder (:mod:`graphhop.read.edge_reader`) lets an edge meeting no relation
  word count as meeting one when it accepts the sentence for the question; ``sense_k`` (off) does so for the sentences
  nearest the question by the encoder (:mod:`graphhop.read.walk_sense`; ``mention_reader``, off: a trained reader of
  which of a read sentence's mentions is on the chain). Weights set on the selection sets only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from graphhop.kb.names import fold_name
from graphhop.read.numbers import is_number
from graphhop.read.ops import _AGE, _MAX, _MIN
from graphhop.read.sentence_graph import (_IRREGULAR, TOKEN, Edge, SentenceGraph, find_name, noun_key,
                                          question_words, relation_keys, surface_words, word_key)
from graphhop.read.text_forms import inside_names
from graphhop.read.text_qa import asks_list
from graphhop.read.walk_sense import sense_setup, sensed_edges
from graphhop.read.walk_types import AnswerTypes, _heads, _names_type

__all__ = ["Edge", "SentenceGraph", "WalkReader", "WalkRetriever", "noun_key", "question_words", "relation_keys",
           "word_key"]


@dataclass(frozen=True)
class _State:
    entity: str
    edges: tuple[Edge, ...]
    covered: frozenset[str]
    reused: int
    typed: frozenset[str] = frozenset()  # bridge type nouns the entity is (credited when it is a bridge)
    climbed: int = 0  # hops taken only towards an asked type (``type_hops``)
    middled: int = 0  # hops through an unnamed middle entity (``middle_hops``)
    pending: bool = False  # the last hop met no question word: only a hop that does may follow, not an answer
    read: int = 0  # hops whose relation word only the edge reader met (``read_penalty`` each)
    read_cost: float = 0.0  # their costs beyond ``read_penalty`` (``sense_lead``, ``sense_full``, ``mention_reader``)

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.doc for e in self.edges))


class WalkReader(AnswerTypes):
    """Answers by walking sentence edges from the question's entities (module docstring).

    :meth:`read` gives ``(paths, readings)`` in the form :class:`graphhop.read.text_qa.TextQA` uses."""

    def __init__(self, search: Any, encoder: Any = None, max_hops: int = 4, beam: int = 24, w_type: float = 0.5,
                 hop_penalty: float = 0.02, reuse_penalty: float = 0.15, threshold: float = 0.6,
                 soft: float | None = 0.62, matcher: bool = True, w_match: float = 1.0,
                 match_temperature: float = 4.0, match_mode: str = "fallback", clear_gap: float | None = 0.05,
                 clear_type_weight: float = 2.0, relation_matcher: Any = None, relation_scale: float = 10.0,
                 type_hops: int = 1, climb_fit: float = 0.5, middle_hops: int = 1, type_head: str = "off",
                 own_passages: bool = True, entity_cap: int | None = None, keep_cut: bool = False,
                 placed_types: bool = False, edge_reader: str | None = None, edge_accept: float = 0.5,
                 read_penalty: float = 0.0, reranker: str | None = None, rerank_k: int | None = None,
                 rerank_w: float | None = None, rerank_claims: bool = True, sense_k: int = 0, sense_floor: float = 0.3,
                 sense_lead: float = 0.0, sense_full: float | None = None, mention_reader: str | None = None,
                 mention_w: float = 0.4) -> None:
        from graphhop.kgqa.type_head import TYPE_HEAD_MODES

        if type_head not in TYPE_HEAD_MODES:
            raise ValueError(f"type_head must be one of {', '.join(TYPE_HEAD_MODES)} (got {type_head!r})")
        self.graph = SentenceGraph(search)
        self.encoder = encoder if encoder is not None else search.encoder
        self.relations: Any = None  # an experimental text relation matcher (off by default: docs/RESULTS.md)
        if relation_matcher is not None and hasattr(self.encoder, "encode"):
            from graphhop.read.relation_matcher import RelationMatcher

            self.relations = RelationMatcher.load(self.encoder, relation_matcher)
        elif relation_matcher is not None:
            import warnings

            warnings.warn(f"relation matcher {relation_matcher} ignored: the index's encoder has no encode() "
                          "(a BM25-only index?)", stacklevel=2)
        by_chain = self.relations is not None and self.relations.card.get("side") == "question"
        self.matcher: Any = None
        if matcher and hasattr(self.encoder, "encode"):
            from graphhop.read.walk_scorer import ChainScorer

            self.matcher = ChainScorer(self.graph, self.encoder, max_hops=min(max_hops, 3),
                                       relations=self.relations if by_chain else None, relation_scale=relation_scale)
        self.relation_cover = self.relations is not None and not by_chain
        self.w_match = w_match
        self.match_temperature, self.match_mode = match_temperature, match_mode
        self.clear_gap, self.clear_type_weight = clear_gap, clear_type_weight
        self.max_hops, self.type_hops, self.climb_fit, self.middle_hops = max_hops, type_hops, climb_fit, middle_hops
        self.own_passages = own_passages
        self.beam, self.entity_cap, self.keep_cut, self.placed_types = beam, entity_cap, keep_cut, placed_types
        self.w_type, self.hop_penalty, self.reuse_penalty = w_type, hop_penalty, reuse_penalty
        self.threshold = threshold
        self.soft = soft if hasattr(self.encoder, "encode") else None
        self._word_vecs: dict[str, Any] = {}  # surface word -> encoder vector
        self._asked: dict[str, str] = {}  # relation word key -> the word the question being read wrote for it
        self.type_head = type_head if hasattr(self.encoder, "encode") else "off"  # graphhop.kgqa.type_head (typ12)
        self._head: Any = None
        self.edge_reader: Any = None  # the trained edge reader (graphhop.read.edge_reader; off by default)
        if edge_reader not in (None, "off"):
            from graphhop.read.edge_reader import EdgeReader

            self.edge_reader = EdgeReader.load(edge_reader)
        self.edge_accept, self.read_penalty = edge_accept, read_penalty
        sense_setup(self, sense_k, sense_floor, sense_lead, sense_full, mention_reader, mention_w)
        self.reranker: Any = None  # the trained chain reranker (graphhop.read.chain_rerank; off by default)
        if reranker not in (None, "off"):
            from graphhop.read.chain_rerank import TextChainReranker

            self.reranker = TextChainReranker.load(reranker, rerank_k, rerank_w, rerank_claims)
        self._question, self._sensing = "", False
        self._accepted: dict[Edge, tuple[str, ...]] = {}  # edges the edge reader accepted -> relation words, nearest first

    def walk(self, entities: Sequence[str], relations: frozenset[str], answer_types: frozenset[str] = frozenset(),
             bridge_types: frozenset[str] = frozenset(), climbs: int = 0, middles: int = 0,
             asked: dict[str, str] | None = None, question: str = "") -> list[_State]:
        """Every state reached (beam ``beam`` per depth), best coverage first. A hop must cover a new
        relation word, leave a bridge that is of a bridge type noun, or carry a type noun in its words;
        covered = relation words met (in the edge's words, by an encoder-similar word, or naming what the
        entity reached is) + bridge type nouns of the bridges passed. Up to ``climbs`` hops of a chain may meet
        no question word when every relation word is met but the end is not named as the asked answer type
        (:meth:`_owes`): ``In which country was X born?`` from the birthplace, a city, to the country it is in.
        ``asked``: the word written for each relation word (:func:`surface_words` of the question; what
        :meth:`read` passes), read by the encoder for soft matches; ``question``: the question the edge reader reads
        (:meth:`_read_pairs`; :meth:`read` passes it)."""
        self._asked = asked or {}
        self._question, self._accepted, self._entities, self._read_cost = question or "", {}, tuple(entities), {}
        self._sensing = self.sense_k > 0 and not asks_list(self._question)  # a list gathers items: none read by meaning
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
                    new = self._next(st, edge, relations, similar, types, bridge_types, answer_types, (climbs, middles))
                    if new is None or fold_name(edge.target) in visited:
                        continue
                    key = (fold_name(new.entity), new.path, new.pending, bool(new.read))
                    if key not in grown or _rank(grown[key]) < _rank(new):
                        grown[key] = new
            ranked = sorted(grown.values(), key=_rank, reverse=True)
            done = [st for read in (False, True)  # chains with a read hop: a beam of their own, crowding out none
                    for st in _diverse([s for s in ranked if not s.pending and bool(s.read) == read], self.beam, self.entity_cap)]
            states = done + [s for s in ranked if s.pending][: self.beam]  # middles: a beam of their own
            reached += [s for s in ranked if not s.pending] if self.keep_cut else done
            if not states:
                break
        return reached

    def _next(self, st: _State, edge: Edge, relations: frozenset[str], similar: set[tuple[str, str]],
              types: frozenset[str], bridge_types: frozenset[str], answer_types: frozenset[str],
              most: tuple[int, int]) -> _State | None:
        """``st`` one edge further by :meth:`_extend`; else a climb (:meth:`_climb`); else, up to ``middle_hops``
        times, a hop through an unnamed middle entity (``the province where the Harl Bridge stands``: the bridge
        is in a town, the town in the province): the hop meets no question word, so the state is *pending*,
        never an answer, and only a hop that :meth:`_extend` allows and that reaches an entity of the bridge type
        the chain still owes may follow it (without a reuse penalty). Middles only from ``st``'s own passage. Last, a hop
        the edge reader accepted or read by meaning (``_accepted``), so every chain of the words' walk stays as it was."""
        new = self._extend(st, edge, relations, similar, types, bridge_types)
        owed = bridge_types - st.covered - st.typed
        if st.pending:  # the hop after a middle must reach an entity of the owed bridge type (no reuse then)
            return replace(new, middled=st.middled, reused=st.reused) if new and new.typed & owed else None
        if new is not None:
            return replace(new, middled=st.middled) if st.middled else new
        if st.climbed < most[0] and self._owes(st, relations, answer_types):
            return self._climb(st, edge, bridge_types)
        if not owed or st.middled >= most[1] or is_number(edge.target) or edge.inverse \
                or edge.doc not in self.graph.titles.get(fold_name(st.entity), ()):  # read in st's own passage
            new = self._extend(st, edge, relations, similar, types, bridge_types, read=True) if edge in self._accepted else None
            return replace(new, middled=st.middled) if new and st.middled else new
        return _State(edge.target, st.edges + (edge,), st.covered, st.reused,
                      self._typed(edge.target, edge.sentence, bridge_types), middled=st.middled + 1, pending=True,
                      read=st.read, read_cost=st.read_cost)

    def _extend(self, st: _State, edge: Edge, relations: frozenset[str], similar: set[tuple[str, str]],
                types: frozenset[str], bridge_types: frozenset[str], free: bool = False, read: bool = False) -> _State | None:
        """``st`` one edge further, or None when the hop covers no new relation word, passes no bridge
        of a bridge type and carries no type noun (unless ``free``: a chain the trained matcher chose); ``read``: the
        edge (in ``_accepted``) meets the nearest relation word not yet covered."""
        met = edge.words & relations | frozenset(r for r in relations for w in (*edge.words, edge.label) if (r, w) in similar)
        if read:  # accepted by the edge reader or read by meaning: the nearest relation word not yet covered
            met = frozenset([next((r for r in self._accepted[edge] if r not in st.covered), self._accepted[edge][0])])
        named = relations & relation_keys(edge.target)  # ``best-known bridge``: the Weir Bridge
        gain = (met | named | (st.typed if st.edges else frozenset())) - st.covered
        if not (free or gain or edge.words & types):
            return None
        return _State(edge.target, st.edges + (edge,), st.covered | gain, st.reused + (not gain),
                      self._typed(edge.target, edge.sentence, bridge_types), read=st.read + bool(read and gain),
                      read_cost=st.read_cost + (self._read_cost.get(edge, 0.0) if read and gain else 0.0))

    def _owes(self, st: _State, relations: frozenset[str], answer_types: frozenset[str]) -> bool:
        """Whether ``st`` met every relation word of the question but ends at an entity the text does not
        name as the asked answer type (``Quenby``, a capital, for ``In which country``)."""
        if not (answer_types and st.edges and relations and relations <= st.covered):
            return False
        keys = frozenset(noun_key(w) for w in answer_types)
        return not _names_type(st.entity, self.description_parts(st.entity, st.edges[-1].sentence), keys)

    def _climb(self, st: _State, edge: Edge, bridge_types: frozenset[str]) -> _State | None:
        """``st`` one edge further towards an asked type when the hop meets no question word (``the country
        where X was born``: the city named as birthplace is in the country), or None to a number."""
        if is_number(edge.target):
            return None
        return _State(edge.target, st.edges + (edge,), st.covered, st.reused,
                      self._typed(edge.target, edge.sentence, bridge_types), st.climbed + 1, read=st.read,
                      read_cost=st.read_cost)

    def chain_state(self, chain: Sequence[Edge], relations: frozenset[str], bridge_types: frozenset[str]) -> _State:
        """The walk state of a chain found by the trained matcher (coverage counted as the walk counts it)."""
        st = _State(chain[0].source, (), frozenset(), 0, self._typed(chain[0].source, "", bridge_types))
        similar = self._similar(chain, relations)
        for edge in chain:
            st = self._extend(st, edge, relations, similar, frozenset(), bridge_types, free=True) or st
        return st

    def _similar(self, edges: Sequence[Edge], relations: frozenset[str]) -> set[tuple[str, str]]:
        """``(relation word, edge word)`` pairs whose encoder cosine is at least ``soft`` (``taught`` ~
        ``trained``, ``founded`` ~ ``established``): the words' surface forms, encoded once and cached; and
        ``(relation word, edge label)`` pairs the text relation matcher matches (``coach`` ~ ``has been managed by``)."""
        if not relations:
            return set()
        out = self._matched(edges, relations)
        if self.soft is not None:
            out |= self._soft_pairs(edges, relations)
        return out | self._read_pairs(edges, relations, out)

    def _read_pairs(self, edges: Sequence[Edge], relations: frozenset[str],
                    found: set[tuple[str, str]]) -> set[tuple[str, str]]:
        """Notes (in ``_accepted``) each edge that meets no relation word otherwise and whose sentence the edge reader
        (:mod:`graphhop.read.edge_reader`) accepts for the question at ``edge_accept`` (or, with ``sense_k``, one of the
        sentences nearest the question by meaning: :mod:`graphhop.read.walk_sense`), with the relation words nearest
        its label by the encoder first: the reader says *whether* the sentence states an asked relation about the
        edge's source (``came into the world in`` for ``born``), the encoder *which* (:meth:`_extend` credits the
        nearest not yet covered). Returns no pairs: what a hop meets this way depends on the chain before it."""
        if self.edge_reader is None and not self._sensing or not relations or not self._question:
            return set()
        met = {w for _, w in found}
        fresh = [e for e in edges if not (e.words & relations or met & {*e.words, e.label})]
        todo = [e for e in fresh if e not in self._accepted]
        if self.edge_reader is not None:
            probs = self.edge_reader.probabilities(self._question, [(e.source, e.sentence) for e in todo]) if todo else []
            accepted = [e for e, p in zip(todo, probs) if p >= self.edge_accept and e.label]
        else:  # the sentences nearest the question by meaning (graphhop.read.walk_sense), chosen among all fresh edges
            accepted = [e for e in sensed_edges(self, self._question, self._entities, fresh, relations) if e not in self._accepted]
        keys = sorted(relations)
        if accepted and len(keys) > 1 and self.soft is not None:
            asked = [(r, w) for r in keys for w in self._asked_forms(r)]
            self._encode([w for _, w in asked] + [e.label for e in accepted])
            sims = np.stack([self._word_vecs[w] for _, w in asked]) @ np.stack([self._word_vecs[e.label] for e in accepted]).T
            for e, col in zip(accepted, sims.T):
                self._accepted[e] = tuple(dict.fromkeys(asked[int(i)][0] for i in np.argsort(-col, kind="stable")))
        else:
            self._accepted.update((e, tuple(keys)) for e in accepted)
        return set()

    def _encode(self, texts: Sequence[str]) -> None:
        """Encoder vectors of ``texts`` not yet cached (normalised)."""
        missing = sorted(set(texts) - self._word_vecs.keys())
        if missing:
            vecs = self.encoder.encode(missing, convert_to_numpy=True, normalize_embeddings=True)
            self._word_vecs.update(zip(missing, np.asarray(vecs, dtype=np.float32)))

    def _matched(self, edges: Sequence[Edge], relations: frozenset[str]) -> set[tuple[str, str]]:
        """``(relation word, edge label)`` pairs of the text relation matcher (:mod:`graphhop.read.relation_matcher`)."""
        if self.relations is None or not self.relation_cover:
            return set()
        keys = sorted(relations)
        pairs = self.relations.matches([self._asked_surface(r) for r in keys], [e.label for e in edges])
        surface = {self._asked_surface(r): r for r in keys}
        return {(surface[w], label) for w, label in pairs}

    def _asked_surface(self, key: str) -> str:
        """The word the question wrote for relation word ``key`` (set by :meth:`read`; the key itself otherwise)."""
        return self._asked.get(key, key)

    def _asked_forms(self, key: str) -> tuple[str, ...]:
        """The words the encoder reads for relation word ``key``: the question's word and, for an agent noun the key
        cut (``founder``, ``designer``), the verb's participle too (``founded``, ``designed``), which is how a
        sentence states what the noun asks (``It was established in 1887 by``); none for a comparative (``taller``),
        a number or a verb whose participle is not ``-ed`` (:data:`_NOT_ED`)."""
        word = self._asked_surface(key)
        agent = word != key and word.startswith(key) and word.endswith(("er", "or")) and word not in _IRREGULAR \
            and word not in _COMPARATIVES and not is_number(key)
        regular = key not in _NOT_ED and key[-1:] not in "aeiou" and key[-2:-1] != key[-1:]  # no ``runned``, ``maked``
        return (word, f"{key}ed") if agent and regular else (word,)

    def _soft_pairs(self, edges: Sequence[Edge], relations: frozenset[str]) -> set[tuple[str, str]]:
        """Word pairs at encoder cosine >= ``soft`` (see :meth:`_similar`). Each word is read as written where it
        stands (the question's words for a relation word, :meth:`_asked_forms`; the sentence's for an edge word:
        ``teacher`` and ``taught`` share a key), so a match never depends on what was read before."""
        said: dict[str, set[str]] = {}
        for e in edges:
            for key in e.words - relations:
                said.setdefault(key, set()).add(self.graph.surface(e.sentence).get(key, key))
        if not said:
            return set()
        asked = [(r, w) for r in sorted(relations) for w in self._asked_forms(r)]
        pairs = [(k, w) for k in sorted(said) for w in sorted(said[k])]
        self._encode([w for _, w in asked + pairs])
        sims = np.stack([self._word_vecs[w] for _, w in asked]) @ np.stack([self._word_vecs[w] for _, w in pairs]).T
        return {(asked[i][0], pairs[j][0]) for i, j in zip(*np.nonzero(sims >= self.soft))}

    def _typed(self, name: str, sentence: str, bridge_types: frozenset[str]) -> frozenset[str]:
        """The nouns of ``bridge_types`` that ``name`` is, by its name, its description or the three words
        before it (``the town of X``)."""
        if not bridge_types:
            return frozenset()
        at = find_name(sentence, name) if sentence else None
        before = " ".join(TOKEN.findall(sentence[: at[0]])[-3:]) if at else ""  # a type word inside a name is none:
        said = f"{before} {inside_names(self.description(name, sentence))}"  # ``Kestrel Lighthouse Society``
        return bridge_types & (relation_keys(said) | frozenset(word_key(w) for w in _heads(name)))

    def read(self, question: str, query: str | None = None) -> tuple[list[Any], list[Any]]:
        """Paths (:class:`~graphhop.graph.TextPath`) and readings for ``question``;
        ``query`` (the unmasked question) names the entities when given."""
        from graphhop.graph import TextPath
        from graphhop.read.text_qa import Reading

        named = self.graph.entities(question)
        entities = named or self.graph.described(question)  # a question naming none
        # ``the engineer behind X``: a bridge type; not when the walk starts at what the noun describes (no name)
        relations, answer_types, bridge_types = question_words(question, entities, self.placed_types and bool(named))
        wanted = relations | bridge_types
        if not entities or not (wanted | answer_types or self.matcher is not None):
            return [], []
        # a claim's masked question (``query`` given: yes/no, counts) asks for the claim's own kind: no climbs
        states = self.walk(entities, relations, answer_types, bridge_types, *((self.type_hops, self.middle_hops)
                                                                              if query is None else (0, 0)),
                           asked=surface_words(question), question=question)
        scores, fits = self._scores(question, states, np.zeros(len(states)), wanted, answer_types)
        if any(st.climbed for st in states):  # a climb only from an end that does not fit the asked type
            keep = [i for i, st in enumerate(states) if not st.climbed
                    or fits.get(st.edges[-1 - st.climbed].target, 0.0) < self.climb_fit]
            states, scores = [states[i] for i in keep], [scores[i] for i in keep]
        walked = [x for st, x in zip(states, scores) if not st.read]  # the matcher's fallback: as if nothing were read
        if self.matcher is not None and (self.match_mode == "always" or max(walked, default=0.0) <= self.threshold
                                         or asks_list(question)):
            states, match = self.matcher.extend(self, question, entities, states, relations, bridge_types)
            scores, fits = self._scores(question, states, match, wanted, answer_types)
            scores = self._clear_winner(states, scores, fits)
        paths, readings = [], []
        for st, score in zip(states, scores):
            support = self.support(st)
            paths.append(TextPath(st.path, score))  # the walked chain; own passages only in the answer's support
            readings.append(Reading(st.entity, score - self.threshold, support, score, st.edges[-1].sentence,
                                    holder=st.edges[-1].source, type_fit=fits[st.entity], hops=len(st.edges)))
        if self.reranker is not None:  # the walk's best chains reordered by the trained chain reranker
            return self.reranker.reorder(question, query, states, paths, readings)
        return paths, readings

    def support(self, st: _State) -> tuple[str, ...]:
        """The passages of ``st``'s walk; with ``own_passages``, also a hop's source's own passage where the hop was
        read elsewhere and that passage names the hop's target too (``Tobiah Quell`` -> ``Magnus Orrel`` read in Orrel's
        passage, ``doctorate ... under Tobiah Quell``; Quell's own says ``Magnus Orrel wrote his doctoral thesis under
        Quell's supervision``): the fact as the source's own passage states it."""
        out = list(st.path)
        if not self.own_passages:
            return st.path
        for edge in st.edges:
            own = self.graph.own(edge.source)[:1]  # ``Wendrell``: the passage ``Wendrell Mine``
            if own and own[0] not in out and not is_number(edge.target) \
                    and any(find_name(s, edge.target) for s in self.graph.sentences(own[0])):
                out.insert(out.index(edge.doc), own[0])
        return tuple(out)

    def _clear_winner(self, states: Sequence[_State], scores: list[float],
                      fits: dict[str, float] | None = None) -> list[float]:
        """When nothing clears the threshold after the matcher, one answer still counts (lifted just over the
        threshold) if it is clear: the best by score + ``clear_type_weight`` x type fit, leading every other
        answer by ``clear_gap`` on the score (the walk and the head agree on it) or on that typed score. So a
        place two hops away does not win a ``who`` question over a person by score alone, and a currency
        trailing a person on score can win a ``what currency`` one (weight 0: session 4's rule)."""
        if self.clear_gap is None or not scores or max(scores) > self.threshold:
            return scores
        best: dict[str, tuple[float, float, int]] = {}  # answer -> (score, typed score, state) of its best state
        for i, (st, score) in enumerate(zip(states, scores)):
            key = fold_name(st.entity)
            if key not in best or score > best[key][0]:
                typed = score + self.clear_type_weight * (fits or {}).get(st.entity, 0.0)
                best[key] = (score, typed, i)
        top = max(best, key=lambda k: (best[k][1], best[k][0]))
        score, typed, at = best[top]
        rivals = [v for k, v in best.items() if k != top]
        if not rivals or score - max(r[0] for r in rivals) >= self.clear_gap \
                or typed - max(r[1] for r in rivals) >= self.clear_gap:
            scores = list(scores)
            scores[at] = self.threshold + 1e-3
        return scores

    def _scores(self, question: str, states: Sequence[_State], match: Any, wanted: frozenset[str],
                answer_types: frozenset[str]) -> tuple[list[float], dict[str, float]]:
        """Each state's score (relation words covered, answer type fit, the matcher's probability, penalties)
        and each answer's type fit."""
        if not states:
            return [], {}
        fits = self._type_fits(question, states, answer_types)
        return [(len(st.covered) / len(wanted) if wanted else 1.0) + self.w_type * fits[st.entity] + self.w_match * m
                - self.hop_penalty * len(st.edges) - self.reuse_penalty * st.reused - self.read_penalty * st.read - st.read_cost
                for st, m in zip(states, match)], fits

#: Comparatives (``taller``, ``deeper``) end in ``-er`` but name no agent: no participle is read for them.
_COMPARATIVES = _MIN | _MAX | _AGE
#: Agent nouns' verbs whose participle is not ``-ed`` (general English; keys as :func:`word_key` cuts them: ``runner``
#: -> ``runn``): no participle is read for them (no ``teached``; the real ``taught`` was measured and lost a question
#: on the selection sets, docs/RESULTS.md "Session 8 (m13)").
_NOT_ED = {"teach", "build", "lead", "hold", "keep", "runn", "sell", "buy", "fight", "find", "bring", "catch", "speak",
           "sing", "swimm", "spinn", "winn", "begin", "draw", "mak", "driv", "rid", "think", "seek"}


def _diverse(ranked: Sequence[_State], beam: int, cap: int | None) -> list[_State]:
    """The first ``beam`` of ``ranked``, at most ``cap`` of them ending at one entity (None: no cap), so chains through
    other bridges are not crowded out by many paths to the same one."""
    if cap is None:
        return list(ranked[:beam])
    out: list[_State] = []
    count: dict[str, int] = {}
    for st in ranked:
        key = fold_name(st.entity)
        if count.get(key, 0) < cap:
            count[key] = count.get(key, 0) + 1
            out.append(st)
            if len(out) == beam:
                break
    return out


def _rank(state: _State) -> tuple[int, int, int, float, int]:
    return (len(state.covered), -state.reused, -state.read, -state.read_cost, -len(state.edges))


class WalkRetriever:
    """The walk reader as a passage retriever: passages ranked by the readings' walks (best first),
    then the hop search's first stage (dense + BM25) for the question to fill ``k``."""

    def __init__(self, search: Any, **options: Any) -> None:
        self.hop_search = search
        self.reader = WalkReader(search, **options)

    def search_one(self, question: str, k: int) -> list[Any]:
        """One ranking (:class:`~graphhop.core.Hit` list)."""
        from graphhop.core import ranked_ids

        paths, readings = self.reader.read(question)  # paths: the walked chains (no own passages), as readings
        walked = [d for _, p in sorted(zip(readings, paths), key=lambda rp: -rp[0].margin) for d in p.ids]
        fill = self.hop_search.first_stage([question], self.hop_search.encode_queries([question]))[0]
        return ranked_ids(walked + [h.id for h in fill], k)

    def rank(self, questions: Sequence[str], k: int = 10) -> list[list[Any]]:
        """One ranking per question."""
        return [self.search_one(q, k) for q in questions]
