"""Teacher-forced training of the Graph-hop retriever (BGR) on cached, frozen encoder vectors.

Targets (:func:`forward_targets`, :func:`backward_targets`): for every simple path from the root
of the (retrievable) gold graph, the path prefix is fed to the model and the multilabel target is
the set of the last node's children (forward) or parents (backward). Both directions also learn
when to stop: a prefix ending at a sink (forward) has no positive target. Backward starts from the
question with the sinks as target (how leaves are found at inference) and marks a parent that is
the question with the question token. A 1-hop fact (root-adjacent *and* a sink) is therefore a
positive root child in forward and a positive leaf with the question as parent in backward — the
released code labels it 0 in both; we do not.

The loss is binary cross-entropy over the candidates of each prefix (pool nodes not on the path, plus
the question token in backward). Each epoch scores the selection set with the real depth-first retrieval
(evidence-set F1 per direction) and keeps the best weights of each direction. Examples: :mod:`graphhop.train.bgr_data`.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import torch
from torch import nn

from graphhop.core import InputError
from graphhop.graph import ROOT, EvidenceGraph
from graphhop.metrics.graph import set_scores
from graphhop.retrieve.graphhop import (
    MERGE_RULES, N_PAIR, BGRConfig, BGRModel, merged_graph, retrieve_direction, save_model, _graph_from_edges, pair_features, path_text,
)
from graphhop.train.bgr_data import BGRExample

__all__ = [
    "QUESTION_TOKEN",
    "forward_targets",
    "backward_targets",
    "TrainConfig",
    "bgr_loss_batch",
    "train_bgr",
    "select_inference",
    "predict_direction_results",
    "gold_order",
    "train_pool_generator",
]

#: The target id of the question in backward targets (the learned question token).
QUESTION_TOKEN = ROOT


# ---------------------------------------------------------------------- teacher-forcing targets
def _simple_paths(succ: Callable[[str], list[str]], start: str, limit: int) -> list[tuple[str, ...]]:
    """Every simple path from ``start`` (excluded) as a tuple, the empty path first; at most ``limit``."""
    out: list[tuple[str, ...]] = [()]
    stack: list[tuple[str, tuple[str, ...]]] = [(start, ())]
    while stack and len(out) < limit:
        node, path = stack.pop()
        for nxt in reversed(succ(node)):
            if nxt in path or nxt == start:
                continue
            p = path + (nxt,)
            out.append(p)
            if len(out) >= limit:
                break
            stack.append((nxt, p))
    return out


def forward_targets(graph: EvidenceGraph, limit: int = 64) -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """``(prefix, children of its last node)`` for every simple root path prefix (root: the empty prefix)."""
    succ = lambda n: list(graph.g.successors(n))  # noqa: E731
    return [(p, frozenset(succ(p[-1] if p else graph.root))) for p in _simple_paths(succ, graph.root, limit)]


def backward_targets(graph: EvidenceGraph, limit: int = 64) -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """``(prefix, parents of its last node)`` walking from the sinks up; the empty prefix targets the
    sinks, and a parent that is the root appears as :data:`QUESTION_TOKEN`. Prefixes are upward paths."""
    sinks = graph.sinks()
    start = "\x00start"

    def up(n: str) -> list[str]:
        if n == start:
            return list(sinks)
        return [p for p in graph.g.predecessors(n) if p != graph.root]

    out = []
    for p in _simple_paths(up, start, limit):
        if not p:
            out.append((p, frozenset(sinks)))
        else:
            parents = {QUESTION_TOKEN if x == graph.root else x for x in graph.g.predecessors(p[-1])}
            out.append((p, frozenset(parents)))
    return out


# ---------------------------------------------------------------------- training
@dataclass
class TrainConfig:
    """Training settings (stored in the model card)."""

    epochs: int = 20
    batch_size: int = 64
    lr: float = 1e-3
    weight_decay: float = 0.01
    pos_weight: float = 2.0
    max_prefixes: int = 64
    max_minutes: float = 10.0
    dev_limit: int = 200
    seed: int = 13
    threads: int = 2
    patience: int = 5


@dataclass
class _Item:
    ex: int
    prefix: list[int]
    targets: list[int]  # pool indices; len(pool) = the question token
    direction: str
    path_vec: np.ndarray | None = None  # encoder vector of ``query [SEP] path texts`` (path-text feature)
    cands: list[int] | None = None  # pool indices scored for this prefix (None: the whole pool but the path)


def _items(examples: Sequence[BGRExample], direction: str, limit: int) -> list[_Item]:
    out = []
    for i, ex in enumerate(examples):
        pos = {eid: j for j, eid in enumerate(ex.pool.ids)}
        n = len(ex.pool.ids)
        fn = forward_targets if direction == "forward" else backward_targets
        for prefix, targets in fn(ex.gold, limit):
            tg = [n if t == QUESTION_TOKEN else pos[t] for t in targets if t == QUESTION_TOKEN or t in pos]
            cands = None
            if ex.prefix_cands is not None:  # open training: this prefix's retrieved candidates + its targets
                cands = list(dict.fromkeys([pos[d] for d in ex.prefix_cands.get(prefix, []) if d in pos and d not in prefix]
                                           + [t for t in tg if t < n]))
            out.append(_Item(i, [pos[p] for p in prefix], tg, direction, cands=cands))
    return out


def _attach_path_vecs(examples: Sequence[BGRExample], items: Sequence[_Item], encode: Callable[[list[str]], np.ndarray]) -> None:
    """Encode every prefix's ``query [SEP] path texts`` once (batched) for the path-text feature."""
    texts = [path_text(examples[it.ex].query, [examples[it.ex].pool.texts[j] for j in it.prefix]) for it in items if it.prefix]
    vecs = encode(list(dict.fromkeys(texts)))
    by_text = dict(zip(dict.fromkeys(texts), vecs))
    for it in items:
        ex = examples[it.ex]
        it.path_vec = by_text[path_text(ex.query, [ex.pool.texts[j] for j in it.prefix])] if it.prefix else ex.question_vec


