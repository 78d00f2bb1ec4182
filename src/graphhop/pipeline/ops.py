"""Composition operators on :class:`~graphhop.core.Stage` (``>>`` ``|`` ``&`` ``+`` ``%``).

- :func:`then` (``a >> b``): ``b`` reranks ``a``'s ranking (:class:`Rerank`), builds evidence graphs
  over it (:class:`GraphOver`), or reads ``a``'s graphs (an :class:`~graphhop.pipeline.ask.AskPipeline`).
- :class:`Union` (``a | b``) and :class:`Intersect` (``a & b``) of rankings or of evidence graphs.
- :class:`Fuse` (``a + b``): reciprocal-rank fusion (Cormack et al., 2009).
- :class:`Cutoff` (``a % k``): ``a``'s top ``k`` (the depth a following reranker or graph builder sees).

Rankings: the union keeps every hit, ordered by its best rank in either input (ties: the earlier
input), scored ``1 / best rank``; the intersection keeps the hits of ``a`` that ``b`` also returned,
in ``a``'s order with ``a``'s scores. Graphs: the union has every node and edge of both (an edge of
``b`` that would close a cycle is dropped), node scores the maximum; the intersection has the edges
both graphs share and the nodes they reach from the question, node scores the mean (0 where a
graph lacks the node) — BGR's ``intersect`` merge of its forward and backward graphs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import networkx as nx

from graphhop.core import GraphhopError, Hit, Ranking, Stage

if TYPE_CHECKING:  # pragma: no cover
    from graphhop.graph import EvidenceGraph

__all__ = ["as_stage", "then", "Rerank", "GraphOver", "Union", "Intersect", "Fuse", "Cutoff", "rrf", "union_rankings",
           "intersect_rankings", "union_graphs", "intersect_graphs", "graph_ranking"]

#: How many hits each input of a fusion contributes (as the hybrid retriever always did).
FUSE_DEPTH = 1000


def _name(stage: Any) -> str:
    return getattr(stage, "name", "") or type(stage).__name__


class _Retriever(Stage):
    """A plain :class:`~graphhop.core.Retriever` (anything with ``search``) as a stage."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name = inner, _name(inner)

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """The wrapped retriever's rankings."""
        return self.inner.search(queries, k)


def as_stage(obj: Any) -> Stage:
    """``obj`` itself when it is a :class:`~graphhop.core.Stage`, else a stage around its ``search``."""
    if isinstance(obj, Stage):
        return obj
    if not callable(getattr(obj, "search", None)):
        raise GraphhopError(f"{_name(obj)} is neither a stage nor a retriever (no search)")
    return _Retriever(obj)


def then(a: Stage, b: Stage) -> Stage:
    """``a >> b``: the composition that ``b``'s abilities call for (see the module docstring)."""
    if b.can("rerank"):
        return Rerank(a, b)
    if b.can("graphs"):
        return GraphOver(a, b)
    if b.can("read"):
        from graphhop.pipeline.ask import AskPipeline

        return AskPipeline(f"{_name(a)}>>{_name(b)}", a, b)
    raise GraphhopError(f"{_name(a)} >> {_name(b)}: {_name(b)} neither reranks, builds graphs nor reads")


def _need(stage: Stage, method: str, op: str) -> None:
    if not stage.can(method):
        raise GraphhopError(f"{op}: {_name(stage)} cannot {method}")


# ------------------------------------------------------------------------ rankings
def rrf(rankings: Sequence[Ranking], k: int, c: int = 60) -> Ranking:
    """Fuse rankings of one query: ``score(d) = sum_r 1 / (c + rank_r(d))`` with ranks from 1.

    Ties are broken by the best rank the document had in any input, then by the earlier input.
    """
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    first: dict[str, Hit] = {}
    for source, ranking in enumerate(rankings):
        for rank, hit in enumerate(ranking, start=1):
            first.setdefault(hit.id, hit)
            scores[hit.id] = scores.get(hit.id, 0.0) + 1.0 / (c + rank)
            key = (rank, source)
            if hit.id not in best or key < best[hit.id]:
                best[hit.id] = key
    ordered = sorted(scores, key=lambda d: (-scores[d], best[d]))
    return [first[d]._replace(score=scores[d]) for d in ordered[:k]]


def union_rankings(a: Ranking, b: Ranking, k: int | None = None) -> Ranking:
    """Every hit of ``a`` and ``b``, by best rank (ties: ``a`` first), scored ``1 / best rank``."""
    best: dict[str, tuple[int, int, Hit]] = {}
    for source, ranking in enumerate((a, b)):
        for rank, hit in enumerate(ranking, start=1):
            if hit.id not in best or (rank, source) < best[hit.id][:2]:
                best[hit.id] = (rank, source, best[hit.id][2] if hit.id in best else hit)
    ordered = sorted(best.values(), key=lambda t: t[:2])
    return [hit._replace(score=1.0 / rank) for rank, _, hit in ordered][:k]


