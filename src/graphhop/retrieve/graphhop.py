"""Graph-hop retrieval (BGR): forward, backward and bidirectional evidence-graph retrieval.

The model (Graph-hop paper, Sec. 3), on top of a *frozen* sentence encoder:

* the question and every candidate evidence are encoded once (bundled MiniLM by default); a small
  projection maps them to ``dim``;
* a **path code** starts from the projected question encoding. When a node joins a path, an
  attention update (:class:`PathCodeUpdate`) combines the path code with the new node into the
  next path code;
* a **matcher** (:class:`Matcher`, a feed-forward network over the path code, the candidate and
  their products, plus the question; not a similarity threshold) gives each candidate a match
  probability; every candidate above ``threshold`` (at most ``max_branch``) continues the path, so a
  node may open several outgoing paths (the path set H_i);
* retrieval is depth-first and stops on a path when no new node is matched, or at ``max_depth``
  evidence per path / ``max_edges`` edges per graph.

Directions:

* **forward**: from the question towards the answer-bearing evidence; children of the path's last
  node are matched;
* **backward**: from the answer-bearing evidence back to the question. *Leaves at inference*: the
  first step of the backward model matches, from the question's path code, the answer-bearing
  evidence (the sinks) in the pool — it is trained on exactly that target. Each later step matches
  the parents of the path's last node among the pool plus a learned **question token**; matching the
  question token adds the edge ``question -> node``. A path that stops (or hits ``max_depth``)
  without matching anything is attached to the question, so every retrieved node lies on a root path.

Merge rules (:func:`merged_graph`): ``intersect`` (the paper: keep the edges found in both
directions, then drop every node and edge that is not on a root path — the composition
``forward & backward`` of the two directions' graphs, by :func:`graphhop.pipeline.ops.intersect_graphs`),
``nodes`` (keep the nodes found by both, with the union of their edges; a kept node left without a
parent hangs from the question), ``union`` (both graphs' edges among the nodes found by both directions or found by one
with a match probability >= ``union_threshold``), ``backward`` (the released code: backward edges only)
and ``forward``.

Design choice for this CPU machine: the paper fine-tunes the encoder; here it is frozen and
vectors are cached, and only the projection, matcher and path-code update are trained
(:mod:`graphhop.train.bgr`). That trains in minutes on 2 cores.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import networkx as nx
import numpy as np
import torch

from graphhop.core import GraphhopError, InputError
from graphhop.graph import ROOT, EvidenceGraph
from graphhop.retrieve.bgr_model import (  # noqa: F401 - the model's names are part of this module's API
    MERGE_RULES,
    BGRConfig,
    PathCodeUpdate,
    Matcher,
    pair_features,
    path_text,
    token_set,
    DirectionModel,
    BGRModel,
    N_PAIR,
)

__all__ = [
    "BGRConfig",
    "PathCodeUpdate",
    "Matcher",
    "DirectionModel",
    "BGRModel",
    "CandidatePool",
    "DirectionResult",
    "retrieve_direction",
    "merge_graphs",
    "merged_graph",
    "MERGE_RULES",
    "BGRRetriever",
    "save_model",
    "load_model",
    "retrievable_graph",
]

MODEL_FILE = "bgr.pt"
CARD_FILE = "model_card.json"


# ---------------------------------------------------------------------- inference
@dataclass
class CandidatePool:
    """A question's candidate evidence: ids, texts, facts and their encoder vectors ``[P, input_dim]``."""

    ids: list[str]
    texts: list[str]
    vectors: np.ndarray
    facts: list[list[list[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.texts) or len(self.ids) != len(self.vectors):
            raise InputError(f"candidate pool: {len(self.ids)} ids, {len(self.texts)} texts, {len(self.vectors)} vectors")
        if len(set(self.ids)) != len(self.ids):
            raise InputError("candidate pool: evidence ids repeat")
        if not self.facts:
            self.facts = [[] for _ in self.ids]
        self._tokens: list[frozenset[str]] | None = None

    @property
    def tokens(self) -> list[frozenset[str]]:
        """Word sets of the texts (for pair features), computed once."""
        if self._tokens is None:
            self._tokens = [token_set(t) for t in self.texts]
        return self._tokens


@dataclass
class DirectionResult:
    """Edges (reasoning direction, root = :data:`ROOT`) and each node's best match probability."""

    edges: list[tuple[str, str]]
    scores: dict[str, float]
    steps: int = 0


def _normalize(question: str) -> str:
    from graphhop.kb.verbalize import normalize_question

    return normalize_question(question)


def _would_cycle(g: nx.DiGraph, u: str, v: str) -> bool:
    return u == v or (v in g and u in g and nx.has_path(g, v, u))


def _add_edge(g: nx.DiGraph, u: str, v: str, max_edges: int) -> bool:
    """Add ``u -> v`` unless the graph is full, has it, or it would close a cycle."""
    if g.number_of_edges() >= max_edges or g.has_edge(u, v) or _would_cycle(g, u, v):
        return False
    g.add_edge(u, v)
    return True


class _PairFeatures:
    """The matcher's pair features of a path over ``pool`` (``None`` for models without them)."""

    def __init__(self, model: DirectionModel, question_vec: np.ndarray, pool: CandidatePool, question_text: str,
                 encode: Callable[[list[str]], np.ndarray] | None) -> None:
        n_pair = getattr(getattr(model, "matcher", None), "n_pair", 0)
        self.use, self.use_path_text = n_pair > 0, n_pair > N_PAIR
        if self.use_path_text and encode is None:
            raise GraphhopError("this BGR model uses the path-text feature: retrieval needs an encoder")
        self.pool, self.question_text, self.encode = pool, question_text, encode
        self.q_tokens = token_set(question_text) if self.use else frozenset()
        self.qv = np.asarray(question_vec, dtype=np.float32).reshape(-1)

    def __call__(self, path: tuple[int, ...]) -> torch.Tensor | None:
        if not self.use:
            return None
        pool, toks = self.pool, self.pool.tokens
        last = path[-1] if path else None
        path_vec = None
        if self.use_path_text:
            path_vec = self.encode([path_text(self.question_text, [pool.texts[i] for i in path])])[0] if path else self.qv
        feats = pair_features(self.qv, self.q_tokens, pool.vectors, toks,
                              pool.vectors[last] if last is not None else None,
                              toks[last] if last is not None else frozenset(),
                              frozenset().union(*(toks[i] for i in path)) if path else frozenset(), path_vec)
        return torch.from_numpy(feats).unsqueeze(0)


@torch.no_grad()
def retrieve_direction(
    model: DirectionModel,
    question_vec: np.ndarray,
    pool: CandidatePool,
    direction: str,
    threshold: float = 0.5,
    max_depth: int = 4,
    max_edges: int = 16,
    max_branch: int = 3,
    question_text: str = "",
    encode: Callable[[list[str]], np.ndarray] | None = None,
) -> DirectionResult:
    """Depth-first retrieval in one direction over ``pool`` (see the module docstring).

    Forward: each matched child ``c`` of the path's last node ``u`` adds ``u -> c``. Backward: the
    first step matches leaves; a matched parent ``p`` of ``u`` adds ``p -> u``; the question token
    adds ``root -> u``. At the first step only, the best candidate is matched even when none passes
    the threshold, so a graph is never empty. ``encode`` is needed by models with the path-text feature.
    """
    model.eval()
    backward = direction == "backward"
    q = model.proj(torch.as_tensor(question_vec, dtype=torch.float32).view(1, -1))
    cands = model.proj(torch.as_tensor(pool.vectors, dtype=torch.float32)).unsqueeze(0)  # [1, P, d]
    n = len(pool.ids)
    g = nx.DiGraph()
    g.add_node(ROOT)
    scores: dict[str, float] = {}
    steps = 0
    # stack of (pool index of the path's last node or -1 for the question, path indices, code)
    stack: list[tuple[int, tuple[int, ...], torch.Tensor]] = [(-1, (), q)]
    scalar_after_first = bool(getattr(model, "scalar_after_first", False))
    pair_for = _PairFeatures(model, question_vec, pool, question_text, encode)
    while stack:
        node, path, code = stack.pop()
        steps += 1
        if len(path) >= max_depth or g.number_of_edges() >= max_edges:
            if backward and path and not g.in_degree(pool.ids[node]):
                _add_edge(g, ROOT, pool.ids[node], max_edges)
            continue
        with_tok = backward and node >= 0
        scalar = [torch.tensor([bool(path)])] if scalar_after_first else []  # steps >= 2: pair features alone
        probs = torch.sigmoid(model.logits(code, q, cands, with_tok, pair_for(path), *scalar)[0]).numpy()
        cand_probs = probs[:n].copy()
        if path:
            cand_probs[list(path)] = -1.0
        order = np.argsort(-cand_probs, kind="stable")
        chosen = [int(i) for i in order[:max_branch] if cand_probs[i] >= threshold]
        if node < 0 and not chosen and n:
            chosen = [int(order[0])]
        if with_tok and (probs[n] >= threshold or not chosen):  # the question token, or nothing: attach
            _add_edge(g, ROOT, pool.ids[node], max_edges)
        for i in reversed(chosen):  # reversed: the best candidate is explored first (LIFO)
            v = pool.ids[i]
            scores[v] = max(scores.get(v, 0.0), float(cand_probs[i]))
            if node < 0 and backward:
                g.add_node(v)  # a backward leaf: its edges come from its parents
            else:
                u = ROOT if node < 0 else pool.ids[node]
                if not _add_edge(g, *((v, u) if backward else (u, v)), max_edges):
                    continue
            stack.append((i, path + (i,), model.update(code, cands[:, i])))
    if backward:  # leaves never given a parent (edge cap) hang from the question
        for v in list(g.nodes):
            if v != ROOT and g.in_degree(v) == 0:
                _add_edge(g, ROOT, v, max_edges)
    return DirectionResult([(u, v) for u, v in g.edges], scores, steps)


def _graph_from_edges(question: str, edges: Iterable[tuple[str, str]], pool: CandidatePool,
                      scores: dict[str, float] | None = None) -> EvidenceGraph:
    """An evidence graph from reasoning edges, keeping only nodes on a root path; an edge that
    would close a cycle is skipped (edges are taken in the given order)."""
    g = nx.DiGraph()
    g.add_node(ROOT)
    for u, v in edges:
        if u != v and v != ROOT and not _would_cycle(g, u, v):
            g.add_edge(u, v)
    keep = nx.descendants(g, ROOT)
    pos = {eid: i for i, eid in enumerate(pool.ids)}
    out = EvidenceGraph(question)
    for node in nx.topological_sort(g.subgraph(keep | {ROOT})):
        if node == ROOT:
            continue
        i = pos[node]
        out.add_evidence(node, pool.texts[i], pool.facts[i])
        if scores is not None and node in scores:
            out.g.nodes[node]["score"] = scores[node]
    for u, v in g.edges:
        if u in out.g and v in out.g:
            out.add_edge(u, v)
    return out


def merge_graphs(
    forward: DirectionResult,
    backward: DirectionResult,
    rule: str = "nodes",
    union_threshold: float = 0.8,
) -> tuple[list[tuple[str, str]], dict[str, float]]:
    """Merge the two directions' edges by a rule other than ``intersect`` (that one is the graph
    intersection, :func:`merged_graph`); returns edges and scores (see the module docstring).

    Scores are the mean of the two directions' match probabilities (0 for a missing direction).
    """
    if rule not in MERGE_RULES or rule == "intersect":
        rules = ", ".join(r for r in MERGE_RULES if r != "intersect")
        raise InputError(f"merge rule must be one of {rules} (intersect: merged_graph), got {rule!r}")
    nodes = set(forward.scores) | set(backward.scores)
    scores = {n: (forward.scores.get(n, 0.0) + backward.scores.get(n, 0.0)) / 2 for n in nodes}
    fe, be = set(forward.edges), set(backward.edges)
    if rule == "forward":
        return sorted(fe), scores
    if rule == "backward":
        return sorted(be), scores
    f_nodes = {v for e in fe for v in e} - {ROOT}
    b_nodes = {v for e in be for v in e} - {ROOT}
    keep = f_nodes & b_nodes
    if rule == "union":  # also a node found by one direction with a match probability >= union_threshold
        best = {n: max(forward.scores.get(n, 0.0), backward.scores.get(n, 0.0)) for n in nodes}
        keep |= {n for n in f_nodes | b_nodes if best.get(n, 0.0) >= union_threshold}
    # forward edges first, then backward ones that do not close a cycle
    g = nx.DiGraph()
    for u, v in sorted(fe) + sorted(be - fe):
        if (u == ROOT or u in keep) and v in keep and not _would_cycle(g, u, v):
            g.add_edge(u, v)
    for n in sorted(keep):  # a kept node left without a parent hangs from the question
        if n not in g or g.in_degree(n) == 0:
            g.add_edge(ROOT, n)
    return list(g.edges), scores


def merged_graph(question: str, pool: CandidatePool, forward: DirectionResult, backward: DirectionResult,
                 rule: str = "intersect", union_threshold: float = 0.8) -> EvidenceGraph:
    """The evidence graph of both directions merged by ``rule``.

    ``intersect`` (the paper's rule) is the composition ``forward & backward``: each direction's graph,
    intersected by :func:`graphhop.pipeline.ops.intersect_graphs` (what ``&`` does to graphs). The
    other rules are node-level and single-direction merges (:func:`merge_graphs`).
    """
    if rule == "intersect":
        from graphhop.pipeline.ops import intersect_graphs

        return intersect_graphs(_graph_from_edges(question, forward.edges, pool, forward.scores),
                                _graph_from_edges(question, backward.edges, pool, backward.scores))
    edges, scores = merge_graphs(forward, backward, rule, union_threshold)
    return _graph_from_edges(question, edges, pool, scores)


# ---------------------------------------------------------------------- the retriever
class BGRRetriever:
    """Bidirectional graph retriever over a candidate pool: :meth:`retrieve_pool` (the open setting
    takes the pool from a first stage: :class:`graphhop.pipeline.bgr.BGRGraphs`)."""

    def __init__(self, model: BGRModel, encode: Callable[[list[str]], np.ndarray] | None = None,
                 mode: str | None = None) -> None:
        self.model = model
        self.cfg = model.cfg
        self.encode = encode
        self.mode = mode or "bidirectional"
        self._query = ""
        model.eval()

    def run_direction(self, question_vec: np.ndarray, pool: CandidatePool, direction: str) -> DirectionResult:
        """One direction with the configured threshold and caps."""
        c = self.cfg
        thr = c.threshold_forward if direction == "forward" else c.threshold_backward
        return retrieve_direction(self.model.direction(direction), question_vec, pool, direction, thr,
                                  c.max_depth, c.max_edges, c.branch(direction), self._query, self.encode)

    def retrieve_pool(self, question: str, pool: CandidatePool, question_vec: np.ndarray | None = None,
                      mode: str | None = None, merge: str | None = None, query: str | None = None) -> EvidenceGraph:
        """The evidence graph of ``question`` over ``pool``; ``mode`` is forward, backward or bidirectional.
        ``query`` is the text whose words feed the pair features (default: the normalized question)."""
        mode = mode or self.mode
        self._query = query if query is not None else _normalize(question)
        if question_vec is None:
            if self.encode is None:
                raise GraphhopError("BGRRetriever needs an encoder or a question vector")
            question_vec = self.encode([self._query])[0]
        if mode in ("forward", "backward"):
            res = self.run_direction(question_vec, pool, mode)
            return _graph_from_edges(question, res.edges, pool, res.scores)
        if mode != "bidirectional":
            raise InputError(f"mode must be forward, backward or bidirectional, got {mode!r}")
        f = self.run_direction(question_vec, pool, "forward")
        b = self.run_direction(question_vec, pool, "backward")
        return merged_graph(question, pool, f, b, merge or self.cfg.merge, self.cfg.union_threshold)


# ---------------------------------------------------------------------- persistence
def save_model(model: BGRModel, out_dir: str | Path, card: dict[str, Any] | None = None) -> Path:
    """Write ``bgr.pt`` and ``model_card.json`` atomically (a temp dir renamed over ``out_dir``)."""
    from graphhop.io import atomic_dir

    out = Path(out_dir)
    with atomic_dir(out, overwrite=True, replace_if=(CARD_FILE, MODEL_FILE)) as tmp:
        torch.save(model.state_dict(), tmp / MODEL_FILE)
        full = {"kind": "graphhop-bgr", "version": 1, "config": asdict(model.cfg),
                "saved": time.strftime("%Y-%m-%dT%H:%M:%S"), **(card or {})}
        (tmp / CARD_FILE).write_text(json.dumps(full, indent=2) + "\n", encoding="utf-8")
    return out


def load_model(model_dir: str | Path) -> tuple[BGRModel, dict[str, Any]]:
    """Load a model dir written by :func:`save_model`; returns the model (eval mode) and its card."""
    path = Path(model_dir)
    card_path = path / CARD_FILE
    if not card_path.exists() or not (path / MODEL_FILE).exists():
        raise InputError(f"{path}: not a BGR model dir (needs {MODEL_FILE} and {CARD_FILE})")
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{card_path}: invalid JSON ({exc.msg})") from None
    if card.get("kind") != "graphhop-bgr":
        raise InputError(f"{card_path}: not a BGR model card (kind={card.get('kind')!r})")
    conf = dict(card.get("config", {}))
    conf.setdefault("pair_features", False)  # cards written before pair features existed
    conf.setdefault("path_text_feature", False)
    cfg = BGRConfig.from_card(conf)
    model = BGRModel(cfg)
    try:
        state = torch.load(path / MODEL_FILE, map_location="cpu", weights_only=True)
        model.load_state_dict(state)
    except (RuntimeError, OSError, EOFError) as exc:
        raise InputError(f"{path / MODEL_FILE}: cannot load the weights ({str(exc).splitlines()[0]})") from None
    model.eval()
    return model, card


# ---------------------------------------------------------------------- gold graphs
def retrievable_graph(gold: EvidenceGraph, pool_ids: Sequence[str]) -> EvidenceGraph:
    """The gold graph contracted onto the retrievable evidence (those in the pool).

    ``u -> v`` (``u`` the root or a pool node, ``v`` a pool node) when the gold graph has a path
    ``u ~> v`` whose inner nodes are all outside the pool. For builder datasets the pool holds every
    gold node and the graph is unchanged; for EntailmentBank the intermediate conclusions and the
    hypothesis are generated, not retrieved, so the tree becomes ``question -> each leaf sentence``.
    """
    keep = set(pool_ids) & set(gold.evidence_ids)
    if keep == set(gold.evidence_ids):
        return gold
    out = EvidenceGraph(gold.question, gold.root, gold.text_evidence)
    for n in gold.evidence_ids:
        if n in keep:
            d = gold.g.nodes[n]
            out.add_evidence(n, d.get("text", ""), d.get("facts", []), d.get("kind", "evidence"))
    for u in [gold.root, *keep]:
        seen: set[str] = set()
        stack = list(gold.g.successors(u))
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            if v in keep:
                out.add_edge(u, v)
            else:
                stack.extend(gold.g.successors(v))
    return out
