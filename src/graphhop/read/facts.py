"""The fact reader: evidence graphs from retrieved facts, and answer-entity selection over them.

Two steps, usable on their own:

:func:`graphhop.read.graphs.build_evidence_graph`
    Retrieved facts -> an :class:`~graphhop.graph.EvidenceGraph`. The question's entities are found
    in its text (longest non-overlapping mention of any entity of the retrieved facts; MetaQA's
    ``[topic]`` brackets are used when present). From each of them, facts that share an entity are
    chained (``Mona Lisa -painted_by- Leonardo``, then ``Leonardo -born_in- Vinci``, ...) up to
    ``max_hops`` facts, never revisiting an entity or a fact. Every chain becomes a root path of
    the graph (chains sharing a prefix share its nodes; an edge that would close a cycle is left
    out, so the graph stays a DAG). Facts no chain reaches are not in the graph.

:class:`FactReader`
    Walks every root path of an evidence graph as an entity walk (start at a question entity in the
    first node's facts, move to the other end of a fact that holds the current entity) and scores
    each walk prefix as a candidate answer path::

        score(walk) = sum over its facts f of (s(question, f) - tau) + sink_bonus * [ends at a sink]

    ``s`` is the scorer's question-fact relevance: by default the cosine of the bi-encoder (the
    bundled MiniLM, no training) between the normalized question and the verbalized fact; with a
    model directory, the sigmoid of a trained cross-encoder (``graphhop train reranker``). A fact
    adds to a walk only if it is more relevant than ``tau``, so the walk stops where the facts stop
    matching the question. Candidates are grouped by *relation path* (start entity and the
    sequence of relations with their directions): the best group's end entities are the answers
    (several for list questions such as MetaQA's), ranked by their walks' scores; the other
    candidates follow. The question's own entities are never answers.

``sink_bonus`` is 0 for graphs built from retrieved facts (their sinks are only where chaining
stopped) and can be raised for graphs whose sinks are answer-bearing by construction (gold graphs,
graph retrievers).
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol, Sequence

import numpy as np

from graphhop.core import Answer, Triple
from graphhop.graph import EvidenceGraph
from graphhop.kb.verbalize import INVERSE_SUFFIX, clean_entity, clean_relation, normalize_question

__all__ = [
    "Step", "Walk", "Candidate", "Reading", "FactScorer", "BiEncoderScorer", "CrossEncoderScorer", "fold",
    "find_entities", "bracket_entities", "fact_text", "answer_type", "question_starts", "walks",
    "FactReader",
]

_BRACKET = re.compile(r"\[([^\]]+)\]")


def fold(text: str) -> str:
    """Lowercase, strip accents, and clean like an entity name (``Alcalá_de`` -> ``alcala de``)."""
    text = unicodedata.normalize("NFKD", clean_entity(text).lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def bracket_entities(question: str) -> list[str]:
    """MetaQA-style topic entities marked ``[like this]`` in the question."""
    return [m.strip() for m in _BRACKET.findall(question) if m.strip()]


def find_entities(question: str, entities: Iterable[str], min_chars: int = 3) -> list[str]:
    """Entities mentioned in ``question``: whole-word, case- and accent-insensitive matches after
    cleaning both sides; longer mentions win over overlapping shorter ones (``Leonardo da Vinci``
    hides ``Vinci``). Returned in order of mention."""
    text = " " + " ".join(re.findall(r"\w+", fold(normalize_question(question)))) + " "
    by_key: dict[str, list[str]] = {}
    for e in entities:
        key = " ".join(re.findall(r"\w+", fold(e)))
        if len(key) >= min_chars:
            by_key.setdefault(key, []).append(e)
    spans: list[tuple[int, int, str]] = []
    for key in sorted(by_key, key=len, reverse=True):
        start = text.find(f" {key} ")
        while start >= 0:
            a, z = start + 1, start + 1 + len(key)
            if all(z <= s or a >= t for s, t, _ in spans):
                spans.append((a, z, key))
            start = text.find(f" {key} ", start + 1)
    spans.sort()
    out: list[str] = []
    for _, _, key in spans:
        for e in by_key[key]:
            if e not in out:
                out.append(e)
    return out


def question_starts(question: str, entities: set[str], topic_entities: Sequence[str] | None = None) -> list[str]:
    """The question's entities among ``entities``: the given topic entities, else ``[bracketed]``
    mentions, else the longest non-overlapping mentions (:func:`find_entities`)."""
    if topic_entities:
        found = [e for e in topic_entities if e in entities]
        if found:
            return found
    marked = [e for e in bracket_entities(question) if e in entities]
    return marked or find_entities(question, entities)


def fact_text(triple: Sequence[str]) -> str:
    """A fact as the bi-encoder reads it: ``head relation tail`` with clean names (inverse read forward)."""
    h, r, t = triple
    if r.endswith(INVERSE_SUFFIX):
        h, t = t, h
    return f"{clean_entity(h)} {clean_relation(r)} {clean_entity(t)}"


_TYPE_STOP = set("""is was are were be been do does did has have had can could will would should the a an of in on at
to for from by with that which whose who whom where when as and or not used located born made there this these those its
it he she they his her their""".split())


def answer_type(question: str) -> str | None:
    """The expected answer type named by the question's wh-phrase, if any: ``In which country was
    ...`` -> ``country``, ``What is the official language of ...`` -> ``official language``,
    ``who`` -> ``person``, ``when`` -> ``year``, ``where`` -> ``place``; None otherwise."""
    words = re.findall(r"[a-z]+", normalize_question(question).lower())
    for i, w in enumerate(words):
        if w in ("which", "what"):
            j = i + 1
            while j < len(words) and words[j] in _TYPE_STOP:
                j += 1
            phrase = []
            while j < len(words) and words[j] not in _TYPE_STOP and len(phrase) < 2:
                phrase.append(words[j])
                j += 1
            return " ".join(phrase) or None
        if w == "who" or w == "whom":
            return "person"
        if w == "when":
            return "year"
        if w == "where":
            return "place"
    return None


# ---------------------------------------------------------------------- walks over a graph
@dataclass(frozen=True, slots=True)
class Step:
    """One fact of a walk: its evidence node, the triple, and whether it was read head -> tail."""

    node: str
    fact: Triple
    forward: bool

    @property
    def target(self) -> str:
        """The entity the step arrives at."""
        return self.fact[2] if self.forward else self.fact[0]

    @property
    def signature(self) -> str:
        """The relation with its direction (``born_in`` or ``^born_in``)."""
        return self.fact[1] if self.forward else "^" + self.fact[1]


@dataclass(frozen=True, slots=True)
class Walk:
    """An entity walk along a root path: from ``start`` through ``steps``."""

    start: str
    steps: tuple[Step, ...]

    @property
    def end(self) -> str:
        return self.steps[-1].target if self.steps else self.start

    @property
    def entities(self) -> list[str]:
        return [self.start] + [s.target for s in self.steps]

    @property
    def relation_path(self) -> tuple[str, ...]:
        return (self.start, *(s.signature for s in self.steps))

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(s.node for s in self.steps)


def walks(evidence: EvidenceGraph, starts: Sequence[str], limit: int = 20_000, loops: bool = False) -> list[Walk]:
    """Every entity walk along root paths of ``evidence`` that starts at an entity of ``starts``
    (all prefixes included, at most ``limit``). A node with several facts holding the current
    entity branches. A walk never uses a node twice; with ``loops`` it may revisit an entity
    (PathQuestion's paths do: ``a -children- b -parents- a -nationality- x``)."""
    g = evidence.g
    start_set = set(starts)
    out: list[Walk] = []
    stack: list[tuple[str, Walk, frozenset[str]]] = []
    for node in g.successors(evidence.root):
        for f in g.nodes[node].get("facts", []):
            h, r, t = f
            for fwd, ent in ((True, h), (False, t)):
                if ent in start_set and h != t:
                    step = Step(node, (h, r, t), fwd)
                    w = Walk(ent, (step,))
                    stack.append((node, w, frozenset({ent, step.target})))
    seen: set[tuple[str, tuple[Step, ...]]] = set()
    while stack and len(out) < limit:
        node, walk, visited = stack.pop()
        key = (walk.start, walk.steps)
        if key in seen:
            continue
        seen.add(key)
        out.append(walk)
        cur = walk.end
        used_nodes = set(walk.nodes)
        for nxt in g.successors(node):
            if nxt in used_nodes:
                continue
            for f in g.nodes[nxt].get("facts", []):
                h, r, t = f
                for fwd, ent, other in ((True, h, t), (False, t, h)):
                    if ent == cur and (loops or other not in visited):
                        step = Step(nxt, (h, r, t), fwd)
                        stack.append((nxt, Walk(walk.start, walk.steps + (step,)), visited | {other}))
    return out


# ---------------------------------------------------------------------- scoring
class FactScorer(Protocol):
    """Question-fact relevance in [0, 1]-ish, higher is better."""

    def score(self, question: str, texts: Sequence[str]) -> list[float]: ...


class BiEncoderScorer:
    """Cosine between the normalized question and each text, by a sentence-transformers bi-encoder
    (default: the bundled MiniLM; no training needed). Text vectors are cached."""

    tau = 0.3

    def __init__(self, model: str | None = None, encoder: Any = None) -> None:
        if encoder is None:
            from graphhop.models.encoder import load_encoder

            encoder = load_encoder(model)
        self.encoder = encoder
        self._cache: dict[str, np.ndarray] = {}

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vecs = self.encoder.encode(missing, batch_size=64, convert_to_numpy=True, normalize_embeddings=True)
            for t, v in zip(missing, vecs):
                self._cache[t] = np.asarray(v, dtype=np.float32)
            if len(self._cache) > 200_000:
                self._cache.clear()
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 1), np.float32)

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        q = self.encoder.encode([normalize_question(question)], convert_to_numpy=True, normalize_embeddings=True)[0]
        return [float(x) for x in self._vectors(texts) @ q]


