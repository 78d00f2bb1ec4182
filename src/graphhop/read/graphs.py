"""Evidence graphs from facts: chains of retrieved facts (:func:`build_evidence_graph`), gold paths
(:func:`graph_from_paths`) and an answer's support (:func:`support_graph`). See :mod:`graphhop.read.facts`."""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from graphhop.core import Fact, Triple
from graphhop.graph import EvidenceGraph
from graphhop.read.facts import bracket_entities, fact_text, find_entities

__all__ = ["build_evidence_graph", "graph_from_paths", "support_graph"]


def build_evidence_graph(
    question: str,
    facts: Sequence[tuple[str, Fact | Sequence[str]]],
    texts: dict[str, str] | None = None,
    topic_entities: Sequence[str] | None = None,
    max_hops: int = 3,
    max_chains: int = 2000,
    loops: bool = False,
) -> EvidenceGraph:
    """Chain retrieved ``facts`` (``(evidence id, fact)`` pairs, best first) into an evidence graph
    rooted at ``question`` (see the module docstring). ``texts`` gives node texts (default: the
    verbalized fact). ``topic_entities`` overrides the entity matching. With ``loops`` a chain may
    revisit an entity (never a fact), as PathQuestion's paths do."""
    triples: dict[str, Triple] = {}
    for eid, f in facts:
        triples[eid] = f.triple if isinstance(f, Fact) else (str(f[0]), str(f[1]), str(f[2]))
    entities = {e for h, _, t in triples.values() for e in (h, t)}
    if topic_entities:
        starts = [e for e in topic_entities if e in entities]
    else:
        marked = bracket_entities(question)
        starts = [e for e in marked if e in entities] if marked else []
        if not starts:
            starts = find_entities(question, entities)
    incident: dict[str, list[str]] = {}
    for eid, (h, _, t) in triples.items():
        incident.setdefault(h, []).append(eid)
        if t != h:
            incident.setdefault(t, []).append(eid)
    chains: list[list[str]] = []
    # breadth-first so that short chains are kept first when the cap is hit
    frontier: list[tuple[list[str], str, frozenset[str]]] = [([], s, frozenset({s})) for s in dict.fromkeys(starts)]
    for _ in range(max_hops):
        nxt_frontier = []
        for path, cur, visited in frontier:
            for eid in incident.get(cur, []):
                if eid in path:
                    continue
                h, _, t = triples[eid]
                other = t if h == cur else h
                if other in visited and not loops:
                    continue
                new = path + [eid]
                chains.append(new)
                nxt_frontier.append((new, other, visited | {other}))
                if len(chains) >= max_chains:
                    break
            if len(chains) >= max_chains:
                break
        frontier = nxt_frontier
        if len(chains) >= max_chains:
            break
    graph = EvidenceGraph(question)
    for chain in chains:
        prev = graph.root
        for eid in chain:
            if eid not in graph.g:
                graph.add_evidence(eid, (texts or {}).get(eid) or fact_text(triples[eid]), [triples[eid]])
            if not graph.g.has_edge(prev, eid):
                if prev != graph.root and _reaches(graph, eid, prev):
                    break  # the edge would close a cycle: keep the graph a DAG
                graph.add_edge(prev, eid)
            prev = eid
    return graph


def _reaches(graph: EvidenceGraph, source: str, target: str) -> bool:
    import networkx as nx

    return nx.has_path(graph.g, source, target)


def graph_from_paths(question: str, paths: Sequence[Sequence[Sequence[str]]]) -> EvidenceGraph:
    """A (gold) evidence graph from reasoning paths of triples: one node per distinct triple, the
    root -> first triple -> ... -> last triple of every path (the reader's ceiling input)."""
    ids: dict[Triple, str] = {}
    evidence: dict[str, dict[str, Any]] = {}
    chains = []
    for path in paths:
        chain = []
        for tr in path:
            key = (str(tr[0]), str(tr[1]), str(tr[2]))
            if key not in ids:
                ids[key] = f"g{len(ids)}"
                evidence[ids[key]] = {"text": fact_text(key), "facts": [list(key)]}
            chain.append(ids[key])
        chains.append(chain)
    return EvidenceGraph.from_chains(question, chains, evidence)


def support_graph(evidence: EvidenceGraph, support: Iterable[str]) -> EvidenceGraph:
    """The sub-graph of ``evidence`` induced by the root and the ``support`` node ids (an answer's
    evidence), keeping their edges; nodes it cannot reach from the root are dropped."""
    keep = [n for n in dict.fromkeys(support) if n in evidence.g and n != evidence.root]
    sub = EvidenceGraph(evidence.question, evidence.root, evidence.text_evidence)
    for n in keep:
        d = evidence.g.nodes[n]
        sub.add_evidence(n, d.get("text", ""), d.get("facts", []), d.get("kind", "evidence"))
    for u, v in evidence.g.subgraph([evidence.root, *keep]).edges:
        sub.add_edge(u, v)
    import networkx as nx

    reach = nx.descendants(sub.g, sub.root)
    sub.g.remove_nodes_from([n for n in keep if n not in reach])
    return sub
