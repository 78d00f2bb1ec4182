"""BGR and its pool baselines scored on builder examples: each method's evidence graph over a question's pool.

The set baselines (random, BM25, dense, MDR) are the registry's ``pool-<name>`` pipelines
(:mod:`graphhop.pipeline.pool`) over the pool as an in-memory index (:func:`pool_index`). They are
handed ``k`` = the gold set size (an oracle size; tables label them so) unless a ``k`` is given,
e.g. one chosen on a selection split (:func:`choose_ks`). BM25 is the index's BM25 over the
collection restricted to the pool; GoldEn is the hop loop over the pool (:func:`golden_pool_method`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.graph import EvidenceGraph
from graphhop.retrieve.graphhop import BGRModel, BGRRetriever
from graphhop.train.bgr_data import BGRExample

__all__ = ["BGR_METHODS", "BASELINES", "depth_key", "evaluate_methods", "pool_index", "pool_retriever", "choose_ks", "chosen_label", "method_graph",
           "golden_generator", "golden_pool_method", "choose_shapes", "selection_ks"]

BGR_METHODS = ("bgr-forward", "bgr-backward", "bgr-bidirectional")
BASELINES = ("random", "bm25", "dense", "mdr")


def depth_key(depth: int) -> str:
    """The depth group of a gold graph (depth 4 and deeper together)."""
    return f"depth {depth}" if depth < 4 else "depth 4+"


def evaluate_methods(
    model: BGRModel | None,
    examples: Sequence[BGRExample],
    methods: Sequence[str] = BASELINES + BGR_METHODS,
    bm25: Any = None,
    encode: Callable[[list[str]], np.ndarray] | None = None,
    shapes: dict[str, str] | None = None,
    extra_merges: Sequence[str] = (),
    ged_timeout: float = 1.0,
    seed: int = 13,
    progress: bool = False,
    chains: dict[str, Callable[[BGRExample, int], list[str]]] | None = None,
    graphs: dict[str, Callable[[BGRExample], EvidenceGraph]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Score every method on ``examples``: ``{method: {"by_type": breakdown, "by_depth": breakdown,
    "seconds": ...}}``. Baselines use ``k`` = the gold set size; their graph ``shape`` (chain or star)
    comes from ``shapes`` (default chain). ``extra_merges`` adds ``bgr-merge:<rule>`` rows. ``chains``
    adds chain baselines by name: ``fn(example, k)`` -> evidence ids in hop order (e.g. GoldEn);
    ``graphs`` adds graph methods by name: ``fn(example)`` -> an evidence graph (e.g. SSG, an LLM)."""
    from tqdm.auto import tqdm

    from graphhop.metrics.graph import breakdown, score_graph

    shapes = shapes or {}
    rows: dict[str, list] = {}
    seconds: dict[str, float] = {}
    ret = BGRRetriever(model, encode=encode) if model is not None else None
    chains, graphs = chains or {}, graphs or {}
    all_methods = list(methods) + [c for c in [*chains, *graphs] if c not in methods] + [f"bgr-merge:{r}" for r in extra_merges]
    for method in all_methods:
        scores, depth_scores = [], []
        t0 = time.perf_counter()
        for ex in tqdm(examples, desc=method, disable=not progress, mininterval=5):
            pred = graphs[method](ex) if method in graphs else method_graph(method, ex, ret, bm25, shapes, chains, seed)
            sc = score_graph(pred, ex.gold, ged_timeout)
            scores.append(sc)
            d = _dataclass_copy(sc)
            d.graph_type = depth_key(ex.depth)
            depth_scores.append(d)
        seconds[method] = time.perf_counter() - t0
        rows[method] = {"by_type": breakdown(scores), "by_depth": breakdown(depth_scores), "seconds": round(seconds[method], 2)}
    return rows


def pool_index(ex: BGRExample, encoder: str | None = None) -> Any:
    """``ex``'s pool as a :class:`~graphhop.index.memory.MemoryIndex` of its cached vectors (``encoder``
    encodes the queries of dense retrieval over it), of kind ``pool`` (the registry's ``pool-*`` pipelines)."""
    from graphhop.index.memory import MemoryIndex

    index = MemoryIndex.from_texts(ex.pool.ids, ex.pool.texts, sparse=None, vectors=ex.pool.vectors, model=encoder)
    index.manifest["doc_type"] = "pool"
    return index


