"""Five few-shot reasoning-graph prompts (Graph-hop paper, appendix A.6), written for graphhop.

The paper asks an LLM to build the reasoning graph of a question over a numbered evidence pool with
five prompt styles and compares them with graph retrievers. Its appendix describes the styles, not a
text we could reuse, so these templates are our own wording of that description. Every template shows
the question and the pool as ``[e3] sentence`` lines, and asks for a graph over those ids whose root is
``Q`` (the question) and whose sinks are the answer-bearing evidence:

* ``direct``: the reasoning steps at once, one ``source -> target`` edge per line;
* ``step``: step-by-step (chain of thought): numbered steps that each cite the evidence used and
  why, then the edges under a ``Graph:`` line;
* ``forward``: every chain from the question to an answer-bearing evidence, one per line,
  ``Q -> e3 -> e7``;
* ``backward``: every chain from an answer-bearing evidence back to the question, one per line,
  ``e7 <- e3 <- Q``;
* ``edges``: the graph as a JSON edge list, ``{"nodes": ["e3", ...], "edges": [["Q", "e3"], ...]}``.

Few-shot examples come from a builder train split (:func:`pick_shots`); their answers are the gold
graphs rendered in the template's own format (:func:`render_graph`), so every shot shows exactly
what the parser (:mod:`graphhop.retrieve.llm.parse`) reads back.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import networkx as nx

from graphhop.core import InputError
from graphhop.graph import ROOT, EvidenceGraph

__all__ = ["TEMPLATES", "Template", "Shot", "render_graph", "render_pool", "build_messages", "pick_shots", "shot_from_record"]


@dataclass(frozen=True)
class Template:
    """One prompt style: its instruction (system message) and the answer format it asks for."""

    name: str
    instruction: str
    answer_intro: str


_COMMON = (
    "You build reasoning graphs for multi-hop questions. You get a question and a numbered pool of "
    "evidence sentences; some of them are needed to answer the question, the others are distractors. "
    "A reasoning graph links the question Q to the evidence needed, in reasoning order: an edge "
    "a -> b means that b is found from a (from the question, or from an entity that a mentions). The "
    "evidence that states the answer has no outgoing edge. Use only ids from the pool, never the "
    "same evidence twice on one path, and no cycles. "
)

TEMPLATES: dict[str, Template] = {
    "direct": Template(
        "direct",
        _COMMON + "Answer with the graph only: one edge per line, written `source -> target`, starting "
                  "with the edges that leave Q.",
        "Graph:",
    ),
    "step": Template(
        "step",
        _COMMON + "Think step by step: write numbered steps, each naming the evidence id it uses and "
                  "why. Then write `Graph:` and the edges, one per line, written `source -> target`.",
        "Steps:",
    ),
    "forward": Template(
        "forward",
        _COMMON + "Reason forward, from the question towards the answer: write every chain of evidence "
                  "from Q to an evidence that states an answer, one chain per line, written "
                  "`Q -> e1 -> e2`. Chains may share evidence.",
        "Chains:",
    ),
    "backward": Template(
        "backward",
        _COMMON + "Reason backward, from the answer to the question: first find the evidence that "
                  "states an answer, then what leads to it, back to Q. Write every chain one per line, "
                  "answer first, written `e2 <- e1 <- Q`. Chains may share evidence.",
        "Chains:",
    ),
    "edges": Template(
        "edges",
        _COMMON + 'Answer with one JSON object and nothing else: {"nodes": [evidence ids], "edges": '
                  '[[source, target], ...]}, where the source of the first edges is "Q".',
        "JSON:",
    ),
}


@dataclass(frozen=True)
class Shot:
    """One few-shot example: question, pool (ids and texts, in pool order) and gold graph."""

    question: str
    ids: tuple[str, ...]
    texts: tuple[str, ...]
    graph: EvidenceGraph


def _ordered_edges(graph: EvidenceGraph) -> list[tuple[str, str]]:
    """Edges in breadth-first order from the root (root edges first), then any others."""
    seen: list[tuple[str, str]] = []
    for u, v in nx.bfs_edges(graph.g, graph.root):
        seen.append((u, v))
    rest = [e for e in graph.edges if e not in set(seen)]
    return seen + rest


def render_graph(graph: EvidenceGraph, template: str) -> str:
    """The gold answer of a few-shot example in ``template``'s format (what the parser reads)."""
    edges = _ordered_edges(graph)
    name = lambda n: ROOT if n == graph.root else n  # noqa: E731
    if template == "direct":
        return "\n".join(f"{name(u)} -> {name(v)}" for u, v in edges)
    if template == "step":
        steps = []
        for i, (u, v) in enumerate(edges, start=1):
            why = "it answers the question directly" if u == graph.root else f"it continues from {u}"
            steps.append(f"{i}. Use [{v}]: {why}.")
        return "\n".join(steps) + "\nGraph:\n" + "\n".join(f"{name(u)} -> {name(v)}" for u, v in edges)
    chains = [[ROOT, *c] for c in graph.chains()]
    if template == "forward":
        return "\n".join(" -> ".join(c) for c in chains)
    if template == "backward":
        return "\n".join(" <- ".join(reversed(c)) for c in chains)
    if template == "edges":
        return json.dumps({"nodes": graph.evidence_ids, "edges": [[name(u), name(v)] for u, v in edges]})
    raise InputError(f"unknown prompt template {template!r}; choose one of {', '.join(TEMPLATES)}")


