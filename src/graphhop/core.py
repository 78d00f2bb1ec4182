"""The small, stable core: the types and protocols every graphhop module speaks.

Data flows one way: knowledge source -> index -> retriever(s) -> evidence graph -> reader
-> metrics. Everything here is plain data or a :class:`typing.Protocol`; no heavy imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = [
    "Triple",
    "Fact",
    "Passage",
    "Hit",
    "Ranking",
    "ranked_ids",
    "QAExample",
    "Answer",
    "Retriever",
    "Reranker",
    "GraphRetriever",
    "Reader",
    "Stage",
    "GraphhopError",
    "InputError",
]


class GraphhopError(Exception):
    """Base class of every error graphhop raises on purpose (the CLI prints these in one line)."""


class InputError(GraphhopError):
    """Bad user input: a malformed line, a missing field, a corrupted index.

    The message always names the file (and line or field) and what is wrong.
    """


#: A ``(head, relation, tail)`` triple: the one spelling every module uses.
Triple = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Fact:
    """A KG triple ``(head, relation, tail)``; ``id`` is its identifier inside a knowledge base."""

    head: str
    relation: str
    tail: str
    id: str = ""

    @property
    def triple(self) -> tuple[str, str, str]:
        """The ``(head, relation, tail)`` key, independent of ``id``."""
        return (self.head, self.relation, self.tail)


@dataclass(frozen=True, slots=True)
class Passage:
    """A unit of text evidence: a paragraph, a sentence, or a verbalized fact.

    ``facts`` are the KG facts the passage states, when known (builder datasets).
    """

    id: str
    text: str
    title: str | None = None
    facts: tuple[Fact, ...] = ()


class Hit(NamedTuple):
    """One retrieved item: the evidence id, its score (higher is better) and what a user needs to
    read it: its ``text`` and, for a KG fact, the ``fact`` (head, relation, tail)."""

    id: str
    score: float
    text: str = ""
    fact: Fact | None = None

    def to_json(self) -> dict:
        """``{"id", "score", "text"}`` plus ``head``/``relation``/``tail`` for a fact."""
        row: dict = {"id": self.id, "score": self.score, "text": self.text}
        if self.fact is not None:
            row.update(head=self.fact.head, relation=self.fact.relation, tail=self.fact.tail)
        return row


#: An ordered list of hits for one query, best first.
Ranking = list[Hit]


def ranked_ids(ids: Sequence[str], k: int) -> Ranking:
    """The first ``k`` distinct ids as a ranking (scores fall with the rank: ``1 / (1 + rank)``)."""
    return [Hit(d, 1.0 / (1 + i)) for i, d in enumerate(list(dict.fromkeys(ids))[:k])]


@dataclass(slots=True)
class QAExample:
    """One question with its gold answers and, where the dataset has them, gold evidence.

    ``gold_paths`` holds one reasoning chain (a list of triples) per gold path; a multi-chain
    question (WC-C) has several. ``gold_facts`` is the set of every triple on any gold path.
    ``qtype`` is the dataset's question type (e.g. MetaQA's ``movie_to_director``).
    """

    id: str
    question: str
    answers: list[str]
    gold_facts: list[tuple[str, str, str]] = field(default_factory=list)
    gold_paths: list[list[tuple[str, str, str]]] = field(default_factory=list)
    hops: int = 0
    qtype: str = ""
    topic_entities: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Answer:
    """A reader's answer: the text, a confidence score, and the evidence ids that support it."""

    text: str
    score: float
    support: tuple[str, ...] = ()


