"""Evidence-graph metrics: evidence-set EM/P/R/F1, graph match (GM), graph structure (GS), graph
edit distance (GED), and a per-graph-type breakdown.

What exactly is computed (the Graphhop release differs; see ``docs/RESULTS.md (issue 4)``):

* **Set metrics** compare the predicted evidence ids with the gold ones (root excluded).
  ``precision = |pred ∩ gold| / |pred|``, ``recall = |pred ∩ gold| / |gold|`` (the release swaps
  the two). Both sets empty -> all metrics 1; exactly one empty -> P = R = F1 = EM = 0.
* **GM** (graph match) is 1 when both graphs have the same labelled nodes (evidence ids) and the
  same labelled edges, root edges included.
* **GS** (graph structure) is 1 when the graphs are isomorphic as unlabelled directed graphs
  (:func:`networkx.is_isomorphic`).
* **GED** is :func:`networkx.optimize_edit_paths` with node labels matched: substituting a node by
  one with another label costs 1, deleting or inserting a node or an edge costs 1, edges carry no
  label. The search stops after ``timeout`` seconds; then the best cost found so far is an
  **upper bound** and :class:`GEDResult` says ``timed_out=True`` (if the search found no edit
  path at all, the bound is the cost of deleting one graph and inserting the other). A search that
  ends naturally a hair after the deadline is also flagged: the flag is conservative.
"""

from __future__ import annotations

import math
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

import networkx as nx

from graphhop.graph import EvidenceGraph

__all__ = [
    "SetScores",
    "GEDResult",
    "set_scores",
    "graph_match",
    "graph_structure",
    "graph_edit_distance",
    "GraphScores",
    "score_graph",
    "evaluate_graphs",
    "breakdown",
]


class SetScores(NamedTuple):
    """Evidence-set scores of one prediction."""

    em: float
    precision: float
    recall: float
    f1: float


class GEDResult(NamedTuple):
    """A graph edit distance; ``timed_out`` means ``value`` is an upper bound."""

    value: float
    timed_out: bool


def set_scores(predicted: Iterable[str], gold: Iterable[str]) -> SetScores:
    """EM, precision, recall and F1 of a predicted evidence set against the gold set."""
    pred, ref = set(predicted), set(gold)
    if not pred and not ref:
        return SetScores(1.0, 1.0, 1.0, 1.0)
    if not pred or not ref:
        return SetScores(0.0, 0.0, 0.0, 0.0)
    hit = len(pred & ref)
    precision = hit / len(pred)
    recall = hit / len(ref)
    f1 = 2 * precision * recall / (precision + recall) if hit else 0.0
    return SetScores(float(pred == ref), precision, recall, f1)


def _labelled(graph: EvidenceGraph | nx.DiGraph) -> nx.DiGraph:
    g = graph.g if isinstance(graph, EvidenceGraph) else graph
    out = nx.DiGraph()
    # the root gets one shared label so predicted and gold roots always match
    root = graph.root if isinstance(graph, EvidenceGraph) else None
    out.add_nodes_from((n, {"label": "<root>" if n == root else n}) for n in g.nodes)
    out.add_edges_from(g.edges)
    return out


def graph_match(predicted: EvidenceGraph, gold: EvidenceGraph) -> float:
    """1.0 when both graphs have the same evidence ids and the same edges (root edges included)."""
    p, g = _labelled(predicted), _labelled(gold)
    pl = {d["label"] for _, d in p.nodes(data=True)}
    gl = {d["label"] for _, d in g.nodes(data=True)}
    pe = {(p.nodes[u]["label"], p.nodes[v]["label"]) for u, v in p.edges}
    ge = {(g.nodes[u]["label"], g.nodes[v]["label"]) for u, v in g.edges}
    return float(pl == gl and pe == ge)


def graph_structure(predicted: EvidenceGraph, gold: EvidenceGraph) -> float:
    """1.0 when the graphs are isomorphic ignoring labels."""
    return float(nx.is_isomorphic(predicted.g, gold.g))


def graph_edit_distance(
    predicted: EvidenceGraph | nx.DiGraph, gold: EvidenceGraph | nx.DiGraph, timeout: float = 5.0
) -> GEDResult:
    """Label-aware graph edit distance with a time limit (see the module docstring)."""
    p, g = _labelled(predicted), _labelled(gold)
    trivial = float(p.number_of_nodes() + p.number_of_edges() + g.number_of_nodes() + g.number_of_edges())
    best = math.inf
    start = time.perf_counter()
    for _, _, cost in nx.optimize_edit_paths(
        p,
        g,
        node_match=lambda a, b: a["label"] == b["label"],
        strictly_decreasing=True,
        timeout=timeout,
    ):
        best = min(best, cost)
    timed_out = time.perf_counter() - start > timeout
    if math.isinf(best):
        return GEDResult(trivial, True)
    return GEDResult(float(best), timed_out)


@dataclass
class GraphScores:
    """All graph metrics of one prediction."""

    graph_type: str
    em: float
    precision: float
    recall: float
    f1: float
    gm: float
    gs: float
    ged: float
    ged_timed_out: bool

    def as_dict(self) -> dict[str, float]:
        """The numeric metrics by name."""
        return {"em": self.em, "precision": self.precision, "recall": self.recall, "f1": self.f1,
                "gm": self.gm, "gs": self.gs, "ged": self.ged}


def score_graph(predicted: EvidenceGraph, gold: EvidenceGraph, timeout: float = 5.0) -> GraphScores:
    """Every metric of one predicted graph against its gold graph; the type is the gold graph's."""
    s = set_scores(predicted.evidence_ids, gold.evidence_ids)
    ged = graph_edit_distance(predicted, gold, timeout)
    return GraphScores(gold.graph_type(), s.em, s.precision, s.recall, s.f1,
                       graph_match(predicted, gold), graph_structure(predicted, gold), ged.value, ged.timed_out)


def breakdown(scores: Iterable[GraphScores]) -> dict[str, dict[str, float]]:
    """Mean of each metric per gold graph type and ``all``; each row also has ``n`` and
    ``ged_timeouts`` (how many GED values are upper bounds)."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for sc in scores:
        for key in (sc.graph_type, "all"):
            row = sums[key]
            row["n"] += 1
            row["ged_timeouts"] += sc.ged_timed_out
            for name, value in sc.as_dict().items():
                row[name] += value
    out: dict[str, dict[str, float]] = {}
    for key, row in sums.items():
        n = row["n"]
        out[key] = {name: (v if name in ("n", "ged_timeouts") else v / n) for name, v in row.items()}
        out[key]["n"] = int(n)
        out[key]["ged_timeouts"] = int(row["ged_timeouts"])
    return out


def evaluate_graphs(
    predicted: Sequence[EvidenceGraph], gold: Sequence[EvidenceGraph], timeout: float = 5.0
) -> dict[str, dict[str, float]]:
    """Score paired graphs and return :func:`breakdown` (per type and ``all``)."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} predicted graphs for {len(gold)} gold graphs")
    return breakdown(score_graph(p, g, timeout) for p, g in zip(predicted, gold))