def bgr_loss_batch(model: BGRModel, examples: Sequence[BGRExample], items: Sequence[_Item], pos_weight: float = 2.0) -> torch.Tensor:
    """Multilabel BCE of one batch of teacher-forced prefixes (all of one direction)."""
    direction = items[0].direction
    dm = model.direction(direction)
    backward = direction == "backward"
    B = len(items)
    subs = [it.cands if it.cands is not None else list(range(len(examples[it.ex].pool.ids))) for it in items]
    P = max(1, max(len(sub) for sub in subs))
    L = max(1, max(len(it.prefix) for it in items))
    dim_in = examples[items[0].ex].question_vec.shape[0]
    cands = np.zeros((B, P, dim_in), dtype=np.float32)
    pref_vecs = np.zeros((B, L, dim_in), dtype=np.float32)
    qv = np.zeros((B, dim_in), dtype=np.float32)
    cmask = np.zeros((B, P + 1), dtype=bool)
    valid = np.zeros((B, L), dtype=bool)
    target = np.zeros((B, P + 1), dtype=np.float32)
    use_pair = dm.matcher.n_pair > 0
    pair = np.zeros((B, P, dm.matcher.n_pair), dtype=np.float32) if use_pair else None
    link = np.zeros((B, P, 1), dtype=np.float32) if getattr(dm.matcher, "n_link", 0) else None
    for b, (it, sub) in enumerate(zip(items, subs)):
        ex = examples[it.ex]
        n, m = len(ex.pool.ids), len(sub)
        if link is not None and ex.prefix_links is not None:  # this prefix's entity-link weights (open training)
            weights = ex.prefix_links.get(tuple(ex.pool.ids[j] for j in it.prefix), {})
            link[b, :m, 0] = [weights.get(ex.pool.ids[i], 0.0) for i in sub]
        vecs = ex.pool.vectors[sub] if m else np.zeros((0, dim_in), dtype=np.float32)
        if use_pair:
            toks = ex.pool.tokens
            last = it.prefix[-1] if it.prefix else None
            pair[b, :m] = pair_features(ex.question_vec, ex.q_tokens, vecs, [toks[i] for i in sub],
                                        ex.pool.vectors[last] if last is not None else None,
                                        toks[last] if last is not None else frozenset(),
                                        frozenset().union(*(toks[i] for i in it.prefix)) if it.prefix else frozenset(),
                                        it.path_vec if dm.matcher.n_pair > N_PAIR else None)
        cands[b, :m] = vecs
        qv[b] = ex.question_vec
        at = {j: i for i, j in enumerate(sub)}
        cmask[b, :m] = True
        if backward and it.prefix:
            cmask[b, P] = True  # the question token is a candidate after the first backward step
        for t, j in enumerate(it.prefix):
            pref_vecs[b, t] = ex.pool.vectors[j]
            valid[b, t] = True
            if j in at:
                cmask[b, at[j]] = False
        for j in it.targets:
            if j == n:
                target[b, P] = 1.0
            elif j in at:
                target[b, at[j]] = 1.0
    c = dm.proj(torch.from_numpy(cands))
    q = dm.proj(torch.from_numpy(qv))
    pref = dm.proj(torch.from_numpy(pref_vecs))
    code = dm.path_codes(q, pref, torch.from_numpy(valid))
    scalar = torch.from_numpy(valid.any(axis=1)) if dm.scalar_after_first else None  # steps >= 2
    logits = dm.logits(code, q, c, True, torch.from_numpy(pair) if use_pair else None, scalar,
                       torch.from_numpy(link) if link is not None else None)  # [B, P+1]
    mask = torch.from_numpy(cmask)
    loss = nn.functional.binary_cross_entropy_with_logits(
        logits, torch.from_numpy(target), pos_weight=torch.tensor(pos_weight), reduction="none")
    return (loss * mask).sum() / mask.sum().clamp(min=1)