def pool_retriever(ex: BGRExample, encoder: str | None = None) -> Any:
    """Dense retrieval over ``ex``'s pool (:func:`pool_index`): the same code as over a whole index."""
    from graphhop.retrieve.dense import DenseRetriever

    return DenseRetriever(pool_index(ex, encoder))


def baseline_ids(method: str, ex: BGRExample, k: int, bm25: Any = None, encoder: str | None = None, seed: int = 13) -> list[str]:
    """The top ``k`` pool ids of a set baseline: the registry's ``pool-<method>`` pipeline over :func:`pool_index`
    (dense searches with the cached question vector, BM25 and MDR with the example's query)."""
    from graphhop.pipeline.registry import build_pipeline

    pipe = build_pipeline(f"pool-{method}", pool_index(ex, encoder), k=k, bm25=bm25, seed=seed, key=ex.id)
    return pipe.topk(ex.query, ex.question_vec) if method == "dense" else pipe.topk(ex.query)


def method_graph(method: str, ex: BGRExample, ret: BGRRetriever | None = None, bm25: Any = None,
                 shapes: dict[str, str] | None = None, chains: dict[str, Callable[[BGRExample, int], list[str]]] | None = None,
                 seed: int = 13, ks: dict[str, int] | None = None) -> EvidenceGraph:
    """The evidence graph one method retrieves from ``ex``'s pool: a baseline (``k`` = ``ks[method]``,
    by default the gold set size, drawn as ``shapes[method]``), a ``chains`` baseline, ``bgr-<mode>``
    or ``bgr-merge:<rule>``. Set baselines are the registry's pool pipelines (:func:`baseline_ids`;
    MDR: beam 3, its chain is its graph)."""
    from graphhop.retrieve.baselines import ids_to_graph

    shapes, chains = shapes or {}, chains or {}
    k = (ks or {}).get(method) or len(ex.gold.evidence_ids)
    texts = dict(zip(ex.pool.ids, ex.pool.texts))
    facts = dict(zip(ex.pool.ids, ex.pool.facts))
    shape = shapes.get(method, "chain")
    encoder = ret.cfg.encoder if ret is not None else None
    if method in BASELINES:
        ids = baseline_ids(method, ex, k, bm25, encoder, seed)
        return ids_to_graph(ex.question, ids, texts, "chain" if method == "mdr" else shape, facts)
    if method in chains:
        return ids_to_graph(ex.question, chains[method](ex, k), texts, "chain", facts)
    if ret is not None and method in BGR_METHODS:
        return ret.retrieve_pool(ex.question, ex.pool, ex.question_vec, mode=method.split("-", 1)[1], query=ex.query)
    if ret is not None and method.startswith("bgr-merge:"):
        return ret.retrieve_pool(ex.question, ex.pool, ex.question_vec, mode="bidirectional",
                                 merge=method.split(":", 1)[1], query=ex.query)
    raise InputError(f"unknown method {method!r}" + ("" if ret is not None or not method.startswith("bgr") else " (no BGR model)"))


def chosen_label(method: str, k: int) -> str:
    """The table name of a baseline run with a ``k`` chosen on the selection split."""
    return f"{method} (k={k} chosen on selection)"


#: Set baselines whose top ``k`` is the first ``k`` of their top ``max_k`` (one ranking, sliced).
RANKED = ("bm25", "dense")


