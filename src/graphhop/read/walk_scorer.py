"""The trained relation matcher of the walk reader: the shipped KGQA path scorer read over sentence edges.

A walk over text is a chain of *sentence edges* (:class:`graphhop.read.walk.Edge`), each labelled with the
words written between two mentions (``is a 1994 drama film directed by``, ``he trained under``). The KGQA
head (:mod:`graphhop.kgqa.scorer`, trained on relation-name chains of seven KBs and MetaQA; the walk
reader's own copy is ``graphhop/weights/walk``, so a KGQA retrain does not move it) scores a question
against a chain of relation *names* by their MiniLM vectors, so it reads an edge label the way it reads a KB relation name: ``taught`` meets ``trained under`` and
``cross`` meets ``over`` by what was learned on paraphrased KB questions, not by a word list. The answer
type signature of a chain's end entity is the labels of the edges around it (as a KB entity's is the
relations around it).

:class:`ChainScorer` scores chains for one question (topic entities masked as ``x``, as the head was
trained), and :meth:`ChainScorer.beam` walks the sentence graph with the head alone (beam per depth, no
word has to match), which lets a walk pass an entity the question never names (``the province where
the Harl Bridge stands``: bridge -> town -> province). Nothing here was fitted on text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from graphhop.kb.names import fold_name
from graphhop.read.numbers import is_number

__all__ = ["ChainScorer", "QuestionContext", "answer_kind_ok", "mask_entities"]

#: Questions asking for a number (``how many``, ``what year``, ``when``, ``how long``); else a name is asked.
_WANTS_NUMBER = re.compile(r"^\s*(?:how (?:many|much|long|old|tall|high|far)|when)\b|\b(?:what|which) (?:year|date|number)\b"
                           r"|\bin what year\b", re.I)


def answer_kind_ok(question: str, answer: str) -> bool:
    """Whether ``answer``'s kind (a number or a name) is the kind ``question`` asks for."""
    return bool(_WANTS_NUMBER.search(question)) == is_number(answer)


#: Edges around an entity read for its answer-type signature (as the KGQA head samples 20 end entities).
TYPE_EDGES = 20


def mask_entities(question: str, entities: Sequence[str]) -> str:
    """The question lower-cased with each entity's mention replaced by ``x`` (what the head reads)."""
    out = question
    for name in sorted(entities, key=len, reverse=True):
        words = re.findall(r"[A-Za-z0-9]+", name)
        if words:
            out = re.sub(r"(?<![\w])" + r"\W+".join(map(re.escape, words)) + r"(?![\w])", " x ", out, flags=re.I)
    return " ".join(re.findall(r"[a-z0-9]+", out.lower().replace("'s", " ")))


@dataclass
class QuestionContext:
    """A question as the head reads it: masked text, its vector, content words and answer noun."""

    masked: str
    vector: np.ndarray
    words: tuple[np.ndarray, np.ndarray, np.ndarray]
    answer: np.ndarray