def predict_direction_results(model: BGRModel, examples: Sequence[BGRExample], direction: str, threshold: float,
                              branch: int | None = None, encode: Callable[[list[str]], np.ndarray] | None = None):
    """Raw :class:`~graphhop.retrieve.graphhop.DirectionResult` per example."""
    c = model.cfg
    return [retrieve_direction(model.direction(direction), ex.question_vec, ex.pool, direction, threshold,
                               c.max_depth, c.max_edges, branch or c.branch(direction), ex.query, encode) for ex in examples]


def _mean_f1(results, examples: Sequence[BGRExample]) -> float:
    scores = []
    for r, ex in zip(results, examples):
        g = _graph_from_edges(ex.question, r.edges, ex.pool)
        scores.append(set_scores(g.evidence_ids, ex.gold.evidence_ids).f1)
    return float(np.mean(scores)) if scores else 0.0


@torch.no_grad()
def _dev_loss(model: BGRModel, dev: Sequence[BGRExample], direction: str, cfg: TrainConfig) -> float:
    """Mean loss of ``dev``'s teacher-forced prefixes in one direction: the epoch's score for a matcher
    with the link feature (its open pools' link weights are known here; pool retrieval would feed it zeros)."""
    model.eval()
    items = _items(dev, direction, cfg.max_prefixes)
    losses = [float(bgr_loss_batch(model, dev, items[i : i + cfg.batch_size], cfg.pos_weight))
              for i in range(0, len(items), cfg.batch_size)]
    return float(np.mean(losses)) if losses else 0.0


def _epoch_score(model: BGRModel, dev: Sequence[BGRExample], direction: str, cfg: TrainConfig, metric: str,
                 train_loss: float, encode: Callable[[list[str]], np.ndarray] | None) -> float:
    """One direction's epoch score, higher is better: ``f1`` = mean dev F1 at threshold 0.5, ``neg_loss`` = minus
    the dev loss (the link feature: dev's open pools carry their link weights), ``neg_train_loss`` (no dev)."""
    if metric == "neg_loss":
        return -_dev_loss(model, dev, direction, cfg)
    if metric == "f1":
        return _mean_f1(predict_direction_results(model, dev, direction, 0.5, encode=encode), dev)
    return -train_loss


def _train_epoch(model: BGRModel, opt: Any, train: Sequence[BGRExample], items: dict[str, list[_Item]], cfg: TrainConfig,
                 rng: random.Random, epoch: int, start: float, progress: bool) -> tuple[float, bool]:
    """One epoch over both directions' shuffled batches: ``(mean loss, finished within the time budget)``."""
    from tqdm.auto import tqdm

    model.train()
    batches = []
    for its in items.values():
        its = list(its)
        rng.shuffle(its)
        batches += [its[i : i + cfg.batch_size] for i in range(0, len(its), cfg.batch_size)]
    rng.shuffle(batches)
    total, count, finished = 0.0, 0, True
    bar = tqdm(batches, desc=f"bgr epoch {epoch + 1}/{cfg.epochs}", unit="batch", disable=not progress, mininterval=2)
    for batch in bar:
        loss = bgr_loss_batch(model, train, batch, cfg.pos_weight)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        total += loss.item()
        count += 1
        if time.perf_counter() - start > cfg.max_minutes * 60:
            finished = False
            break
    bar.close()
    return total / max(count, 1), finished


