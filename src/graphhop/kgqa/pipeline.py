"""Trained multi-hop KGQA over a whole KB: link -> expand -> score relation paths -> operate -> support.

:class:`KGQA` answers a question over a :class:`~graphhop.kb.store.KGStore`:

1. the question type (:func:`graphhop.read.ops.detect_qtype`: query, count, boolean, comparison,
   relation) and the entity mentions (:class:`~graphhop.kgqa.link.EntityLinker`);
2. for a topic mention, relation paths of 1..``max_hops`` steps are expanded over the whole KB and
   scored by the trained :class:`~graphhop.kgqa.scorer.PathScorer` against the question with the
   mention masked (beam ``beam`` per hop); the scores are turned into probabilities by a softmax
   over every path scored for that mention;
3. the question type's operation (:mod:`graphhop.kgqa.ops`) turns the best path(s) into the answer;
4. the support is exactly the KB facts on the chains from the topic entity to the answer(s) along
   the path(s) used (:func:`graphhop.kgqa.paths.chains`); when the best path's probability is
   under the shipped threshold (chosen on the selection split), the answer is withheld: "no
   supported answer", with the best partial chain as the support.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from graphhop.graph import EvidenceGraph
from graphhop.kb.store import KGStore
from graphhop.kb.verbalize import Verbalizer
from graphhop.kgqa import DEFAULT_HOPS
from graphhop.kgqa.abstain import Confidence, inputs as confidence_inputs, withhold
from graphhop.kgqa.end_type import EndTyper
from graphhop.kgqa.link import EntityLinker, Mention, masked
from graphhop.kgqa.paths import RelPath, chains, expand, path_signature
from graphhop.kgqa.scorer import MAX_HOPS, PathScorer, RelationWords
from graphhop.kgqa.thresholds import threshold_for
from graphhop.read.ops import parse_number

__all__ = ["Reading", "KGQA", "expected_kind", "walks_back", "TOPIC_ANSWERS", "ANSWER_ORDERS", "CONFIDENCES", "WALK_BACKS"]

_VERBALIZE = Verbalizer()
_NUMBER_Q = re.compile(r"^(?:when|(?:in )?(?:what|which) year|how (?:old|much|long|tall|big|large|far|high|deep|wide|heavy|fast|hot|cold|low|short|small|early|late))\b")
_ENTITY_Q = re.compile(r"^(?:who|whom|whose|where)\b")


def expected_kind(text: str) -> str | None:
    """``number`` for when / what year / how old questions, ``entity`` for who / where, else None."""
    text = text.strip().lower()
    if _NUMBER_Q.match(text):
        return "number"
    if _ENTITY_Q.match(text):
        return "entity"
    return None


#: When a path that reaches only the topic entity may answer with it: ``never``, ``always``, or unless
#: it walks a relation straight back (``no-walk-back``, the default). A path that reaches the topic
#: and other entities answers with the others first in every case (:meth:`KGQA.answers`).
TOPIC_ANSWERS = ("no-walk-back", "never", "always")

#: How a path's answers are ordered after "reached by more chains first": ``degree`` (the entity with
#: more KB facts first, a popularity prior: of two films merged under one name, the better-known one's
#: year or cast; the default) or ``name`` (alphabetical). Chosen on selection data (docs/RESULTS.md, issue 12).
ANSWER_ORDERS = ("degree", "name")

#: What the threshold of a plain (or count) question is compared with: ``answer``, the probability of
#: every path reaching the same end entities as the best one (the default), or ``path``, the best
#: path's own. Chosen on selection data (docs/RESULTS.md, issue 12).
CONFIDENCES = ("answer", "path")

#: Where a relation walked straight back may lead (``X directed_by D``, then ``^directed_by``): to the
#: ``others`` that share it, never back to what it came from (the default: "films that share a director
#: with X" are not X, so a third hop does not answer with X's own year or cast; :func:`graphhop.kgqa.paths.expand`),
#: or ``any`` (before). Chosen on selection data (docs/RESULTS.md, issue 12).
WALK_BACKS = ("others", "any")

#: The window of named-relation coverage (:func:`graphhop.kgqa.cover.covering`): a path whose probability
#: is at least this share of the best path's may win by naming more of the question's relation words.
#: Chosen on the selection KBs and the selection part of the training questions (docs/RESULTS.md, issue 12;
#: 1e-5 until session 5, when kg_railways' ``trains run on lines operated by X`` needed 2e-7).
COVER_RATIO = 1e-7


def walks_back(steps: Sequence[tuple[int, bool]]) -> bool:
    """Whether a relation path takes a relation and then the same relation straight back (``X r Y``,
    ``Y r^-1 X``): such a path returns to where it started for every fact, so it never answers with
    the topic entity. (Chosen over "never the topic" and "always" on the selection part of the
    training questions; docs/RESULTS.md, issue 12.)"""
    return any(r1 == r2 and f1 != f2 for (r1, f1), (r2, f2) in zip(steps, steps[1:]))


@dataclass
class Reading:
    """Relation paths from one topic mention, best first, with their softmax probabilities."""

    mention: Mention
    text: str
    paths: list[RelPath]
    probs: np.ndarray = field(default_factory=lambda: np.zeros(0))

    @property
    def best(self) -> RelPath | None:
        return self.paths[0] if self.paths else None

    @property
    def prob(self) -> float:
        return float(self.probs[0]) if len(self.probs) else 0.0


class KGQA:
    """The ``kgqa`` pipeline: answers with the chain that supports them (see the module docstring)."""

    method = "kgqa"

    def __init__(self, store: KGStore, scorer: PathScorer | None = None, max_hops: int = DEFAULT_HOPS, beam: int = 10,
                 threshold: float | None = None, max_support: int = 50, topic_answers: str = "no-walk-back",
                 end_typing: bool = True, answer_order: str = "degree", confidence: str = "answer",
                 walk_back: str = "others",
                 cover: float = COVER_RATIO, type_head: str = "off", abstain: bool | str = True,
                 rerank: bool | str = False, rerank_k: int | None = None, rerank_w: float | None = None,
                 type_veto: bool = True, rerank_beam: int = 0, rerank_beam_w: float | None = None,
                 rerank_combine: bool | str = False, cover_class: bool = True,
                 level_climb: bool = False, place_veto: bool = False) -> None:
        if not 1 <= max_hops <= MAX_HOPS:
            raise ValueError(f"max_hops must be in 1..{MAX_HOPS}")
        self.store = store
        self.scorer = scorer or PathScorer.load()
        self.linker = EntityLinker(store.entities)
        self.max_hops = max_hops
        self.beam = beam
        self.threshold = float(self.scorer.config.get("threshold", 0.0) if threshold is None else threshold)
        self._fixed_threshold = threshold is not None  # else the head's own, per hop count where it has them
        self.max_support = max_support
        if topic_answers not in TOPIC_ANSWERS:
            raise ValueError(f"topic_answers must be one of {', '.join(TOPIC_ANSWERS)} (got {topic_answers!r})")
        self.topic_answers = topic_answers
        #: answer typing by the asked noun (:mod:`graphhop.kgqa.end_type`); None turns it off
        self.typer = EndTyper(self.scorer, store, type_head=type_head) if end_typing else None
        if answer_order not in ANSWER_ORDERS:
            raise ValueError(f"answer_order must be one of {', '.join(ANSWER_ORDERS)} (got {answer_order!r})")
        self.answer_order = answer_order
        if confidence not in CONFIDENCES:
            raise ValueError(f"confidence must be one of {', '.join(CONFIDENCES)} (got {confidence!r})")
        self.confidence = confidence
        if walk_back not in WALK_BACKS:
            raise ValueError(f"walk_back must be one of {', '.join(WALK_BACKS)} (got {walk_back!r})")
        self.walk_back = walk_back
        #: named-relation coverage (:func:`graphhop.kgqa.cover.covering`): paths within ``cover`` x the best
        #: path's probability that use more of the relations the question names win; 0 turns it off
        self.cover = float(cover)
        #: a plural class noun named only through an agent noun (``bakeries`` ~ ``head baker``) forces no coverage move
        self.cover_class = bool(cover_class)
        self._relation_words: RelationWords | None = None
        #: the learned confidence (:mod:`graphhop.kgqa.abstain`): True the shipped model, a path another, False off
        self.abstainer = None if abstain is False else Confidence.load(None if abstain is True else abstain)
        self._qcache: dict[str, np.ndarray] = {}
        #: the veto by answer type (:mod:`graphhop.kgqa.veto`): a "who" answered with a book is withheld
        self.type_veto = bool(type_veto)
        #: a level noun's containment climb is not refused by the scorer's fourth-hop gap (:func:`graphhop.kgqa.levels.level_climb`)
        self.level_climb = bool(level_climb)
        #: "who" answered only by places is vetoed (:class:`graphhop.kgqa.levels.Places`)
        self.place_veto = bool(place_veto)
        #: the chain reranker (:mod:`graphhop.kgqa.rerank`): True the shipped one, a path another, False off
        self.reranker = None
        if rerank is not False:
            from graphhop.kgqa.rerank import ChainReranker

            self.reranker = ChainReranker.load(None if rerank is True else rerank, rerank_k, rerank_w)
        #: a learned final order of the reranker's k chains (:mod:`graphhop.kgqa.combine`): True the file beside the
        #: reranker's weights, a path another, False off (head score + w x logit)
        self.combiner = self._load_combiner(rerank, rerank_combine)
        #: the reranker inside the beam: each hop's best ``rerank_beam`` new paths reordered by head + w x logit
        #: before the beam is cut (0: off; ``rerank_beam_w`` None: the reranker's w)
        self.rerank_beam, self.rerank_beam_w = int(rerank_beam), rerank_beam_w

    def threshold_for(self, path: RelPath | None) -> float:
        """The threshold a probability is judged by: the given one, else the head's for ``path``'s hop count
        (callers pass the scorer's own best path, whose probability is judged, not the path a rule moved to)."""
        if self._fixed_threshold or path is None:
            return self.threshold
        return threshold_for(self.scorer.config, len(path.steps))

    @classmethod
    def from_index(cls, index: Any, weights: str | None = None, **options: Any) -> "KGQA":
        """Over the facts of a :class:`~graphhop.index.directory.KnowledgeIndex`."""
        return cls(KGStore.from_index(index), PathScorer.load(weights), **options)

    @property
    def relation_words(self) -> RelationWords:
        """The KB's relation-name words (:class:`~graphhop.kgqa.scorer.RelationWords`), built once."""
        if self._relation_words is None:
            self._relation_words = RelationWords(self.store.relations)
        return self._relation_words

    # ------------------------------------------------------------------ reading
    def question_vector(self, text: str) -> np.ndarray:
        vec = self._qcache.get(text)
        if vec is None:
            if len(self._qcache) > 10_000:
                self._qcache.clear()
            vec = self._qcache[text] = self.scorer.encode([text])[0]
        return vec

    def read(self, question: str, mention: Mention, mask: Sequence[Mention] | None = None,
             max_hops: int | None = None, text: str | None = None, typed: bool = True) -> Reading:
        """Score relation paths from ``mention`` against ``question`` with ``mask`` (default: the
        mention) replaced by ``X`` (or against ``text``, already masked). Paths that only return
        to the topic are dropped as :data:`TOPIC_ANSWERS` says (default ``no-walk-back``: those that walk a
        relation straight back, :func:`walks_back`; other loops — ``X tracks X``, the child of X's parent —
        may answer with the topic); with ``typed``, so are paths whose ends do not fit the wh-word
        (:func:`expected_kind`), when some do."""
        if text is None:
            text = masked(question, list(mask) if mask is not None else [mention])
        q = self.question_vector(text)
        paths = expand(self.store, mention.entities, lambda ps: self.scorer.score_paths(q, self.store, ps, text),
                       max_hops=max_hops or self.max_hops, beam=self.beam, back_to_start=self.walk_back == "any",
                       also=self._covering_beam(text), reorder=self._reranked_beam(text))
        topic = set(mention.entities)
        if self.topic_answers != "always":
            paths = [p for p in paths if not set(p.ends.tolist()) <= topic
                     or (self.topic_answers == "no-walk-back" and not walks_back(p.steps))]
        kind = expected_kind(text) if typed else None
        if kind is not None:
            typed = [p for p in paths if self.is_numeric(p) == (kind == "number")]
            paths = typed or paths
        paths.sort(key=lambda p: (-p.score, len(p.steps), path_signature(self.store, p.steps)))
        if self.reranker is not None:
            paths = self.reranker.reorder(text, self.store, paths, self._combine(text))
        if not paths:
            return Reading(mention, text, [])
        scores = np.asarray([p.score for p in paths], dtype=np.float64)
        probs = np.exp(scores - scores.max())
        return Reading(mention, text, paths, probs / probs.sum())

    @staticmethod
    def _load_combiner(rerank: bool | str, combine: bool | str) -> Any:
        """The :class:`~graphhop.kgqa.combine.ChainCombiner` of ``combine`` (True: ``combine.json`` beside the
        reranker's weights), or None when it or the reranker is off."""
        if combine is False or rerank is False:
            return None
        from graphhop.kgqa.combine import COMBINE_FILE, ChainCombiner
        from graphhop.kgqa.rerank import rerank_folder

        return ChainCombiner.load(rerank_folder(None if rerank is True else rerank) / COMBINE_FILE
                                  if combine is True else combine)

    def _combine(self, text: str) -> Any:
        """The combiner's scoring of a reading's best paths for :meth:`ChainReranker.reorder
        <graphhop.kgqa.rerank.ChainReranker.reorder>`, or None (head score + w x logit)."""
        if self.combiner is None:
            return None
        from graphhop.kgqa.combine import chain_features

        return lambda paths, z: self.combiner.scores(chain_features(self, text, paths, z))

    def _reranked_beam(self, text: str) -> Any:
        """The in-beam reorder of :func:`~graphhop.kgqa.paths.expand` (:meth:`ChainReranker.reorder_beam
        <graphhop.kgqa.rerank.ChainReranker.reorder_beam>`), or None when the reranker or ``rerank_beam`` is off."""
        if self.reranker is None or self.rerank_beam <= 0:
            return None
        reranker, m, w = self.reranker, self.rerank_beam, self.rerank_beam_w
        return lambda new: reranker.reorder_beam(text, self.store, new, m, w)

    def _covering_beam(self, text: str, extra: int = 2) -> Any:
        """Beyond the beam, the ``extra`` best-scored paths of a hop that use as many of the relations the
        question names as the best path in the beam, or more (so a 4-hop chain that names every asked
        relation is still grown when shortcuts fill the beam); None when coverage is off or nothing is named."""
        if self.cover <= 0:
            return None
        from graphhop.kgqa.cover import named_relations

        asked = named_relations(self.relation_words, text)[0]
        if not asked:
            return None

        def also(new: list[RelPath]) -> list[RelPath]:
            most = max((self.relation_words.covered(asked, p.steps) for p in new[: self.beam]), default=0)
            return [p for p in new[self.beam :] if self.relation_words.covered(asked, p.steps) >= max(most, 1)][:extra]
        return also

    def is_numeric(self, path: RelPath, sample: int = 20) -> bool:
        """Whether the path ends at numbers (years, counts): every one of its first ``sample`` ends."""
        ends = path.ends[:sample].tolist()
        return bool(ends) and all(parse_number(self.store.entities[e]) is not None for e in ends)

    def is_value(self, path: RelPath, sample: int = 20) -> bool:
        """Whether the path ends at values: numbers (:meth:`is_numeric`) none of which is the subject of a fact
        (``1890``, a birth year; not the event ``2024 Grand Loop, Stage 3`` nor a track named ``2001``, things of
        the KB with facts of their own)."""
        return self.is_numeric(path, sample) and not np.isin(path.ends[:sample], self.store.heads).any()

    def answers(self, path: RelPath, exclude: Sequence[int] = ()) -> list[int]:
        """The path's end entities minus ``exclude`` (unless nothing else is left), most-reached first,
        then as :data:`ANSWER_ORDERS` says (``answer_order``), then by name."""
        rel, fwd = path.steps[-1]
        _, reached = self.store.step(path.layers[-2], rel, fwd)
        ids, counts = np.unique(reached, return_counts=True)
        if path.extra.get("narrowed"):  # answer typing kept only the ends of the asked type (end_type._narrowed)
            inside = np.isin(ids, path.layers[-1])
            ids, counts = ids[inside], counts[inside]
        names, by_degree = self.store.entities, self.answer_order == "degree"
        order = sorted(zip(ids.tolist(), counts.tolist()),
                       key=lambda ic: (-ic[1], -self.store.degree(ic[0]) if by_degree else 0, names[ic[0]]))
        out = [i for i, _ in order if i not in set(exclude)]
        return out or [i for i, _ in order]

    def support(self, path: RelPath, answers: Sequence[int], limit: int | None = None) -> list[list[int]]:
        """Edge chains from the topic to each of ``answers`` along ``path`` (at most ``limit`` edges)."""
        limit = limit or self.max_support
        out: list[list[int]] = []
        used: set[int] = set()
        for a in answers:
            for chain in chains(self.store, path, a, limit=20):
                if len(used | set(chain)) > limit and out:
                    return out
                out.append(chain)
                used.update(chain)
        return out

    # ------------------------------------------------------------------ output
    def fact_id(self, edge: int) -> str:
        """The id of the stored fact behind an edge (its first stored copy)."""
        return self.store.fact_ids[edge][0]

    def graph(self, question: str, edge_chains: Sequence[Sequence[int]]) -> EvidenceGraph:
        """An evidence graph of edge chains (nodes = fact ids, texts = verbalized facts)."""
        from graphhop.core import Fact

        evidence: dict[str, dict[str, Any]] = {}
        id_chains = []
        for chain in edge_chains:
            ids = []
            for e in chain:
                fid = self.fact_id(e)
                h, r, t = self.store.raw[e][0]
                evidence[fid] = {"text": _VERBALIZE(Fact(h, r, t)), "facts": [[h, r, t]]}
                ids.append(fid)
            id_chains.append(ids)
        return EvidenceGraph.from_chains(question, id_chains, evidence)

    def describe(self, reading: Reading, path: RelPath | None = None) -> dict[str, Any]:
        """Trace entry of a reading: topic, masked question, the path and its probability."""
        path = path or reading.best
        if path is None:
            return {"topic": reading.mention.text, "question": reading.text, "relation_path": []}
        i = reading.paths.index(path)
        return {"topic": [self.store.entities[e] for e in reading.mention.entities[:3]], "question": reading.text,
                "relation_path": list(path_signature(self.store, path.steps)), "prob": round(float(reading.probs[i]), 4),
                "score": round(path.score, 4)}

    def ask(self, question: str, qtype: str | None = None) -> dict[str, Any]:
        """Answer ``question``; returns the ``ask`` result fields (see :mod:`graphhop.kgqa.ops`)."""
        from graphhop.kgqa import ops
        from graphhop.read.ops import QTYPES, detect_qtype

        t0 = time.perf_counter()
        kind = qtype or detect_qtype(question)
        if kind not in QTYPES:
            raise ValueError(f"unknown question type {kind!r}; choose one of {', '.join(QTYPES)}")
        mentions = self.linker.link(question)
        t1 = time.perf_counter()
        out = ops.OPERATIONS[kind](self, question, mentions)
        out["confidence_inputs"] = raw = confidence_inputs(out, kind, mentions, self)
        out = withhold(out, raw, self.abstainer)
        t2 = time.perf_counter()
        support_chains = out.pop("chains")
        out["support"] = list(dict.fromkeys(self.fact_id(e) for c in support_chains for e in c))
        out["support_graph"] = self.graph(question, support_chains)
        out["graph"] = self.graph(question, list(support_chains) + out.pop("alternatives", []))
        out.update(question=question, method=self.method, qtype=kind)
        out["trace"]["mentions"] = [m.text for m in mentions]
        out["timings"] = {"link_s": t1 - t0, "read_s": t2 - t1, "total_s": time.perf_counter() - t0}
        return out
