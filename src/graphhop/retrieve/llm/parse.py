"""From an LLM's reply text to an :class:`~graphhop.graph.EvidenceGraph`, tolerantly.

Models answer in many shapes; the parser reads all the formats the five prompts ask for
(:mod:`graphhop.retrieve.llm.prompts`) and repairs the usual mistakes instead of failing:

* code fences (```` ``` ````, ```` ```json ````), a heading line (``Graph:``), numbering (``1.``,
  ``Step 2:``), bullets and prose around the answer are ignored;
* edges are read from arrow lines (``->``, ``→``, ``=>``, ``<-``, ``←``; ``a <- b`` is ``b -> a``;
  ``Q -> e1, e2`` fans out), from JSON (``{"edges": [[u, v]]}``, ``[{"source", "target"}]``,
  ``{"chains": [[...]]}``, ``{"nodes": [...]}`` alone = a star) or from ``["u", "v"]`` pairs in broken JSON;
* ids are matched case-insensitively with or without brackets; ``Q`` / ``question`` / ``root``
  name the root; a bare number or ``evidence 3`` maps to the pool id with that number when the pool
  ids share one prefix (``e3``); any other id is dropped (noted);
* self-loops, edges into the root and edges that would close a cycle are dropped (first come, first
  kept); evidence left without a parent hangs from the root, so every node lies on a root path;
* a reply with ids but no edge becomes a chain of the ids in order of mention.

A reply with no usable id is *unparseable*: the graph is empty (scored as such) and the status says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import networkx as nx

from graphhop.graph import ROOT, EvidenceGraph

__all__ = ["ParseResult", "IdResolver", "parse_reply", "STATUSES"]

STATUSES = ("ok", "repaired", "unparseable")
_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n?|```")
_ARROW = re.compile(r"(-+>|→|⟶|=+>|<-+|←|⟵|<=+)")
_NUMBERING = re.compile(r"^\s*(?:[-*•>]+\s*)?(?:(?:step|chain|path|edge)\s*)?\d+\s*[.):]\s*", re.IGNORECASE)
_PAREN = re.compile(r"\([^()]*\)")
_PAIR = re.compile(r"""\[\s*["']([^"'\[\]]+)["']\s*,\s*["']([^"'\[\]]+)["']\s*\]""")
_ROOT_WORDS = re.compile(r"(?<![\w-])(?:Q|question|root)(?![\w-])", re.IGNORECASE)
_NUMBERED = re.compile(r"(?<![\w-])(?:(?:evidence|sentence|sent|fact|id)\s*#?|#)\s*(\d+)(?![\w-])", re.IGNORECASE)
_BARE = re.compile(r"^\W*(\d+)\W*$")


@dataclass
class ParseResult:
    """The parsed graph, ``status`` (one of :data:`STATUSES`) and the repairs made, in order."""

    graph: EvidenceGraph
    status: str
    repairs: list[str] = field(default_factory=list)


class IdResolver:
    """Maps the tokens a model writes to pool ids (or the root); see the module docstring."""

    def __init__(self, ids: Sequence[str]) -> None:
        self.ids = list(ids)
        self.lower = {i.lower(): i for i in self.ids}
        alts = sorted(self.ids, key=len, reverse=True)
        self.known = re.compile(r"(?<![\w-])(" + "|".join(re.escape(i) for i in alts) + r")(?![\w-])",
                                re.IGNORECASE) if alts else None
        m = [re.fullmatch(r"([A-Za-z_:-]*?)(\d+)", i) for i in self.ids]
        prefixes = {x.group(1) for x in m if x}
        self.prefix = prefixes.pop() if len(prefixes) == 1 and all(m) else None

    def find_all(self, token: str) -> tuple[list[str], list[str]]:
        """The ids (``ROOT`` for the question) named in ``token``, in order, and unknown mentions."""
        token = _PAREN.sub(" ", token)
        found: list[tuple[int, str]] = []
        spans: list[tuple[int, int]] = []
        if self.known is not None:
            for mt in self.known.finditer(token):
                found.append((mt.start(), self.lower[mt.group(1).lower()]))
                spans.append(mt.span())
        for mt in _ROOT_WORDS.finditer(token):
            if not any(a <= mt.start() < b for a, b in spans):
                found.append((mt.start(), ROOT))
                spans.append(mt.span())
        unknown: list[str] = []
        if self.prefix is not None:  # "evidence 3", "#3", or a token that is only a number
            numbered = list(_NUMBERED.finditer(token)) or list(_BARE.finditer(token))
            for mt in numbered:
                if any(a <= mt.start(1) < b for a, b in spans):
                    continue
                cand = f"{self.prefix}{int(mt.group(1))}"
                if cand.lower() in self.lower:
                    found.append((mt.start(), self.lower[cand.lower()]))
                else:
                    unknown.append(mt.group(0).strip())
        for mt in re.finditer(r"(?<![\w-])([A-Za-z]+\d+)(?![\w-])", token):  # id-shaped words not in the pool
            if not any(a <= mt.start() < b for a, b in spans) and mt.group(1).lower() not in self.lower:
                unknown.append(mt.group(1))
        found.sort()
        return list(dict.fromkeys(i for _, i in found)), unknown


def _strip_fences(text: str, repairs: list[str]) -> str:
    if "```" in text:
        repairs.append("code fence removed")
        return _FENCE.sub("\n", text)
    return text


def _json_candidates(text: str) -> list[Any]:
    out = []
    for opener, closer in (("{", "}"), ("[", "]")):
        i, j = text.find(opener), text.rfind(closer)
        if 0 <= i < j:
            try:
                out.append(json.loads(text[i : j + 1]))
            except json.JSONDecodeError:
                pass
    return out


def _edges_from_json(obj: Any) -> tuple[list[tuple[str, str]], list[list[str]], list[str]] | None:
    """``(edges, chains, nodes)`` as raw tokens from a JSON answer, or ``None`` if it has none of them."""
    if isinstance(obj, list):
        obj = {"edges": obj}
    if not isinstance(obj, dict):
        return None
    edges: list[tuple[str, str]] = []
    for e in obj.get("edges") or []:
        if isinstance(e, (list, tuple)) and len(e) == 2:
            edges.append((str(e[0]), str(e[1])))
        elif isinstance(e, dict):
            u = e.get("source", e.get("from", e.get("head")))
            v = e.get("target", e.get("to", e.get("tail")))
            if u is not None and v is not None:
                edges.append((str(u), str(v)))
        elif isinstance(e, str):
            parts = [p for p in _ARROW.split(e)]
            if len(parts) == 3:
                edges.append((parts[0], parts[2]) if parts[1].endswith(">") else (parts[2], parts[0]))
    chains = [[str(x) for x in c] for c in (obj.get("chains") or obj.get("paths") or []) if isinstance(c, list)]
    nodes = [str(n.get("id")) if isinstance(n, dict) else str(n) for n in (obj.get("nodes") or [])]
    if not edges and not chains and not nodes:
        return None
    return edges, chains, nodes


def _arrow_edges(text: str, resolve: IdResolver, repairs: list[str]) -> tuple[list[tuple[str, str]], bool]:
    """Edges from arrow lines; the flag says whether any line had an arrow."""
    edges: list[tuple[str, str]] = []
    any_arrow = False
    for raw in text.splitlines():
        line = _NUMBERING.sub("", raw)
        parts = _ARROW.split(line)
        if len(parts) < 3:
            continue
        any_arrow = True
        groups = []
        for tok in parts[0::2]:
            ids, unknown = resolve.find_all(tok)
            repairs.extend(f"unknown id {u!r} dropped" for u in unknown)
            groups.append(ids)
        for k, arrow in enumerate(parts[1::2]):
            left, right = groups[k], groups[k + 1]
            forward = arrow.endswith(">") or arrow in ("→", "⟶")
            for a in left:
                for b in right:
                    edges.append((a, b) if forward else (b, a))
    return edges, any_arrow


def _tokens_to_edges(pairs: list[tuple[str, str]], resolve: IdResolver, repairs: list[str]) -> list[tuple[str, str]]:
    out = []
    for u, v in pairs:
        us, uu = resolve.find_all(u)
        vs, vu = resolve.find_all(v)
        repairs.extend(f"unknown id {x!r} dropped" for x in uu + vu)
        out.extend((a, b) for a in us[:1] for b in vs[:1])
    return out


def _read_edges(text: str, resolve: IdResolver, repairs: list[str]) -> list[tuple[str, str]]:
    """Every edge the reply states, as resolved ids (root = ``ROOT``), in order of appearance."""
    for obj in _json_candidates(text):
        got = _edges_from_json(obj)
        if got is None:
            continue
        raw_edges, chains, nodes = got
        edges = _tokens_to_edges(raw_edges, resolve, repairs)
        for chain in chains:
            steps = [resolve.find_all(t)[0][:1] for t in chain]
            ids = [s[0] for s in steps if s]
            if ids and ids[0] != ROOT:
                ids = [ROOT, *ids]
            edges.extend(zip(ids, ids[1:]))
        if not edges and nodes:
            repairs.append("JSON nodes without edges: attached to Q")
            edges = [(ROOT, i) for t in nodes for i in resolve.find_all(t)[0][:1] if i != ROOT]
        return edges
    edges, any_arrow = _arrow_edges(text, resolve, repairs)
    if edges or any_arrow:
        return edges
    pairs = _PAIR.findall(text)
    if pairs:
        repairs.append("edge pairs read from malformed JSON")
        return _tokens_to_edges(pairs, resolve, repairs)
    ids, unknown = resolve.find_all(text)
    repairs.extend(f"unknown id {u!r} dropped" for u in unknown)
    ids = [i for i in ids if i != ROOT]
    if ids:
        repairs.append("no edges: chain of the mentioned ids")
        return list(zip([ROOT, *ids], ids))
    return []


def _assemble(edges: list[tuple[str, str]], repairs: list[str]) -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_node(ROOT)
    for u, v in edges:
        if u == v:
            repairs.append(f"self-loop on {u} dropped")
        elif v == ROOT:
            repairs.append(f"edge {u} -> Q into the root dropped")
        elif g.has_edge(u, v):
            continue
        elif u in g and v in g and nx.has_path(g, v, u):
            repairs.append(f"edge {u} -> {v} closes a cycle: dropped")
        else:
            g.add_edge(u, v)
    for n in list(g.nodes):
        if n != ROOT and g.in_degree(n) == 0:
            repairs.append(f"{n} had no parent: attached to Q")
            g.add_edge(ROOT, n)
    return g


def parse_reply(text: str, question: str, ids: Sequence[str], texts: Sequence[str] | None = None,
                facts: Sequence[Any] | None = None) -> ParseResult:
    """Parse a reply over the pool ``ids`` (with their ``texts`` / ``facts`` for the nodes)."""
    repairs: list[str] = []
    resolve = IdResolver(ids)
    body = _strip_fences(text or "", repairs)
    edges = _read_edges(body, resolve, repairs)
    graph = EvidenceGraph(question)
    if not edges:
        return ParseResult(graph, "unparseable", repairs + ["no evidence id found"])
    g = _assemble(edges, repairs)
    text_of = dict(zip(ids, texts or [""] * len(ids)))
    facts_of = dict(zip(ids, facts or [[]] * len(ids)))
    for n in nx.topological_sort(g):
        if n != ROOT:
            graph.add_evidence(n, text_of.get(n, ""), facts_of.get(n, []) or [])
    for u, v in g.edges:
        graph.add_edge(u, v)
    return ParseResult(graph, "repaired" if repairs else "ok", list(dict.fromkeys(repairs)))