def train_bgr(
    train: Sequence[BGRExample],
    dev: Sequence[BGRExample],
    out_dir: str | Path | None,
    model_cfg: BGRConfig | None = None,
    cfg: TrainConfig | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
    card_extra: dict[str, Any] | None = None,
    encode: Callable[[list[str]], np.ndarray] | None = None,
    select: bool = True,
) -> tuple[BGRModel, dict[str, Any]]:
    """Train both directions, keep the best dev epoch of each, choose thresholds and merge on dev
    (unless ``select`` is False: the caller chooses them on other pools), and save to ``out_dir`` (when
    given). Returns the model and its card."""
    cfg = cfg or TrainConfig()
    model_cfg = model_cfg or BGRConfig()
    if not train:
        raise InputError("no training examples")
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    rng = random.Random(cfg.seed)
    model_cfg.input_dim = int(train[0].question_vec.shape[0])
    model = BGRModel(model_cfg)
    dev = list(dev)[: cfg.dev_limit]
    items = {d: _items(train, d, cfg.max_prefixes) for d in ("forward", "backward")}
    if model_cfg.path_text_feature:
        if encode is None:
            raise InputError("the path-text feature needs an encoder (encode=...)")
        for its in items.values():
            _attach_path_vecs(train, its, encode)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    best = {d: (-math.inf, None, -1) for d in ("forward", "backward")}  # a -loss below -1 is kept too
    metric = "neg_loss" if dev and model_cfg.link_feature else "f1" if dev else "neg_train_loss"
    name = "dev_f1" if metric == "f1" else "dev_score"  # the F1 case keeps its old field names
    history, stale, finished = [], 0, True
    start = time.perf_counter()
    for epoch in range(cfg.epochs):
        total, finished = _train_epoch(model, opt, train, items, cfg, rng, epoch, start, progress)
        row: dict[str, Any] = {"epoch": epoch + 1, "loss": total}
        improved = False
        for d in ("forward", "backward"):
            score = _epoch_score(model, dev, d, cfg, metric, total, encode)
            row[f"{name}_{d}"] = score
            if score > best[d][0]:
                state = {k: v.detach().clone() for k, v in model.direction(d).state_dict().items()}
                best[d] = (score, state, epoch + 1)
                improved = True
        history.append(row)
        log(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))
        stale = 0 if improved else stale + 1
        if not finished or stale >= cfg.patience:
            break
    for d in ("forward", "backward"):
        if best[d][1] is not None:
            model.direction(d).load_state_dict(best[d][1])
    train_s = time.perf_counter() - start
    if out_dir is not None:  # saved before the selection too, so a failure there keeps the weights
        save_model(model, out_dir, {"train_seconds": round(train_s, 1), "history": history, "selection": {}})
    selection = select_inference(model, dev, encode=encode) if dev and select else {}
    card = {
        "train_config": asdict(cfg),
        "train_examples": len(train),
        "dev_examples": len(dev),
        "train_prefixes": {d: len(v) for d, v in items.items()},
        "history": history,
        "best_epoch": {d: best[d][2] for d in best},
        "dev_metric": metric,  # f1: mean dev F1 at threshold 0.5; neg_loss: -dev loss; neg_train_loss: -train loss
        ("best_dev_f1_at_0.5" if metric == "f1" else "best_dev_score"): {
            d: best[d][0] if best[d][1] is not None else None for d in best},
        "selection": selection,
        "train_seconds": round(train_s, 1),
        "finished": finished,
        "encoder_frozen": True,
        **(card_extra or {}),
    }
    if out_dir is not None:
        save_model(model, out_dir, card)
    return model, card