def choose_ks(examples: Sequence[BGRExample], bm25: Any = None, encoder: str | None = None,
              methods: Sequence[str] = BASELINES, max_k: int = 6, seed: int = 13) -> dict[str, int]:
    """For each set baseline, the ``k`` in 1..``max_k`` with the best mean evidence F1 on ``examples``
    (a selection split, never a reported one; ties: the smaller k). BM25 and dense rank each pool once
    at ``max_k`` and are sliced; random and MDR (a draw / a chain of ``k`` hops) are run per ``k``."""
    from graphhop.metrics.graph import set_scores

    if not examples:
        raise InputError("choosing k needs selection examples")
    out = {}
    for m in methods:
        ranked = [baseline_ids(m, ex, max_k, bm25, encoder, seed) for ex in examples] if m in RANKED else None
        best = (0, -1.0)
        for k in range(1, max_k + 1):
            ids = [r[:k] for r in ranked] if ranked is not None else [baseline_ids(m, ex, k, bm25, encoder, seed) for ex in examples]
            f1 = float(np.mean([set_scores(i, ex.gold.evidence_ids).f1 for i, ex in zip(ids, examples)]))
            if f1 > best[1] + 1e-12:
                best = (k, f1)
        out[m] = best[0]
    return out


def selection_ks(data: Path, card: dict[str, Any], methods: Sequence[str], emb: Any, sample: int = 100,
                 max_k: int = 6) -> dict[str, int]:
    """The ``k`` of each set baseline in ``methods``, chosen (:func:`choose_ks`) on the split the BGR model
    chose its own settings on (its card's ``select_split``: ``train-carve`` = the chain-disjoint carve of the
    builder folder's train, as ``graphhop train bgr`` made it; ``dev``), ``sample`` questions at most."""
    from graphhop.datasets.builder import read_records
    from graphhop.datasets.splits import carve_selection
    from graphhop.eval.experiment import stride_sample
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.train.bgr_data import load_examples

    base = [m for m in methods if m in BASELINES]
    if not base:
        return {}
    where = card.get("select_split", "dev")
    path = Path(data) / ("train.jsonl" if where == "train-carve" else "dev.jsonl")
    if not path.exists():
        raise InputError(f"{path}: no such file (the baselines' k is chosen on {where}; or pass --oracle-k-only)")
    recs = list(read_records(path))
    recs = carve_selection(recs, every=10, limit=sample)[0] if where == "train-carve" else stride_sample(recs, sample)
    if not recs:
        raise InputError(f"{data}: no selection questions ({where}) to choose the baselines' k on")
    examples = load_examples(recs, emb, None, progress=False)
    bm25 = PoolBM25(dict.fromkeys(e["text"] for r in recs for e in r["evidence"]))
    return choose_ks(examples, bm25, getattr(emb, "model_name", None), base, max_k)


def golden_generator(generator_dir: str | Path) -> Any:
    """The query generator saved by :func:`train_pool_generator` (a span selector), loaded once."""
    from graphhop.models.span import SpanSelector
    from graphhop.retrieve.golden import SpanQueryGenerator

    return SpanQueryGenerator(SpanSelector.from_pretrained(str(generator_dir)))


def golden_pool_method(generator: Any, bm25: Any) -> Callable[[BGRExample, int], list[str]]:
    """GoldEn over a pool as a chain baseline for :func:`evaluate_methods`: ``k`` hops, each the best
    unused BM25 hit of ``generator``'s query (see :func:`graphhop.retrieve.baselines.golden_chain`)."""
    from graphhop.retrieve.baselines import PoolSearch, golden_chain

    def run(ex: BGRExample, k: int) -> list[str]:
        return golden_chain(ex.query, PoolSearch(bm25, ex.pool.ids, ex.pool.texts), generator, k)

    return run


def _dataclass_copy(obj):
    import copy

    return copy.copy(obj)


def choose_shapes(examples: Sequence[BGRExample], bm25: Any, encode: Callable | None, seed: int = 13) -> dict[str, str]:
    """For each set baseline, the graph shape (chain or star) with the better dev GM (ties: chain)."""
    out = {"mdr": "chain"}  # a chain retriever: its hop order is its graph
    for m in ("random", "bm25", "dense"):
        best = ("chain", -1.0)
        for shape in ("chain", "star"):
            r = evaluate_methods(None, examples, [m], bm25, encode, {m: shape}, ged_timeout=0.05, seed=seed)
            gm = r[m]["by_type"]["all"]["gm"]
            if gm > best[1]:
                best = (shape, gm)
        out[m] = best[0]
    return out