class CrossEncoderScorer:
    """Sigmoid of a trained cross-encoder's logit on ``(question, fact text)`` (a model directory
    from ``graphhop train reranker``; an untrained head would score at random)."""

    tau = 0.5

    def __init__(self, model_dir: str, batch_size: int = 64, max_length: int = 96) -> None:
        from graphhop.models.cross_encoder import load_sequence_classifier

        self.model, self.tokenizer = load_sequence_classifier(model_dir)
        self.batch_size = batch_size
        self.max_length = max_length

    def score(self, question: str, texts: Sequence[str]) -> list[float]:
        from graphhop.models.cross_encoder import score_pairs

        if not texts:
            return []
        q = normalize_question(question)
        logits = score_pairs(self.model, self.tokenizer, [q] * len(texts), list(texts), self.batch_size, self.max_length)
        return [1.0 / (1.0 + math.exp(-x)) for x in logits]


# ---------------------------------------------------------------------- the reader
@dataclass
class Candidate:
    """A candidate answer entity, its best walk score, and the walks that reach it."""

    entity: str
    score: float
    walks: list[Walk] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The entity name as the KB writes it (so EM compares with the dataset's answers)."""
        return self.entity


@dataclass
class Reading:
    """What the fact reader concluded: the answers of the best relation path (best first), every
    candidate ranked, the question entities it started from."""

    answers: list[Candidate]
    candidates: list[Candidate]
    starts: list[str]
    best_path: tuple[str, ...] = ()
    scored: list[tuple[Walk, float]] = field(default_factory=list)

    @property
    def top(self) -> Candidate | None:
        return self.answers[0] if self.answers else None

    def support(self, limit: int = 10) -> list[tuple[str, ...]]:
        """Node chains of the answers' best walks (for the support graph)."""
        chains: list[tuple[str, ...]] = []
        for c in self.answers:
            for w in c.walks[:1]:
                if w.nodes not in chains:
                    chains.append(w.nodes)
            if len(chains) >= limit:
                break
        return chains


class FactReader:
    """Selects answer entities from an evidence graph of facts; implements :class:`graphhop.core.Reader`.

    ``scorer``: a :class:`FactScorer` (default :class:`BiEncoderScorer`). ``mode``: ``path``
    scores a walk by the relevance of its whole text (its facts joined, ``Mona Lisa painted by
    Leonardo da Vinci; Leonardo da Vinci born in Vinci``) minus ``length_penalty`` per extra fact;
    ``facts`` sums ``relevance(fact) - tau`` over its facts. In ``path`` mode, when the question
    names an answer type (:func:`answer_type`: ``which country``), ``type_weight`` times the
    bi-encoder cosine between the type and the end entity's name is added (``Italy`` fits
    ``country``, ``Vinci`` does not). ``sink_bonus`` is added to walks
    ending at a sink; ``max_hops`` caps walk length and ``min_hops`` sets the shortest walk whose end
    may be an answer (a dataset of fixed hop count, as PathQuestion's, sets both); with
    ``join_starts`` (conjunctions, WC-C) a candidate reached from several question entities adds
    the best score of its walks from each other start (when positive); with ``loops`` walks may
    revisit entities and a walk of two or more facts may end at its own start (PathQuestion's
    looping paths); ``max_answers`` the answers kept.
    """

    def __init__(
        self,
        scorer: FactScorer | None = None,
        mode: str = "path",
        tau: float | None = None,
        length_penalty: float = 0.0,
        type_weight: float = 0.5,
        sink_bonus: float = 0.0,
        max_hops: int = 3,
        min_hops: int = 1,
        join_starts: bool = False,
        loops: bool = False,
        max_answers: int = 100,
        max_walks: int = 5000,
    ) -> None:
        if mode not in ("path", "relations", "facts"):
            raise ValueError(f"unknown scoring mode {mode!r}; choose path, relations or facts")
        self.scorer = scorer or BiEncoderScorer()
        self.mode = mode
        self.tau = float(tau if tau is not None else getattr(self.scorer, "tau", 0.3))
        self.length_penalty = length_penalty
        self.type_weight = type_weight
        self.sink_bonus = sink_bonus
        self.max_hops = max_hops
        self.min_hops = min_hops
        self.join_starts = join_starts
        self.loops = loops
        self.max_answers = max_answers
        self.max_walks = max_walks

    @classmethod
    def from_model(cls, model_dir: str | None = None, **kwargs: Any) -> "FactReader":
        """The default bi-encoder reader, or one on a trained cross-encoder directory."""
        return cls(CrossEncoderScorer(model_dir) if model_dir else BiEncoderScorer(), **kwargs)

    def starts(self, question: str, evidence: EvidenceGraph, topic_entities: Sequence[str] | None = None) -> list[str]:
        """The question entities walks start from (brackets, else mentions among the graph's entities)."""
        ents = {e for n in evidence.evidence_ids for f in evidence.g.nodes[n].get("facts", []) for e in (f[0], f[2])}
        return question_starts(question, ents, topic_entities)

    def _walk_scores(self, question: str, ws: Sequence[Walk]) -> list[float]:
        if self.mode == "facts":
            texts = sorted({fact_text(s.fact) for w in ws for s in w.steps})
            rel = dict(zip(texts, self.scorer.score(question, texts)))
            return [sum(rel[fact_text(s.fact)] - self.tau for s in w.steps) for w in ws]
        if self.mode == "relations":
            texts = [" ".join([clean_entity(w.start)] + [clean_relation(s.fact[1]) for s in w.steps]) for w in ws]
        else:
            texts = ["; ".join(fact_text(s.fact) for s in w.steps) for w in ws]
        uniq = list(dict.fromkeys(texts))
        rel = dict(zip(uniq, self.scorer.score(question, uniq)))
        scores = [rel[t] - self.length_penalty * (len(w.steps) - 1) for t, w in zip(texts, ws)]
        wanted = answer_type(question) if self.type_weight else None
        if wanted:
            ends = list(dict.fromkeys(clean_entity(w.end) for w in ws))
            fit = dict(zip(ends, self._type_fit(wanted, ends)))
            scores = [s + self.type_weight * fit[clean_entity(w.end)] for s, w in zip(scores, ws)]
        return scores

    def _type_fit(self, wanted: str, names: Sequence[str]) -> list[float]:
        """Cosine between the expected answer type and each entity name (bi-encoder; 0 without one)."""
        scorer = self.scorer if isinstance(self.scorer, BiEncoderScorer) else self._type_scorer()
        return scorer.score(wanted, names) if scorer is not None else [0.0] * len(names)

    def _type_scorer(self) -> "BiEncoderScorer | None":
        if not hasattr(self, "_types"):
            self._types = BiEncoderScorer()
        return self._types

    def read(
        self,
        question: str,
        evidence: EvidenceGraph,
        topic_entities: Sequence[str] | None = None,
        exclude: Sequence[str] = (),
        scoring_question: str | None = None,
        starts: Sequence[str] | None = None,
    ) -> Reading:
        """Score every walk of ``evidence`` and group candidates by relation path.

        ``exclude``: entities that may not be answers (besides the start entities);
        ``scoring_question``: the text walks are scored against (default ``question``; the
        boolean operation masks the claimed value); ``starts``: the walks' start entities.
        A walk may not pass through another start entity (the walk from there is its own).
        """
        starts = list(starts) if starts is not None else self.starts(question, evidence, topic_entities)
        start_set = set(starts)
        banned = start_set | set(exclude)
        def allowed(w: Walk) -> bool:
            if len(w.steps) > self.max_hops:
                return False
            if not self.loops:
                return w.end not in banned and not (set(w.entities[1:]) & start_set)
            others = start_set - {w.start}
            if w.end in set(exclude) | others or (w.end == w.start and len(w.steps) < 2):
                return False
            return not (set(w.entities[1:]) & others)

        all_walks = [w for w in walks(evidence, starts, limit=self.max_walks * 4, loops=self.loops) if allowed(w)][: self.max_walks]
        if not all_walks:
            return Reading([], [], starts)
        scores = self._walk_scores(scoring_question or question, all_walks)
        sinks = set(evidence.sinks())
        if self.sink_bonus:
            scores = [s + self.sink_bonus * (w.steps[-1].node in sinks) for w, s in zip(all_walks, scores)]
        if self.join_starts and len(start_set) > 1:
            by_end: dict[str, dict[str, float]] = {}
            for w, sc in zip(all_walks, scores):
                best = by_end.setdefault(w.end, {})
                best[w.start] = max(sc, best.get(w.start, float("-inf")))
            scores = [sc + sum(max(0.0, v) for st, v in by_end[w.end].items() if st != w.start)
                      for w, sc in zip(all_walks, scores)]
        groups: dict[tuple[str, ...], dict[str, Candidate]] = {}
        for w, score in zip(all_walks, scores):
            if len(w.steps) < self.min_hops:
                continue
            group = groups.setdefault(w.relation_path, {})
            cand = group.get(w.end)
            if cand is None:
                group[w.end] = Candidate(w.end, score, [w])
            else:
                cand.walks.append(w)
                if score > cand.score:
                    cand.score = score
                    cand.walks.insert(0, cand.walks.pop())
        if not groups:
            return Reading([], [], starts, (), list(zip(all_walks, scores)))
        ranked_groups = sorted(groups.items(), key=lambda kv: (-max(c.score for c in kv[1].values()), len(kv[0]), kv[0]))
        best_path, best = ranked_groups[0]
        answers = sorted(best.values(), key=lambda c: (-c.score, c.entity))[: self.max_answers]
        merged: dict[str, Candidate] = {}
        for _, group in ranked_groups:
            for c in group.values():
                if c.entity not in merged or c.score > merged[c.entity].score:
                    merged[c.entity] = c
        candidates = sorted(merged.values(), key=lambda c: (-c.score, c.entity))
        return Reading(answers, candidates, starts, best_path, list(zip(all_walks, scores)))

    def answer(self, question: str, evidence: EvidenceGraph) -> Answer:
        """The top answer entity (KB name), its walk score, and the nodes of its walk."""
        reading = self.read(question, evidence)
        top = reading.top
        if top is None:
            return Answer("", float("-inf"), ())
        return Answer(top.text, top.score, top.walks[0].nodes)