def select_inference(model: BGRModel, dev: Sequence[BGRExample],
                     thresholds: Sequence[float] = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
                     union_thresholds: Sequence[float] = (0.6, 0.7, 0.8, 0.9, 0.95),
                     branches: Sequence[int] = (3, 1, 8),
                     encode: Callable[[list[str]], np.ndarray] | None = None) -> dict[str, Any]:
    """Choose each direction's threshold and branching (``branches``: most matches per step; best dev
    F1, ties: the first in grid order), then the merge rule (best dev F1, then GM), and write them into
    ``model.cfg``. Returns the dev table of every choice."""
    from graphhop.metrics.graph import graph_match

    cfg = model.cfg
    table: dict[str, Any] = {}
    results = {}
    for d in ("forward", "backward"):
        best = (-1.0, 0.5, 3)
        for br in branches:
            for t in thresholds:
                res = predict_direction_results(model, dev, d, t, br, encode)
                f1 = _mean_f1(res, dev)
                table[f"{d}@{t}/branch{br}"] = round(f1, 4)
                if f1 > best[0] + 1e-9:
                    best = (f1, t, br)
                    results[d] = res
        setattr(cfg, f"threshold_{d}", best[1])
        if d == "forward":
            cfg.max_branch = best[2]
        else:
            cfg.max_branch_backward = best[2]
    best_rule = ("intersect", -1.0, -1.0, cfg.union_threshold)
    candidates = [(r, cfg.union_threshold) for r in MERGE_RULES if r != "union"]
    candidates += [("union", u) for u in union_thresholds]
    for rule, uthr in candidates:
        f1s, gms = [], []
        for f, b, ex in zip(results["forward"], results["backward"], dev):
            g = merged_graph(ex.question, ex.pool, f, b, rule, uthr)
            f1s.append(set_scores(g.evidence_ids, ex.gold.evidence_ids).f1)
            gms.append(graph_match(g, ex.gold))
        f1, gm = float(np.mean(f1s)), float(np.mean(gms))
        table[f"merge:{rule}" + (f"@{uthr}" if rule == "union" else "")] = {"f1": round(f1, 4), "gm": round(gm, 4)}
        if (f1, gm) > best_rule[1:3]:
            best_rule = (rule, f1, gm, uthr)
    cfg.merge = best_rule[0]
    if best_rule[0] == "union":
        cfg.union_threshold = best_rule[3]
    else:  # keep the best union threshold for reporting the union row
        ub = max(((k, v) for k, v in table.items() if k.startswith("merge:union@")), key=lambda kv: (kv[1]["f1"], kv[1]["gm"]))
        cfg.union_threshold = float(ub[0].split("@")[1])
    return {"threshold_forward": cfg.threshold_forward, "threshold_backward": cfg.threshold_backward,
            "max_branch": cfg.max_branch, "max_branch_backward": cfg.max_branch_backward,
            "merge": cfg.merge, "union_threshold": cfg.union_threshold, "dev": table}


def gold_order(graph: EvidenceGraph) -> list[str]:
    """The gold evidence in breadth-first order from the root (the root's children first)."""
    import networkx as nx

    return [n for n in nx.bfs_tree(graph.g, graph.root) if n != graph.root]


def train_pool_generator(
    examples: Sequence[BGRExample],
    bm25: Any,
    out: str | Path,
    limit: int = 400,
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 5e-5,
    max_length: int = 256,
    model: str | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Train GoldEn's query generator for candidate pools: oracle queries (GoldEn's overlap rule) of
    the first ``limit`` training questions over their own pools (BM25, targets in :func:`gold_order`),
    one span-selector example per hop; saved to ``out``. Returns the model card."""
    from graphhop.models.span import SpanSelector
    from graphhop.retrieve.baselines import PoolSearch
    from graphhop.train.query_generator import OracleStats, train_span_selector, trajectory_examples

    stats = OracleStats()
    spans = []
    for ex in examples[:limit]:
        search = PoolSearch(bm25, ex.pool.ids, ex.pool.texts)
        spans += trajectory_examples(ex.id, ex.query, search, gold_order(ex.gold), ordered=True, stop_examples=False,
                                     stats=stats)
    selector = SpanSelector.from_pretrained(model, max_length=max_length)
    card = {"task": "golden query generator over candidate pools", "oracle": stats.to_dict()}
    result = train_span_selector(selector, spans, epochs=epochs, batch_size=batch_size, lr=lr, progress=progress,
                                 out=out, card=card)
    card.update({"train_examples": len(spans), "steps": result.steps, "train_seconds": round(result.seconds, 1)})
    return card
