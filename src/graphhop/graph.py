"""The evidence graph: a DAG over evidence ids, rooted at the question.

Edges point along the reasoning: ``question (root) -> first evidence -> ... -> answer-bearing
evidence``. The answer-bearing evidence are the sinks (nodes without successors). Each node holds
its evidence ``text``, the KG ``facts`` (``[head, relation, tail]`` triples) it states, and a
``kind`` (``evidence``, ``intermediate`` or ``hypothesis`` for entailment trees).

Definitions used everywhere in graphhop (statistics, metrics, the builder):

* a **chain** is a path from the root to a sink;
* the **depth** is the number of evidence nodes on the longest chain (the root is not counted);
* **single-chain** graphs have exactly one chain (the evidence nodes form one path),
  **multi-chain** graphs have two or more;
* **single-hop** graphs have depth 1 (every chain is one evidence long), **multi-hop** graphs
  have depth >= 2.

The four graph types are the products: ``single-chain single-hop`` (one evidence),
``single-chain multi-hop`` (a path of >= 2 evidence), ``multi-chain single-hop`` (the root fans out
to >= 2 evidence, all sinks) and ``multi-chain multi-hop`` (anything else that is valid).
"""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import networkx as nx

from graphhop.core import GraphhopError, InputError, Triple

__all__ = [
    "TextPath",
    "ROOT",
    "GRAPH_TYPES",
    "EvidenceGraph",
    "GraphConstraintError",
    "graph_type",
    "count_structures",
    "StructureCounter",
]

#: Default id of the question (root) node.
ROOT = "Q"

GRAPH_TYPES = (
    "single-chain single-hop",
    "single-chain multi-hop",
    "multi-chain single-hop",
    "multi-chain multi-hop",
)



class GraphConstraintError(GraphhopError):
    """An evidence graph breaks one of the ReasonGraphQA constraints (see :meth:`EvidenceGraph.validate`)."""