@runtime_checkable
class Retriever(Protocol):
    """Anything that ranks evidence ids for a batch of queries."""

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Return one :data:`Ranking` of at most ``k`` hits per query, in query order."""
        ...


@runtime_checkable
class Reranker(Protocol):
    """Re-scores the hits of first-stage rankings."""

    def rerank(self, queries: Sequence[str], rankings: Sequence[Ranking], k: int = 10) -> list[Ranking]:
        """Return the top ``k`` of each ranking after re-scoring."""
        ...


@runtime_checkable
class GraphRetriever(Protocol):
    """Retrieves evidence graphs (DAGs rooted at the question), batch first."""

    def retrieve_graph(self, questions: Sequence[str]) -> list["EvidenceGraph"]:
        """Return one evidence graph per question, in question order."""
        ...


@runtime_checkable
class Reader(Protocol):
    """Answers a question from its evidence graph."""

    def answer(self, question: str, evidence: "EvidenceGraph") -> Answer:
        """Return the answer with its score and supporting evidence ids."""
        ...


class Stage:
    """A step of a pipeline (a retriever, reranker, graph builder, reader, or a whole pipeline).

    A stage implements the protocol methods it supports (:meth:`search`, :meth:`rerank`,
    :meth:`graphs`, :meth:`retrieve_graph`, :meth:`read`); the others say so in one line.
    Stages compose (PyTerrier's idea; :mod:`graphhop.pipeline.ops`):

    - ``a >> b`` *then*: ``b`` reranks ``a``'s ranking, builds graphs over it, or reads ``a``'s graphs;
    - ``a | b`` *union* and ``a & b`` *intersection* of rankings or of evidence graphs;
    - ``a + b`` reciprocal-rank *fusion*; ``a % k`` keeps ``a``'s top ``k``.

    A composition is a stage too, so pipelines compose and are compared in one experiment.
    """

    #: The stage's name in tables and traces.
    name: str = ""

    def _unsupported(self, what: str) -> GraphhopError:
        return GraphhopError(f"{self.name or type(self).__name__}: this stage does not {what}")

    def can(self, method: str) -> bool:
        """Whether this stage implements ``method`` (``search``, ``rerank``, ``graphs``, ``retrieve_graph``, ``read``)."""
        own = getattr(type(self), method, None)
        return own is not None and own is not getattr(Stage, method, None) and self._can(method)

    def _can(self, method: str) -> bool:
        """Compositions narrow :meth:`can` by what their parts can do."""
        return True

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """:class:`Retriever`: one ranking of at most ``k`` hits per query."""
        raise self._unsupported("rank evidence (search)")

    def rerank(self, queries: Sequence[str], rankings: Sequence[Ranking], k: int = 10) -> list[Ranking]:
        """:class:`Reranker`: re-score each ranking's hits, keep the top ``k``."""
        raise self._unsupported("rerank")

    def graphs(self, questions: Sequence[str], rankings: Sequence[Ranking]) -> list["EvidenceGraph"]:
        """A graph builder: one evidence graph per question over its candidate ranking."""
        raise self._unsupported("build evidence graphs over candidates (graphs)")

    def retrieve_graph(self, questions: Sequence[str]) -> list["EvidenceGraph"]:
        """:class:`GraphRetriever` over a batch: one evidence graph per question."""
        raise self._unsupported("build evidence graphs (retrieve_graph)")

    def read(self, question: str, graph: "EvidenceGraph", qtype: str | None = None) -> object:
        """A reader: the answer of ``question`` from ``graph`` (an operation result with answer, answers, trace)."""
        raise self._unsupported("read answers (read)")

    def __rshift__(self, other: "Stage") -> "Stage":
        from graphhop.pipeline.ops import then

        return then(self, other)

    def __or__(self, other: "Stage") -> "Stage":
        from graphhop.pipeline.ops import Union

        return Union(self, other)

    def __and__(self, other: "Stage") -> "Stage":
        from graphhop.pipeline.ops import Intersect

        return Intersect(self, other)

    def __add__(self, other: "Stage") -> "Stage":
        from graphhop.pipeline.ops import Fuse

        return Fuse([self, other])

    def __mod__(self, k: int) -> "Stage":
        from graphhop.pipeline.ops import Cutoff

        return Cutoff(self, k)