def intersect_rankings(a: Ranking, b: Ranking, k: int | None = None) -> Ranking:
    """The hits of ``a`` whose ids ``b`` also holds, in ``a``'s order with ``a``'s scores."""
    ids = {h.id for h in b}
    return [h for h in a if h.id in ids][:k]


class Rerank(Stage):
    """``first >> reranker``: the reranker re-scores ``first``'s top ``depth`` (its ``depth``, else 100).

    When ``k > depth`` the hits below ``depth`` keep their first-stage order after the reranked
    ones (scores below every reranked score), so deep measures (MRR@1000) stay defined.
    """

    def __init__(self, first: Stage, reranker: Stage, depth: int | None = None) -> None:
        _need(first, "search", ">>")
        self.first, self.reranker = first, reranker
        self.depth = depth or getattr(first, "cutoff", None) or getattr(reranker, "depth", None) or 100
        self.name = f"{_name(first)}>>{_name(reranker)}"

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` per query: the first ``depth`` reranked, the rest in first-stage order."""
        if not queries:
            return []
        first = self.first.search(queries, max(k, self.depth))
        reranked = self.reranker.rerank(queries, [r[: self.depth] for r in first], k=self.depth)
        out: list[Ranking] = []
        for top, full in zip(reranked, first):
            ranking = list(top[:k])
            if k > len(ranking) and len(full) > self.depth:
                floor = min((h.score for h in top), default=0.0)
                ranking += [h._replace(score=floor - 1.0 - i) for i, h in enumerate(full[self.depth : k])]
            out.append(ranking)
        return out


class Fuse(Stage):
    """Reciprocal-rank fusion of the stages' top ``depth`` (``c = 60`` as in the RRF paper)."""

    def __init__(self, stages: Sequence[Stage], depth: int = FUSE_DEPTH, c: int = 60, name: str | None = None) -> None:
        parts: list[Stage] = []
        for s in stages:
            _need(s, "search", "+")
            parts += s.stages if isinstance(s, Fuse) and s.name == "+".join(_name(p) for p in s.stages) else [s]
        if len(parts) < 2:
            raise GraphhopError("fusion needs at least two stages")
        self.stages, self.depth, self.c = parts, depth, c
        self.name = name or "+".join(_name(p) for p in parts)

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Top ``k`` fused hits per query."""
        depth = max(self.depth, k)
        per_source = [s.search(queries, depth) for s in self.stages]
        return [rrf([src[i] for src in per_source], k, self.c) for i in range(len(queries))]


class Cutoff(Stage):
    """``stage % k``: at most the top ``cutoff`` hits (and the depth a following ``>>`` stage sees)."""

    def __init__(self, stage: Stage, cutoff: int) -> None:
        _need(stage, "search", "%")
        if cutoff < 1:
            raise GraphhopError(f"% {cutoff}: a cutoff must be at least 1")
        self.stage, self.cutoff = stage, cutoff
        self.name = f"{_name(stage)}%{cutoff}"

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """The stage's top ``min(k, cutoff)``."""
        return self.stage.search(queries, min(k, self.cutoff))


# ------------------------------------------------------------------------ graphs
def _node_score(graph: "EvidenceGraph", node: str) -> float:
    return float(graph.g.nodes[node].get("score", 0.0)) if node in graph.g else 0.0


def _copy_node(out: "EvidenceGraph", src: "EvidenceGraph", node: str, score: float) -> None:
    d = src.g.nodes[node]
    out.add_evidence(node, d.get("text", ""), d.get("facts", []), d.get("kind", "evidence"))
    out.g.nodes[node]["score"] = score


def union_graphs(a: "EvidenceGraph", b: "EvidenceGraph") -> "EvidenceGraph":
    """Every node and edge of ``a`` and ``b`` (``b``'s edges that would close a cycle are dropped)."""
    from graphhop.graph import EvidenceGraph

    out = EvidenceGraph(a.question, a.root, a.text_evidence)
    for node in dict.fromkeys(a.evidence_ids + b.evidence_ids):
        _copy_node(out, a if node in a.g else b, node, max(_node_score(a, node), _node_score(b, node)))
    for u, v in a.edges + [e for e in b.edges if e not in set(a.edges)]:
        u, v = (out.root if u == b.root else u), (out.root if v == b.root else v)
        if u != v and not (v in out.g and u in out.g and nx.has_path(out.g, v, u)):
            out.add_edge(u, v)
    return out


def intersect_graphs(a: "EvidenceGraph", b: "EvidenceGraph") -> "EvidenceGraph":
    """The edges ``a`` and ``b`` share and the nodes they reach from the question (mean node scores)."""
    from graphhop.graph import EvidenceGraph

    shared = nx.DiGraph(sorted(set(a.edges) & set(b.edges)))
    keep = nx.descendants(shared, a.root) if a.root in shared else set()
    out = EvidenceGraph(a.question, a.root, a.text_evidence)
    for node in a.evidence_ids:
        if node in keep:
            _copy_node(out, a, node, (_node_score(a, node) + _node_score(b, node)) / 2)
    for u, v in shared.edges:
        if u in out.g and v in out.g:
            out.add_edge(u, v)
    return out


def graph_ranking(graph: "EvidenceGraph", k: int) -> Ranking:
    """A graph's evidence as a ranking: node score, best first (ties: graph order)."""
    hits = [Hit(n, _node_score(graph, n), str(graph.g.nodes[n].get("text", ""))) for n in graph.evidence_ids]
    return sorted(hits, key=lambda h: -h.score)[:k]


class GraphOver(Stage):
    """``first >> builder``: the builder's evidence graphs over ``first``'s top ``depth`` candidates.

    A builder with a ``build(first, questions)`` method (hop-wise expansion, which searches again
    at every hop) gets ``first`` itself instead of one ranking.
    """

    def __init__(self, first: Stage, builder: Stage, depth: int | None = None) -> None:
        _need(first, "search", ">>")
        self.first, self.builder = first, builder
        self.depth = depth or getattr(first, "cutoff", None) or getattr(builder, "depth", None) or 25
        self.name = f"{_name(first)}>>{_name(builder)}"

    def retrieve_graph(self, questions: Sequence[str]) -> list["EvidenceGraph"]:
        """One evidence graph per question."""
        build = getattr(self.builder, "build", None)
        if build is not None:
            return build(self.first, list(questions))
        return self.builder.graphs(list(questions), self.first.search(list(questions), self.depth))

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Each graph's evidence ranked by node score (hop-wise builders: the first stage's ranking)."""
        if hasattr(self.builder, "build"):
            return self.first.search(queries, k)
        return [graph_ranking(g, k) for g in self.retrieve_graph(queries)]


# ------------------------------------------------------------------------ set operators
class _SetOp(Stage):
    symbol = ""
    on_rankings: Callable[..., Ranking]
    on_graphs: Callable[..., "EvidenceGraph"]

    def __init__(self, a: Stage, b: Stage) -> None:
        if not any(a.can(m) and b.can(m) for m in ("search", "graphs", "retrieve_graph")):
            raise GraphhopError(f"{_name(a)} {self.symbol} {_name(b)}: the stages share no ranking or graph ability")
        self.a, self.b = a, b
        self.name = f"({_name(a)}{self.symbol}{_name(b)})"

    def _can(self, method: str) -> bool:
        return self.a.can(method) and self.b.can(method)

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        """Combined rankings (``graphs``-only stages: their graphs' evidence)."""
        if not self._can("search"):
            return super().search(queries, k)
        op = type(self).on_rankings
        return [op(x, y, k) for x, y in zip(self.a.search(queries, k), self.b.search(queries, k))]

    def graphs(self, questions: Sequence[str], rankings: Sequence[Ranking]) -> list["EvidenceGraph"]:
        """Combined graphs of two builders over the same candidates."""
        if not self._can("graphs"):
            return super().graphs(questions, rankings)
        op = type(self).on_graphs
        return [op(x, y) for x, y in zip(self.a.graphs(questions, rankings), self.b.graphs(questions, rankings))]

    def retrieve_graph(self, questions: Sequence[str]) -> list["EvidenceGraph"]:
        """Combined graphs of two graph retrievers."""
        if not self._can("retrieve_graph"):
            return super().retrieve_graph(questions)
        op = type(self).on_graphs
        return [op(x, y) for x, y in zip(self.a.retrieve_graph(questions), self.b.retrieve_graph(questions))]


class Union(_SetOp):
    """``a | b``: the union of two rankings or of two evidence graphs."""

    symbol = "|"
    on_rankings = staticmethod(union_rankings)
    on_graphs = staticmethod(union_graphs)


class Intersect(_SetOp):
    """``a & b``: the intersection of two rankings or of two evidence graphs."""

    symbol = "&"
    on_rankings = staticmethod(intersect_rankings)
    on_graphs = staticmethod(intersect_graphs)