class EvidenceGraph:
    """A reasoning graph of evidence: a networkx ``DiGraph`` with a question root.

    ``text_evidence=True`` marks a graph whose evidence are sentences without KG triples
    (EntailmentBank); for it the "each evidence holds a fact" rule asks for a non-empty text.
    """

    def __init__(self, question: str = "", root: str = ROOT, text_evidence: bool = False) -> None:
        self.root = root
        self.question = question
        self.text_evidence = text_evidence
        self.g = nx.DiGraph()
        self.g.add_node(root, kind="question", text=question, facts=[])

    # ------------------------------------------------------------------ building
    def add_evidence(
        self,
        evidence_id: str,
        text: str = "",
        facts: Iterable[Sequence[str]] = (),
        kind: str = "evidence",
    ) -> None:
        """Add (or update) one evidence node."""
        if evidence_id == self.root:
            raise GraphhopError(f"evidence id {evidence_id!r} is the root id")
        self.g.add_node(evidence_id, kind=kind, text=text, facts=[list(f) for f in facts])

    def add_edge(self, source: str, target: str) -> None:
        """Add a reasoning step ``source -> target`` (both must exist; use the root id for the question)."""
        for node in (source, target):
            if node not in self.g:
                raise GraphhopError(f"edge {source!r} -> {target!r}: unknown node {node!r}")
        self.g.add_edge(source, target)

    @classmethod
    def from_chains(
        cls,
        question: str,
        chains: Iterable[Sequence[str]],
        evidence: dict[str, dict[str, Any]],
        root: str = ROOT,
    ) -> "EvidenceGraph":
        """Build a graph from chains of evidence ids (each chain starts at the root).

        ``evidence`` maps an id to ``{"text":..., "facts":...}``. Chains sharing an evidence share
        its node, so chains that start alike form a tree.
        """
        graph = cls(question, root)
        for chain in chains:
            prev = root
            for eid in chain:
                if eid not in graph.g:
                    info = evidence.get(eid, {})
                    graph.add_evidence(eid, info.get("text", ""), info.get("facts", ()), info.get("kind", "evidence"))
                graph.add_edge(prev, eid)
                prev = eid
        return graph

    # ------------------------------------------------------------------ views
    @property
    def evidence_ids(self) -> list[str]:
        """All evidence ids (every node but the root), in insertion order."""
        return [n for n in self.g.nodes if n != self.root]

    @property
    def edges(self) -> list[tuple[str, str]]:
        """All edges, root edges included."""
        return list(self.g.edges)

    def sinks(self) -> list[str]:
        """The answer-bearing evidence: evidence nodes without successors."""
        return [n for n in self.evidence_ids if self.g.out_degree(n) == 0]

    def chains(self, limit: int = 10_000) -> Iterator[list[str]]:
        """Root-to-sink paths (root excluded), at most ``limit`` of them (acyclic graphs only)."""
        count = 0
        stack: list[tuple[str, list[str]]] = [(self.root, [])]
        while stack:
            node, path = stack.pop()
            succ = list(self.g.successors(node))
            if not succ and path:
                yield path
                count += 1
                if count >= limit:
                    return
            for nxt in reversed(succ):
                if nxt not in path:  # guards against cycles; validate() reports them
                    stack.append((nxt, path + [nxt]))

    def depth(self) -> int:
        """Evidence nodes on the longest chain (0 for an empty graph; needs a DAG)."""
        if len(self.g) <= 1:
            return 0
        if not nx.is_directed_acyclic_graph(self.g):
            raise GraphConstraintError("depth is undefined: the graph has a cycle")
        reachable = nx.descendants(self.g, self.root) | {self.root}
        return int(nx.dag_longest_path_length(self.g.subgraph(reachable)))

    def num_chains(self) -> int:
        """Number of root-to-sink paths (counted by dynamic programming; needs a DAG)."""
        if not nx.is_directed_acyclic_graph(self.g):
            raise GraphConstraintError("chains are undefined: the graph has a cycle")
        ways: dict[str, int] = defaultdict(int)
        ways[self.root] = 1
        total = 0
        for node in nx.topological_sort(self.g):
            succ = list(self.g.successors(node))
            if not succ and node != self.root:
                total += ways[node]
            for nxt in succ:
                ways[nxt] += ways[node]
        return total

    def graph_type(self) -> str:
        """One of :data:`GRAPH_TYPES` (see the module docstring for the definitions)."""
        return graph_type(self)

    # ------------------------------------------------------------------ constraints
    def violations(self) -> list[str]:
        """Every broken ReasonGraphQA constraint, as messages (empty when the graph is valid).

        1. each evidence holds at least one fact (a triple; a non-empty text for text evidence);
        2. an explanation graph exists: at least one evidence node, and the root has a successor;
        3. the graph is a DAG and nothing points into the root;
        4. every evidence node (leaf or not) is reachable from the root, i.e. lies on a root path;
        5. no evidence repeats on a root path: two nodes of one chain never hold the same text
           or the same fact (node ids are unique, so repetition means repeated content).
        """
        problems: list[str] = []
        for n in self.evidence_ids:
            data = self.g.nodes[n]
            if self.text_evidence or data.get("kind") in ("intermediate", "hypothesis"):
                if not str(data.get("text", "")).strip() and not data.get("facts"):
                    problems.append(f"evidence {n!r} holds no fact (empty text)")
            elif not data.get("facts"):
                problems.append(f"evidence {n!r} holds no fact")
        if not self.evidence_ids or self.g.out_degree(self.root) == 0:
            problems.append("no explanation graph: the root has no evidence successor")
        if self.g.in_degree(self.root):
            preds = sorted(self.g.predecessors(self.root))
            problems.append(f"the root {self.root!r} has incoming edges from {preds}")
        cycles = list(nx.simple_cycles(self.g))
        if cycles:
            problems.append(f"not a DAG: cycle {' -> '.join(cycles[0] + [cycles[0][0]])}")
        reachable = nx.descendants(self.g, self.root)
        unreachable = [n for n in self.evidence_ids if n not in reachable]
        if unreachable:
            problems.append(f"evidence not on any root path: {sorted(unreachable)}")
        if not cycles:
            repeat = self._repeated_on_path()
            if repeat:
                problems.append(repeat)
        return problems

    def validate(self) -> "EvidenceGraph":
        """Raise :class:`GraphConstraintError` listing every broken constraint; return ``self``."""
        problems = self.violations()
        if problems:
            raise GraphConstraintError("invalid evidence graph: " + "; ".join(problems))
        return self

    def is_valid(self) -> bool:
        """True when :meth:`violations` is empty."""
        return not self.violations()

    def _content_keys(self, node: str) -> set[Any]:
        data = self.g.nodes[node]
        keys: set[Any] = {("fact", tuple(f)) for f in data.get("facts", [])}
        text = " ".join(str(data.get("text", "")).lower().split())
        if text:
            keys.add(("text", text))
        return keys

    def _repeated_on_path(self) -> str | None:
        # keys seen on some root path reaching each node; a DAG lets us walk in topological order
        # but different paths carry different key sets, so walk the paths themselves (graphs are small)
        keys = {n: self._content_keys(n) for n in self.evidence_ids}
        for chain in self.chains():
            seen: dict[Any, str] = {}
            for node in chain:
                for key in keys[node]:
                    if key in seen:
                        what = "fact " + "|".join(key[1]) if key[0] == "fact" else f"text {key[1]!r}"
                        return f"evidence repeats on a root path: {seen[key]!r} and {node!r} hold the same {what}"
                    seen[key] = node
        return None

    # ------------------------------------------------------------------ (de)serialization
    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``{root, question, text_evidence, nodes: [{id, kind, text, facts}], edges: [[u, v]]}``."""
        nodes = [
            {"id": n, "kind": d.get("kind", "evidence"), "text": d.get("text", ""), "facts": d.get("facts", [])}
            for n, d in self.g.nodes(data=True)
            if n != self.root
        ]
        return {
            "root": self.root,
            "question": self.question,
            "text_evidence": self.text_evidence,
            "nodes": nodes,
            "edges": [[u, v] for u, v in self.g.edges],
        }

    def dumps(self) -> str:
        """:meth:`to_json` as a compact JSON string."""
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def from_json(cls, obj: dict[str, Any] | str, where: str = "graph") -> "EvidenceGraph":
        """Inverse of :meth:`to_json` (also accepts the string); ``where`` names the source in errors."""
        if isinstance(obj, str):
            try:
                obj = json.loads(obj)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where}: invalid JSON ({exc.msg})") from None
        if not isinstance(obj, dict):
            raise InputError(f"{where}: expected a JSON object")
        for key, typ in (("nodes", list), ("edges", list)):
            if not isinstance(obj.get(key), typ):
                raise InputError(f"{where}: missing or non-list field {key!r}")
        graph = cls(str(obj.get("question", "")), str(obj.get("root", ROOT)), bool(obj.get("text_evidence", False)))
        for i, node in enumerate(obj["nodes"]):
            if not isinstance(node, dict) or not isinstance(node.get("id"), str):
                raise InputError(f"{where}: nodes[{i}]: expected an object with a string 'id'")
            facts = node.get("facts", [])
            if not isinstance(facts, list) or any(not isinstance(f, list) or len(f) != 3 for f in facts):
                raise InputError(f"{where}: nodes[{i}].facts: expected a list of [head, relation, tail]")
            graph.add_evidence(node["id"], str(node.get("text", "")), facts, str(node.get("kind", "evidence")))
        for i, edge in enumerate(obj["edges"]):
            if not isinstance(edge, list) or len(edge) != 2:
                raise InputError(f"{where}: edges[{i}]: expected [source, target]")
            try:
                graph.add_edge(str(edge[0]), str(edge[1]))
            except GraphhopError as exc:
                raise InputError(f"{where}: edges[{i}]: {exc}") from None
        return graph

    # ------------------------------------------------------------------ display
    def render_tree(self, width: int = 100) -> str:
        """A terminal drawing: the root, then each evidence under its first parent.

        A node with several parents is drawn in full once and then referenced as ``(see id)``.
        """
        lines = [f"[{self.root}] {self.question}".rstrip()[:width]]
        drawn: set[str] = set()

        def label(node: str) -> str:
            data = self.g.nodes[node]
            text = data.get("text") or "; ".join("|".join(f) for f in data.get("facts", []))
            mark = " *" if self.g.out_degree(node) == 0 else ""
            return f"[{node}]{mark} {text}"

        def walk(node: str, prefix: str) -> None:
            succ = list(self.g.successors(node))
            for i, child in enumerate(succ):
                last = i == len(succ) - 1
                branch = "└── " if last else "├── "
                if child in drawn:
                    lines.append(f"{prefix}{branch}(see {child})")
                    continue
                drawn.add(child)
                lines.append((prefix + branch + label(child))[:width])
                walk(child, prefix + ("    " if last else "│   "))

        walk(self.root, "")
        orphans = [n for n in self.evidence_ids if n not in drawn]
        if orphans:
            lines.append("not reachable from the root: " + ", ".join(orphans))
        return "\n".join(lines)

    def __len__(self) -> int:
        return len(self.g) - 1

    def __repr__(self) -> str:
        return f"EvidenceGraph({len(self)} evidence, {self.g.number_of_edges()} edges)"


def graph_type(graph: EvidenceGraph) -> str:
    """Classify a graph into one of :data:`GRAPH_TYPES` (definitions in the module docstring)."""
    chains = "single-chain" if graph.num_chains() <= 1 else "multi-chain"
    hops = "single-hop" if graph.depth() <= 1 else "multi-hop"
    return f"{chains} {hops}"


def _structure(graph: EvidenceGraph) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from((n, {"root": n == graph.root, "label": "root" if n == graph.root else "e"}) for n in graph.g.nodes)
    g.add_edges_from(graph.g.edges)
    return g


def _canonical(graph: EvidenceGraph) -> str | None:
    """An exact canonical string for the two shapes our graphs nearly always have, else ``None``.

    * out-tree: every evidence node has exactly one parent (chains sharing prefixes, KGQA builds);
    * in-forest plus root edges: every evidence node has at most one successor (entailment trees:
      premises -> conclusion -> ... -> hypothesis), the root points at any subset of nodes.
    Both are canonized by sorting children's strings recursively (AHU), so equal strings mean
    isomorphic graphs and vice versa.
    """
    g, root = graph.g, graph.root
    if g.in_degree(root) or len(nx.descendants(g, root)) != len(g) - 1:
        return None
    evidence = [n for n in g if n != root]
    if all(g.in_degree(n) == 1 for n in evidence):
        def out(n: str) -> str:
            return "(" + "".join(sorted(out(c) for c in g.successors(n))) + ")"
        return "out:" + out(root)
    if all(g.out_degree(n) <= 1 for n in evidence) and nx.is_directed_acyclic_graph(g):
        def into(n: str) -> str:
            mark = "r" if g.has_edge(root, n) else ""
            return "(" + mark + "".join(sorted(into(p) for p in g.predecessors(n) if p != root)) + ")"
        return "in:" + "".join(sorted(into(n) for n in evidence if g.out_degree(n) == 0))
    return None


class StructureCounter:
    """Counts nonisomorphic structures incrementally (labels ignored, the root kept distinct).

    Trees (see :func:`_canonical`) are compared by an exact canonical string; any other graph is
    bucketed by its multiset of Weisfeiler-Lehman node colours (root marked) and compared with
    :func:`networkx.is_isomorphic`, matching only nodes of equal colour, inside its bucket. Either way the count is exact.
    """

    def __init__(self) -> None:
        self._canon: set[str] = set()
        self._buckets: dict[str, list[nx.DiGraph]] = defaultdict(list)

    def add(self, graph: EvidenceGraph) -> bool:
        """Add one graph; True when its structure is new."""
        canon = _canonical(graph)
        if canon is not None:
            if canon in self._canon:
                return False
            self._canon.add(canon)
            return True
        s = _structure(graph)
        with warnings.catch_warnings():  # networkx notes that its hashes changed in 3.5; we only compare within a run
            warnings.simplefilter("ignore")
            colors = nx.weisfeiler_lehman_subgraph_hashes(s, node_attr="label", iterations=max(3, len(s)))
        # stable WL colours are isomorphism invariants: matching only equal colours keeps VF2 exact and fast
        nx.set_node_attributes(s, {n: h[-1] for n, h in colors.items()}, "wl")
        key = repr(sorted(h[-1] for h in colors.values()))
        bucket = self._buckets[key]
        match = nx.algorithms.isomorphism.categorical_node_match("wl", "")
        if any(nx.is_isomorphic(seen, s, node_match=match) for seen in bucket):
            return False
        bucket.append(s)
        return True

    def __len__(self) -> int:
        return len(self._canon) + sum(len(v) for v in self._buckets.values())


def count_structures(graphs: Iterable[EvidenceGraph]) -> int:
    """Number of nonisomorphic structures among ``graphs`` (see :class:`StructureCounter`)."""
    counter = StructureCounter()
    for graph in graphs:
        counter.add(graph)
    return len(counter)


@dataclass(frozen=True)
class TextPath:
    """A path of evidence ids from the question, with its summed hop score."""

    ids: tuple[str, ...]
    score: float