def render_pool(ids: Sequence[str], texts: Sequence[str]) -> str:
    """The pool as ``[id] text`` lines (one line per sentence, newlines flattened)."""
    return "\n".join(f"[{i}] {' '.join(str(t).split())}" for i, t in zip(ids, texts))


def _user_turn(question: str, ids: Sequence[str], texts: Sequence[str]) -> str:
    return f"Question: {question}\nEvidence:\n{render_pool(ids, texts)}"


def build_messages(template: str, question: str, ids: Sequence[str], texts: Sequence[str],
                   shots: Sequence[Shot] = ()) -> list[dict[str, str]]:
    """Chat messages for one question: the instruction, the shots as user/assistant turns, the question."""
    if template not in TEMPLATES:
        raise InputError(f"unknown prompt template {template!r}; choose one of {', '.join(TEMPLATES)}")
    t = TEMPLATES[template]
    messages = [{"role": "system", "content": t.instruction}]
    for shot in shots:
        messages.append({"role": "user", "content": _user_turn(shot.question, shot.ids, shot.texts)})
        messages.append({"role": "assistant", "content": f"{t.answer_intro}\n{render_graph(shot.graph, template)}"})
    messages.append({"role": "user", "content": _user_turn(question, ids, texts)})
    return messages


def shot_from_record(rec: dict[str, Any]) -> Shot:
    """A few-shot example from a builder record (pool in record order, gold graph from ``graph``)."""
    ev = rec["evidence"]
    return Shot(rec["question"], tuple(e["id"] for e in ev), tuple(e["text"] for e in ev),
                EvidenceGraph.from_json(rec["graph"], str(rec.get("id", "record"))))


def pick_shots(records: Iterable[dict[str, Any]], n: int = 3) -> list[Shot]:
    """``n`` few-shot examples spread evenly over ``records`` (a builder *train* split): records are
    taken at an even stride, preferring graph types not shown yet, so multi-chain data gets a
    multi-chain example."""
    recs = [r for r in records if r.get("evidence") and r.get("graph")]
    if n <= 0 or not recs:
        return []
    stride = max(1, len(recs) // (4 * n))
    candidates = recs[::stride]
    chosen: list[dict[str, Any]] = []
    types: set[str] = set()
    for rec in candidates:  # first pass: one per graph type
        if rec.get("graph_type") not in types:
            chosen.append(rec)
            types.add(rec.get("graph_type"))
        if len(chosen) == n:
            break
    for rec in candidates:  # fill up at the stride
        if len(chosen) == n:
            break
        if rec not in chosen:
            chosen.append(rec)
    return [shot_from_record(r) for r in chosen]