class ChainScorer:
    """Scores chains of sentence edges against a question with the shipped KGQA head (module docstring).

    ``graph`` is the walk reader's :class:`graphhop.read.walk.SentenceGraph`; ``encoder`` the bundled MiniLM
    (the index's query encoder); ``scorer`` a :class:`graphhop.kgqa.scorer.PathScorer` (default: shipped)."""

    def __init__(self, graph: Any, encoder: Any, scorer: Any = None, beam: int = 16, max_hops: int = 3,
                 relations: Any = None, relation_scale: float = 0.0) -> None:
        from graphhop.kgqa.scorer import WALK_WEIGHTS, PathScorer

        self.graph = graph
        self.relations = relations  # the text relation matcher (question ~ ``x <edge label> y``), or None
        self.relation_scale = relation_scale
        self.scorer = scorer if scorer is not None else PathScorer.load(WALK_WEIGHTS, encoder=encoder)
        self.beam = beam
        self.max_hops = max_hops
        self._ids: dict[str, int] = {}
        self._labels: list[str] = []  # edge labels by row of the label table
        self._rows: np.ndarray | None = None  # their vectors (rows for labels seen since the last _table are added then)

    def context(self, question: str, entities: Sequence[str]) -> QuestionContext:
        """The head's view of ``question`` with ``entities`` masked."""
        text = mask_entities(question, entities)
        vec = self.scorer.encode([text])[0]
        return QuestionContext(text, vec, self.scorer.question_words(text), self.scorer.answer_vector(text))

    def _label(self, label: str) -> int:
        """Row of an edge label in the label table (encoded on first sight, cached across questions)."""
        if label not in self._ids:
            self._ids[label] = len(self._ids)
            self._labels.append(label)
        return self._ids[label]

    def _table(self) -> np.ndarray:
        """The label table: rows already encoded are kept, only labels seen since the last call are encoded."""
        have = 0 if self._rows is None else len(self._rows)
        if have < len(self._labels):
            new = self.scorer.encode([lab or "is" for lab in self._labels[have:]]).astype(np.float32, copy=False)
            self._rows = new if self._rows is None else np.vstack([self._rows, new])
        return self._rows if self._rows is not None else np.zeros((1, 384), dtype=np.float32)

    def _signature(self, entity: str) -> list[int]:
        """Signed labels around ``entity``: ``2 r`` for edges it starts, ``2 r + 1`` for inverse ones."""
        return sorted({2 * self._label(e.label) + int(e.inverse) for e in self.graph.edges(entity)[:TYPE_EDGES]})

    def score(self, ctx: QuestionContext, chains: Sequence[Sequence[Any]]) -> np.ndarray:
        """The head's raw score of each chain of edges (higher = the chain says what the question asks)."""
        from graphhop.kgqa.scorer import PathBatch

        if not chains:
            return np.zeros(0, dtype=np.float32)
        steps = [[(self._label(e.label), not e.inverse) for e in chain] for chain in chains]
        types = [self._signature(chain[-1].target) for chain in chains]
        batch = PathBatch(steps, types)
        return self.scorer.score_batch(ctx.vector, self._table(), batch, ctx.words, ctx.answer)

    def logits(self, ctx: QuestionContext, chains: Sequence[Sequence[Any]], temperature: float) -> np.ndarray:
        """The head's score / ``temperature`` plus ``relation_scale`` times the text relation matcher's fit of
        the chain (:meth:`relation_fit`)."""
        raw = self.score(ctx, chains) / temperature
        if self.relations is None or not self.relation_scale:
            return raw
        return raw + self.relation_scale * self.relation_fit(ctx, chains)

    def relation_fit(self, ctx: QuestionContext, chains: Sequence[Sequence[Any]]) -> np.ndarray:
        """Mean over a chain's edges of the matcher's cosine between the masked question and the edge read as
        ``x <label> y`` (:mod:`graphhop.read.relation_matcher`)."""
        from graphhop.read.relation_matcher import statement

        labels = list(dict.fromkeys(statement(e.label) for c in chains for e in c))
        sims = dict(zip(labels, self.relations.similarity([ctx.masked], labels)[0])) if labels else {}
        return np.asarray([np.mean([sims[statement(e.label)] for e in c]) if c else 0.0 for c in chains], dtype=np.float32)

    def probabilities(self, ctx: QuestionContext, question: str, chains: Sequence[Sequence[Any]],
                      temperature: float) -> np.ndarray:
        """The head's probability of each chain: a softmax of its scores / ``temperature`` over the chains
        whose end is of the kind asked (:func:`answer_kind_ok`); 0 for the others."""
        if not chains:
            return np.zeros(0)
        raw = self.logits(ctx, chains, temperature)
        ok = np.asarray([answer_kind_ok(question, c[-1].target) for c in chains])
        if not ok.any():
            return np.zeros(len(chains))
        prob = np.where(ok, np.exp(raw - raw[ok].max()), 0.0)
        return prob / prob.sum()

    def extend(self, reader: Any, question: str, entities: Sequence[str], states: list[Any], relations: frozenset[str],
               bridge_types: frozenset[str]) -> tuple[list[Any], np.ndarray]:
        """The walk's ``states`` plus the chains :meth:`beam_walk` reaches (as ``reader``'s states), each with
        the head's probability over them all (:meth:`probabilities` at ``reader.match_temperature``)."""
        ctx = self.context(question, entities)
        seen = {(fold_name(s.entity), s.edges) for s in states}
        for chain in self.beam_walk(ctx, entities, reader.match_temperature):
            if (fold_name(chain[-1].target), chain) not in seen:
                seen.add((fold_name(chain[-1].target), chain))
                states.append(reader.chain_state(chain, relations, bridge_types))
        return states, self.probabilities(ctx, question, [s.edges for s in states], reader.match_temperature)

    def beam_walk(self, ctx: QuestionContext, entities: Sequence[str], temperature: float = 4.0) -> list[tuple[Any, ...]]:
        """Chains reached by walking with the head alone: every edge expanded, the ``beam`` best kept per
        depth (no entity visited twice on a chain). Every kept chain of every depth, in no order."""
        frontier: list[tuple[Any, ...]] = [()]
        starts = {fold_name(e) for e in entities}
        kept: list[tuple[Any, ...]] = []
        for depth in range(self.max_hops):
            grown = []
            for chain in frontier:
                sources = [chain[-1].target] if chain else list(entities)
                visited = starts | {fold_name(e.target) for e in chain}
                for source in sources:
                    grown += [chain + (e,) for e in self.graph.edges(source) if fold_name(e.target) not in visited]
            if not grown:
                break
            scores = self.logits(ctx, grown, temperature)
            frontier = [grown[i] for i in np.argsort(-scores)[: self.beam]]
            kept += frontier
        return kept
