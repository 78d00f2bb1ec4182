"""Graph-hop (BGR) over a whole text index, hop by hop: no fixed candidate pool.

The closed setting (:func:`graphhop.retrieve.graphhop.retrieve_direction`) scores one pool per
question at every step. Here every step asks the index for its own candidates —
:meth:`graphhop.retrieve.texthop.HopSearch.candidates`: dense + BM25 with ``question [SEP] path`` as the
query, plus the entity links of the path's last passage — and BGR's matcher and path-code update
choose among them, exactly as over a pool (same pair features, thresholds, caps, question token).
Forward and backward run this way and are merged by :func:`~graphhop.retrieve.graphhop.merged_graph`.

Backward's first step matches the answer-bearing passages among the question's candidates; each
later step asks the index for the passages that lead to the path's last one (same query form).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import torch

from graphhop.graph import ROOT, EvidenceGraph
from graphhop.retrieve.bgr_model import InferenceSettings
from graphhop.retrieve.graphhop import (
    BGRModel,
    CandidatePool,
    DirectionModel,
    N_PAIR,
    DirectionResult,
    _graph_from_edges,
    _would_cycle,
    merged_graph,
    pair_features,
    token_set,
)
from graphhop.retrieve.texthop import HopSearch

__all__ = ["CandidateCache", "OpenBGR", "OpenSettings", "PATH_RANKS", "prune_paths", "retrieve_direction_open", "step_logits",
           "stop_choice"]


class CandidateCache:
    """Next-hop candidate ids from :class:`HopSearch`, memoized per ``(question, path)``.

    Forward and backward share the question's first hop; a selection grid re-running one question at
    many thresholds asks the index once per path. :meth:`prefetch` retrieves many paths in one batch
    (one encoder call, one BM25 and one dense search for all of them): BGR asks it for every child it
    chose before descending, so the depth-first walk pays one batched call per expanded node.
    """

    def __init__(self, search: HopSearch, k: int = 10, answer_reach: int = 0,
                 store: dict[tuple[str, tuple[str, ...]], list[str]] | None = None) -> None:
        self.search = search
        self.k = k
        # backward's first step: 0 = the question's own candidates (as forward's); r > 0 = where the answer
        # may be stated (HopSearch.answer_candidates: relation-word query + passages within r links)
        self.answer_reach = answer_reach
        self._ids: dict[tuple[str, tuple[str, ...]], list[str]] = {} if store is None else store

    def with_reach(self, answer_reach: int) -> "CandidateCache":
        """The same cache (same retrievals, shared) with another backward first step."""
        return CandidateCache(self.search, self.k, answer_reach, self._ids)

    def prefetch(self, question: str, paths: list[tuple[str, ...]]) -> None:
        """Retrieve every not-yet-cached path of ``question`` in one batch."""
        todo = [p for p in dict.fromkeys(tuple(p) for p in paths) if (question, p) not in self._ids]
        if todo:
            for p, ranking in zip(todo, self.search.candidates(question, todo, self.k)):
                self._ids[(question, p)] = [h.id for h in ranking]

    def ids(self, question: str, path: tuple[str, ...], k: int | None = None, direction: str = "forward") -> list[str]:
        """The top ``k`` (at most the cache's) next nodes of ``path`` (never one already on it), best first;
        backward's first step (empty path) with ``answer_reach``: the answer candidates."""
        if direction == "backward" and not path and self.answer_reach:
            key = (question, (f"\0answer:{self.answer_reach}",))
            if key not in self._ids:
                self._ids[key] = [h.id for h in self.search.answer_candidates(question, self.k, self.answer_reach)]
            return self._ids[key][: k or self.k]
        self.prefetch(question, [path])
        return self._ids[(question, tuple(path))][: k or self.k]

    def clear(self) -> None:
        """Forget every cached path (memory bound on long runs)."""
        self._ids.clear()


@dataclass
class OpenSettings(InferenceSettings):
    """Inference settings chosen in the open setting (stored as ``open_selection`` in the model card), and
    ``k``, the candidates fetched per path."""

    merge: str = "forward"
    k: int = 10
    answer_reach: int = 0  # backward's first step (CandidateCache): 0 = the question's candidates
    keep_paths: int = 0  # forward: keep the best N root-to-end paths (prune_paths; 0 = every path)
    keep_paths_backward: int = 0
    path_rank: str = "deep"  # prune_paths' order of paths: PATH_RANKS
    path_rank_backward: str = "deep"
    later_threshold_forward: float = -1.0  # the threshold after the first step (< 0: the direction's own)
    later_threshold_backward: float = -1.0
    go_forward: float = -1.0  # the stop head (retrieve/bgr_stop.py): continue probability that forces the best child
    stop_forward: float = -1.0  # ... and below which the path stops (< 0: off)
    go_backward: float = -1.0
    stop_backward: float = -1.0

    def stopping(self, direction: str) -> tuple[float, float]:
        """``(go, stop)`` of the stop head for ``direction`` (``< 0``: off)."""
        return (self.go_forward, self.stop_forward) if direction == "forward" else (self.go_backward, self.stop_backward)

    def later(self, direction: str) -> float | None:
        """The direction's threshold after its first step (``None``: :meth:`threshold` at every step)."""
        t = self.later_threshold_forward if direction == "forward" else self.later_threshold_backward
        return t if t >= 0 else None

    def pruning(self, direction: str) -> tuple[int, str]:
        """``(keep, rank)`` of :func:`prune_paths` for ``direction``."""
        if direction == "forward":
            return self.keep_paths, self.path_rank
        return self.keep_paths_backward, self.path_rank_backward

    @classmethod
    def from_config(cls, cfg: Any) -> "OpenSettings":
        """The closed-pool settings of a model config (the default when no open selection was made)."""
        return cls(cfg.threshold_forward, cfg.threshold_backward, cfg.max_branch, cfg.max_branch_backward,
                   cfg.merge, cfg.union_threshold)  # k: the default 10

    @classmethod
    def from_card(cls, card: dict[str, Any], cfg: Any) -> "OpenSettings":
        """``card['open_selection']`` when the card has one, else :meth:`from_config`."""
        sel = card.get("open_selection") or {}
        base = asdict(cls.from_config(cfg))
        return cls(**{k: type(v)(sel.get(k, v)) for k, v in base.items()})

    @classmethod
    def from_results(cls, path: str | Path) -> "OpenSettings":
        """The open settings a ``benchmarks/open_graph_eval.py`` run used (its results.json's
        ``meta.open_settings``); one line naming what is wrong otherwise."""
        from graphhop.core import InputError

        try:
            given = json.loads(Path(path).read_text(encoding="utf-8"))["meta"]["open_settings"]
        except OSError as exc:
            raise InputError(f"--settings {path}: cannot read it ({exc.strerror})") from None
        except (ValueError, KeyError, TypeError):
            raise InputError(f"--settings {path}: not an open_graph_eval.py results.json (no meta.open_settings)") from None
        if not isinstance(given, dict) or set(given) - set(asdict(cls())):
            raise InputError(f"--settings {path}: meta.open_settings is not a set of open settings")
        return cls(**given)


class _Seen:
    """Every passage met while retrieving one question (ids, texts, vectors, word sets)."""

    def __init__(self, search: HopSearch) -> None:
        self.search = search
        self.texts: dict[str, str] = {}
        self.tokens: dict[str, frozenset[str]] = {}

    def add(self, ids: list[str]) -> np.ndarray:
        for d in ids:
            if d not in self.texts:
                self.texts[d] = self.search.text(d)
                self.tokens[d] = token_set(self.texts[d])
        return self.search.vectors(ids)

    def pool(self) -> CandidatePool:
        ids = list(self.texts)
        return CandidatePool(ids, [self.texts[d] for d in ids], self.search.vectors(ids) if ids else np.zeros((0, 384)))


@torch.no_grad()
def step_logits(model: DirectionModel, question: str, qv: np.ndarray, q: torch.Tensor, code: torch.Tensor,
                search: HopSearch, seen: _Seen, path: tuple[str, ...], ids: list[str], with_tok: bool,
                relation: Any = None, direction: str = "forward") -> tuple[np.ndarray, torch.Tensor]:
    """The matcher's logits of ``ids`` (+ the question token last, ``with_tok``) after ``path`` (path code
    ``code``), with the pair features as over a pool; ``relation`` (``(RelationWords, RelationHead)``, see
    :mod:`graphhop.retrieve.bgr_relation`) adds the relation features. Also the projected candidates."""
    vecs = seen.add(ids)
    last = path[-1] if path else None
    pair = pair_features(qv, token_set(question), vecs, [seen.tokens[d] for d in ids],
                         search.vectors([last])[0] if last else None, seen.tokens[last] if last else frozenset(),
                         frozenset().union(*(seen.tokens[d] for d in path)) if path else frozenset(),
                         _path_vec(search, question, path, qv) if getattr(model.matcher, "n_pair", 0) > N_PAIR else None)
    cands = model.proj(torch.as_tensor(vecs, dtype=torch.float32)).unsqueeze(0)
    use_pair = getattr(model.matcher, "n_pair", 0) > 0
    scalar = torch.tensor([bool(path)]) if getattr(model, "scalar_after_first", False) else None
    link = None
    if getattr(model.matcher, "n_link", 0):  # the entity-link weight of each candidate (BGRConfig.link_feature)
        weights = search.linked(question, path)
        link = torch.tensor([[[weights.get(d, 0.0)] for d in ids]], dtype=torch.float32)
    logits = model.logits(code, q, cands, with_tok, torch.from_numpy(pair).unsqueeze(0) if use_pair else None, scalar,
                          link)[0].numpy()
    if relation is not None:
        words, head = relation
        feats = words.features(question, path, ids, seen.texts)
        logits = head.logits(logits, feats, direction)
    return logits, cands


@torch.no_grad()
def retrieve_direction_open(model: DirectionModel, question: str, question_vec: np.ndarray, search: HopSearch,
                            seen: _Seen, direction: str, threshold: float = 0.5, max_depth: int = 4,
                            max_edges: int = 16, max_branch: int = 3, k: int = 10,
                            cache: CandidateCache | None = None, relation: Any = None,
                            later_threshold: float | None = None, stop: Any = None,
                            stopping: tuple[float, float] = (-1.0, -1.0)) -> DirectionResult:
    """Depth-first BGR in one direction with per-step candidates from the whole index (``cache``: a
    shared :class:`CandidateCache`; the chosen children's candidates are fetched in one batch);
    ``relation``: the relation-aware score (:func:`step_logits`); ``later_threshold``: the match
    threshold after the first step (``None``: ``threshold`` at every step); ``stop``: a
    :class:`~graphhop.retrieve.bgr_stop.StopHead` (needs ``relation``) with ``stopping`` = ``(go, stop)``
    (:func:`stop_choice`)."""
    model.eval()
    cache = cache or CandidateCache(search, k)
    k = min(k, cache.k)
    backward = direction == "backward"
    qv = np.asarray(question_vec, dtype=np.float32).reshape(-1)
    q = model.proj(torch.as_tensor(qv).view(1, -1))
    g = nx.DiGraph()
    g.add_node(ROOT)
    scores: dict[str, float] = {}
    stack: list[tuple[tuple[str, ...], torch.Tensor]] = [((), q)]
    steps = 0

    def add(u: str, v: str) -> bool:
        if g.number_of_edges() >= max_edges or g.has_edge(u, v) or _would_cycle(g, u, v):
            return False
        g.add_edge(u, v)
        return True

    while stack:
        path, code = stack.pop()
        steps += 1
        if len(path) >= max_depth or g.number_of_edges() >= max_edges:
            if backward and path and not g.in_degree(path[-1]):
                add(ROOT, path[-1])
            continue
        ids = cache.ids(question, path, k, direction)
        if not ids:
            if backward and path and not g.in_degree(path[-1]):
                add(ROOT, path[-1])
            continue
        with_tok = backward and bool(path)
        logits, cands = step_logits(model, question, qv, q, code, search, seen, path, ids, with_tok, relation,
                                    direction)
        probs = torch.sigmoid(torch.from_numpy(logits)).numpy()
        n = len(ids)
        order = np.argsort(-probs[:n], kind="stable")
        thr = threshold if not path or later_threshold is None else later_threshold
        chosen = [int(i) for i in order[:max_branch] if probs[i] >= thr]
        if not path and not chosen:
            chosen = [int(order[0])]
        elif path and stop is not None and relation is not None:
            chosen = stop_choice(stop, stopping, relation[0], question, path, ids, seen.texts, logits, chosen,
                                 int(order[0]), direction)
        if with_tok and (probs[n] >= thr or not chosen):
            add(ROOT, path[-1])
        if len(path) + 1 < max_depth:
            cache.prefetch(question, [path + (ids[i],) for i in chosen])
        for i in reversed(chosen):
            v = ids[i]
            scores[v] = max(scores.get(v, 0.0), float(probs[i]))
            edge = None if (backward and not path) else ((ROOT, v) if not path else ((path[-1], v) if not backward else (v, path[-1])))
            if edge is not None and not add(*edge):
                continue
            if edge is None:
                g.add_node(v)
            stack.append((path + (v,), model.update(code, cands[:, i])))
    if backward:
        for v in list(g.nodes):
            if v != ROOT and g.in_degree(v) == 0:
                add(ROOT, v)
    return DirectionResult(list(g.edges), scores, steps)


def stop_choice(stop: Any, stopping: tuple[float, float], words: Any, question: str, path: tuple[str, ...],
                ids: list[str], texts: dict[str, str], logits: np.ndarray, chosen: list[int], best: int,
                direction: str) -> list[int]:
    """The children of a step after the first as the stop head has them: none when its continue probability is
    below ``stop``, the best candidate ``best`` when nothing passed the threshold and it is at least ``go``,
    else ``chosen`` (``stopping`` = ``(go, stop)``, each ``< 0`` = off)."""
    from graphhop.retrieve.bgr_stop import stop_features

    go, halt = stopping
    observe = getattr(stop, "observe", None)  # a recorder of the search's own steps (train/bgr_stop.search_steps)
    if go < 0 and halt < 0 and observe is None:
        return chosen
    feats = words.features(question, path, ids, texts)
    x = stop_features(words, question, path, texts, logits[: len(ids)], feats)
    p = stop.p_continue(x, direction)
    if observe is not None:
        observe(path, x)
    if halt >= 0 and p < halt:
        return []
    if go >= 0 and p >= go and not chosen:
        return [best]
    return chosen


#: How :func:`prune_paths` orders a direction's paths: ``deep`` = more hops first, then the product of the
#: nodes' match probabilities; ``prob`` = the product alone (a short path of sure matches may win).
PATH_RANKS = ("deep", "prob")


def prune_paths(result: DirectionResult, keep: int, rank: str = "deep") -> DirectionResult:
    """Only the best ``keep`` root-to-end paths of one direction's graph (0: ``result`` unchanged).

    The search keeps every child above the threshold, up to the branching, at every step: wide enough
    to reach the gold, it also keeps the branches that went wrong. Each path (root to a node with no
    child; both directions' graphs run from the root) is scored by ``rank`` (:data:`PATH_RANKS`) from the
    nodes' match probabilities; the edges of the best ``keep`` paths stay (ties: the search's order)."""
    if keep <= 0 or not result.edges:
        return result
    if rank not in PATH_RANKS:
        from graphhop.core import InputError

        raise InputError(f"path rank must be one of {', '.join(PATH_RANKS)}, got {rank!r}")
    g = nx.DiGraph(result.edges)
    ends = [n for n in g.nodes if n != ROOT and g.out_degree(n) == 0]
    paths = [p for end in ends for p in nx.all_simple_paths(g, ROOT, end)] if ROOT in g else []
    if len(paths) <= keep:
        return result

    def score(path: list[str]) -> tuple[float, ...]:
        prob = float(np.prod([result.scores.get(n, 1.0) for n in path[1:]]))
        return (len(path), prob) if rank == "deep" else (prob,)

    best = sorted(range(len(paths)), key=lambda i: score(paths[i]), reverse=True)[:keep]
    kept = {(u, v) for i in best for u, v in zip(paths[i], paths[i][1:])}
    nodes = {n for u, v in kept for n in (u, v)}
    return DirectionResult([e for e in result.edges if e in kept],
                           {n: s for n, s in result.scores.items() if n in nodes}, result.steps)


def _path_vec(search: HopSearch, question: str, path: tuple[str, ...], qv: np.ndarray) -> np.ndarray:
    """The path-text feature's query vector (``question [SEP] path``; the question alone at step 1)."""
    if not path:
        return qv
    vec = search.encoder.encode([search.query(question, path)], convert_to_numpy=True, normalize_embeddings=True)[0]
    return np.asarray(vec, dtype=np.float32)


class OpenBGR:
    """A trained BGR model run hop by hop over a text index; implements ``retrieve_graph``.

    ``settings`` (thresholds, branching, merge) default to the model card's closed-pool ones; pass
    :meth:`OpenSettings.from_card` to use those chosen in the open setting. ``cache`` (a
    :class:`CandidateCache`) may be shared across calls (a selection grid); by default each question
    gets its own. ``relation``: ``(RelationWords, RelationHead)``, the relation-aware matcher score
    (:mod:`graphhop.retrieve.bgr_relation`); ``stop``: a :class:`~graphhop.retrieve.bgr_stop.StopHead` used with
    the settings' ``go_*`` / ``stop_*`` (needs ``relation``).
    """

    name = "bgr-open"

    def __init__(self, model: BGRModel, search: HopSearch, k: int | None = None, mode: str = "bidirectional",
                 merge: str | None = None, settings: OpenSettings | None = None,
                 cache: CandidateCache | None = None, relation: Any = None, stop: Any = None) -> None:
        self.model = model
        self.cfg = model.cfg
        self.search = search
        self.settings = settings or OpenSettings.from_config(model.cfg)
        self.k = k or self.settings.k
        self.mode = mode
        self.merge = merge or self.settings.merge
        self.cache = cache
        self.relation = relation
        self.stop = stop
        self.last_candidates: list[str] = []

    def run(self, question: str, direction: str, seen: _Seen, question_vec: np.ndarray,
            cache: CandidateCache | None = None) -> DirectionResult:
        """One direction with the settings' threshold, branching and path pruning and the card's caps."""
        s, c = self.settings, self.cfg
        res = retrieve_direction_open(self.model.direction(direction), question, question_vec, self.search, seen,
                                      direction, s.threshold(direction), c.max_depth, c.max_edges, s.branch(direction),
                                      self.k, cache, self.relation, s.later(direction), self.stop,
                                      s.stopping(direction))
        return prune_paths(res, *s.pruning(direction))

    def directions(self, question: str) -> tuple[_Seen, DirectionResult | None, DirectionResult | None]:
        """Forward and backward results (``None`` for a direction the mode does not run)."""
        from graphhop.kb.verbalize import normalize_question

        query = normalize_question(question)
        qv = np.asarray(self.search.encoder.encode([query], convert_to_numpy=True, normalize_embeddings=True)[0],
                        dtype=np.float32)
        seen = _Seen(self.search)
        cache = self.cache or CandidateCache(self.search, self.k, self.settings.answer_reach)
        f = self.run(query, "forward", seen, qv, cache) if self.mode != "backward" else None
        b = self.run(query, "backward", seen, qv, cache) if self.mode != "forward" else None
        return seen, f, b

    def retrieve_graph(self, question: str) -> EvidenceGraph:
        """The evidence graph of ``question`` (forward, backward, or both merged)."""
        seen, f, b = self.directions(question)
        if f is None or b is None:
            res = f or b
            graph = _graph_from_edges(question, res.edges, seen.pool(), res.scores)
        else:
            graph = merged_graph(question, seen.pool(), f, b, self.merge, self.settings.union_threshold)
        graph.text_evidence = True
        self.last_candidates = list(seen.texts)
        return graph
