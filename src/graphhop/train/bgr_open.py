"""Training BGR for the open setting: each step's candidates retrieved from the whole sentence DB.

A BGR matcher trained on a question's prepared pool (gold + 12 distractors) meets other negatives at
test time in the open setting (:class:`graphhop.retrieve.bgr_open.OpenBGR`): the index's near
neighbours of ``question [SEP] path`` at every hop. Here training sees those: for every teacher-forced
prefix of the gold graph (forward and backward), the candidates are what the open retriever asks the
index for with that prefix as the path (:class:`~graphhop.retrieve.bgr_open.CandidateCache`, same
``k``); a question's training pool is the gold sentences plus the union of its prefixes' candidates
(DB ids; the gold is kept even where retrieval missed it, so every prefix has its positives).

Selection: the epoch is chosen on the selection questions' open pools (built the same way), then every
direction's threshold and branching and the merge rule by running the open retriever itself on the
selection questions (:func:`select_open`, a shared candidate cache makes the grid cheap); the closed-pool
settings are chosen on the selection questions' own pools as before, so one model card serves both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.graph import EvidenceGraph
from graphhop.metrics.graph import graph_match, set_scores
from graphhop.retrieve.bgr_model import MERGE_RULES, BGRModel
from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings, _Seen, prune_paths, retrieve_direction_open
from graphhop.retrieve.graphhop import CandidatePool, DirectionResult, _graph_from_edges, merged_graph
from graphhop.train.bgr import backward_targets, forward_targets
from graphhop.train.bgr_data import BGRExample

__all__ = ["card_carve", "builder_db", "carve_examples", "mention_search", "open_search", "open_example", "open_examples", "select_open", "train_bgr_open"]


LINKS = ("mentions", "mentions-only", "proper", "none")


def builder_db(records: Sequence[dict[str, Any]], out: Path, dense: str = "flat",
               backend: str = "torch") -> tuple[Any, dict[str, str]]:
    """The DB of a builder dataset: every distinct evidence sentence of ``records`` indexed once under
    ``out/db-index`` (BM25 + flat dense with the bundled encoder through ``backend``; a cache:
    :func:`~graphhop.index.cache.open_or_build`, rebuilt when stale or of another size), and normalized
    text -> DB id (``s<i>``, in first-seen order)."""
    from graphhop.core import Passage
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.index.cache import open_or_build
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
    from graphhop.index.encode import EncodingOptions

    texts = list(dict.fromkeys(e["text"] for r in records for e in r["evidence"]))
    path = Path(out) / "db-index"

    def build() -> KnowledgeIndex:
        return build_index(documents_from_passages(Passage(f"s{i}", t) for i, t in enumerate(texts)), path,
                           dense=DenseOptions(dense), overwrite=True, progress=True,
                           encoding=EncodingOptions(backend=backend))

    index = open_or_build(path, build, accept=lambda ix: len(ix.docs) == len(texts) and ix.has_sparse and ix.has_dense)
    return index, {normalize_text(t): f"s{i}" for i, t in enumerate(texts)}


def open_search(data_dir: Path, db_dir: Path, k: int, dense: str = "flat", backend: str = "torch",
                links: str = "proper") -> tuple[CandidateCache, dict[str, str]]:
    """The hop-by-hop candidate search (top ``k`` per path) over a builder folder's DB: every distinct
    evidence sentence of its train/dev/test files (:func:`builder_db` under ``db_dir``); ``links``:
    ``mentions`` (gazetteer entity links, :func:`mention_search`) or ``proper`` (proper-name links)."""
    from graphhop.datasets.builder import read_records

    records = [r for s in ("train", "dev", "test") if (Path(data_dir) / f"{s}.jsonl").exists()
               for r in read_records(Path(data_dir) / f"{s}.jsonl")]
    index, by_text = builder_db(records, db_dir, dense, backend)
    return CandidateCache(mention_search(index, records, db_dir, max(20, k), links), k), by_text


def mention_search(index: Any, records: Sequence[dict[str, Any]], db_dir: Path, depth: int, links: str = "mentions",
                   max_df: int = 100) -> Any:
    """:class:`~graphhop.retrieve.texthop.HopSearch` over ``index``; with ``links="mentions"`` its entity
    links come from a :class:`~graphhop.retrieve.mention_links.MentionIndex` (gazetteer: the entity names
    of the records' facts; built once, cached as ``db_dir/mentions.json``) and linked passages rank first
    (``link_bonus`` 1); ``mentions-only``: a hop with linked passages takes them alone."""
    from graphhop.core import InputError
    from graphhop.retrieve.mention_links import MentionIndex, gazetteer
    from graphhop.retrieve.texthop import HopSearch

    if links not in LINKS:
        raise InputError(f"entity links: choose {', '.join(LINKS)}, got {links!r}")
    if not links.startswith("mentions"):
        return HopSearch(index, depth=depth, links=links == "proper")
    mentions = MentionIndex.for_index(index, gazetteer(records), Path(db_dir) / "mentions.json", max_df, progress=True)
    return HopSearch(index, depth=depth, link_bonus=1.0, mentions=mentions, links_only=links == "mentions-only")


def carve_examples(data_dir: Path, card: dict[str, Any], n: int, emb: Any, besides: int = 0) -> list[BGRExample]:
    """``n`` questions (stride) of the chain-disjoint carve of ``data_dir``'s train that the model chose its
    closed settings on (``graphhop train bgr``'s carve: every 10th — or ``--carve-every`` — chain group, up to its ``dev_limit``
    questions): the model never trained on them, and dev and test stay for reporting. ``besides``: leave out the
    ``besides`` questions a call with ``n = besides`` gives (a fit's), so what is chosen here is chosen on others."""
    from graphhop.core import InputError
    from graphhop.eval.experiment import stride_sample
    from graphhop.train.bgr_data import load_examples

    if card.get("select_split") != "train-carve":
        raise InputError("this model chose its settings on dev, not on a train carve: choose on dev, report on test")
    carve = card_carve(data_dir, card)[0]
    if besides:
        used = {id(r) for r in stride_sample(carve, besides)}
        carve = [r for r in carve if id(r) not in used]
        if not carve:
            raise InputError(f"the train carve has no questions besides the {besides} fitted on: lower the fit's count")
    return load_examples(stride_sample(carve, n), emb)


def card_carve(data_dir: str | Path, card: dict[str, Any]) -> tuple[list[dict], list[dict]]:
    """``(carve, rest)`` of ``data_dir``'s train records as ``graphhop train bgr`` split them for the model of
    ``card``: every 10th chain group (the card's ``carve_every``, ``train bgr --carve-every``), up to its ``dev_limit``
    questions, is the carve; the rest it trained on."""
    from graphhop.datasets.builder import read_records
    from graphhop.datasets.splits import carve_selection

    from graphhop.core import InputError

    try:
        limit = int(card.get("train_config", {}).get("dev_limit") or 0) or None
        every = int(card.get("carve_every") or 10)
    except (AttributeError, TypeError, ValueError) as e:
        raise InputError(f"model card: carve_every / train_config.dev_limit must be whole numbers ({e})") from None
    if every < 1:
        raise InputError(f"model card: carve_every must be at least 1 (got {every})")
    return carve_selection(list(read_records(Path(data_dir) / "train.jsonl")), every=every, limit=limit)


def _prefixes(gold: EvidenceGraph, limit: int) -> list[tuple[str, ...]]:
    """Every teacher-forced prefix of both directions (the paths the open retriever will query)."""
    return list(dict.fromkeys(p for fn in (forward_targets, backward_targets) for p, _ in fn(gold, limit)))


def open_example(ex: BGRExample, cache: CandidateCache, by_text: dict[str, str], max_prefixes: int = 64,
                 keep_pool: bool = False) -> BGRExample:
    """``ex`` with its gold relabelled to DB ids and its pool = gold + every prefix's retrieved
    candidates; each prefix is trained on its own candidates (+ its gold targets), as the open retriever
    meets them. With ``keep_pool`` the prepared pool's distractors (relabelled) join, and every prefix
    is scored against the whole pool."""
    from graphhop.eval.bgr_bench import normalize_text, relabel_gold

    gold, _ = relabel_gold(ex, by_text)
    prefixes = _prefixes(gold, max_prefixes)
    cache.prefetch(ex.query, prefixes)
    ids = list(gold.evidence_ids)
    for p in prefixes:
        ids += cache.ids(ex.query, p)
    if keep_pool:
        ids += [by_text[t] for t in map(normalize_text, ex.pool.texts) if t in by_text]
    ids = [d for d in dict.fromkeys(ids) if not d.startswith("missing:")]
    search = cache.search
    pool = CandidatePool(ids, [search.text(d) for d in ids], search.vectors(ids))
    linked = getattr(search, "linked", None)  # the matcher's link feature: each prefix's link weights
    in_pool = set(ids)
    links = {p: {d: w for d, w in linked(ex.query, p).items() if d in in_pool} for p in prefixes} if linked else None
    return BGRExample(ex.id, ex.question, ex.query, pool, ex.question_vec, gold, ex.depth, ex.graph_type, ex.source,
                      prefix_cands=None if keep_pool else {p: cache.ids(ex.query, p) for p in prefixes}, prefix_links=links)


def open_examples(examples: Sequence[BGRExample], cache: CandidateCache, by_text: dict[str, str],
                  max_prefixes: int = 64, keep_pool: bool = False, progress: bool = True) -> list[BGRExample]:
    """:func:`open_example` for every example (progress bar), with the share of gold the candidates reached."""
    from tqdm.auto import tqdm

    out = [open_example(ex, cache, by_text, max_prefixes, keep_pool)
           for ex in tqdm(examples, desc="open pools", unit="q", disable=not progress, mininterval=2)]
    cache.clear()
    return out


def _direction_runs(model: BGRModel, dev: Sequence[BGRExample], cache: CandidateCache, seen: list[_Seen],
                    direction: str, threshold: float, branch: int, k: int, relation: Any = None,
                    later: float = -1.0, stop: Any = None,
                    stopping: tuple[float, float] = (-1.0, -1.0)) -> list[DirectionResult]:
    c = model.cfg
    return [retrieve_direction_open(model.direction(direction), ex.query, ex.question_vec, cache.search, s, direction,
                                    threshold, c.max_depth, c.max_edges, branch, k, cache, relation,
                                    later if later >= 0 else None, stop, stopping)
            for ex, s in zip(dev, seen)]


def _f1(results: Sequence[DirectionResult], dev: Sequence[BGRExample], golds: Sequence[EvidenceGraph],
        seen: Sequence[_Seen]) -> float:
    return float(np.mean([set_scores(_graph_from_edges(ex.question, r.edges, s.pool()).evidence_ids, g.evidence_ids).f1
                          for r, ex, g, s in zip(results, dev, golds, seen)])) if dev else 0.0


def select_open(model: BGRModel, dev: Sequence[BGRExample], cache: CandidateCache, by_text: dict[str, str],
                thresholds: Sequence[float] = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7), branches: Sequence[int] = (1, 3),
                union_thresholds: Sequence[float] = (0.6, 0.8, 0.95), ks: Sequence[int] | None = None,
                log: Callable[[str], None] | None = None, relation: Any = None,
                answer_reaches: Sequence[int] = (0,),
                prunes: Sequence[tuple[int, str]] = ((0, "deep"),),
                later_thresholds: Sequence[float] = (-1.0,)) -> tuple[OpenSettings, dict[str, Any]]:
    """The candidates per hop (``ks``, each at most the cache's ``k``; default: the cache's), each
    direction's threshold and branching, then the merge rule, by mean evidence F1 (merge ties: graph
    match; grid ties: the first) of the open retriever itself on ``dev`` (gold relabelled to DB ids).
    Both directions use one ``k``: the best sum of the two directions' F1. The grid reaches below the
    closed setting's (0.05, 0.1): a prefix meets about 20 retrieved negatives per positive here, so
    match probabilities are lower. ``relation``: the relation-aware score (see :func:`retrieve_direction_open`);
    ``answer_reaches``: backward's first-step candidates chosen among them too (``CandidateCache.answer_reach``);
    ``prunes``: ``(keep, rank)`` of :func:`~graphhop.retrieve.bgr_open.prune_paths` chosen per direction too (applied
    to each run's graphs, no search again; ``keep`` 0 = every path); ``later_thresholds``: the threshold after the
    first step chosen per direction too (< 0: the first step's). Returns the settings and the table of every choice."""
    from graphhop.eval.bgr_bench import relabel_gold

    golds = [relabel_gold(ex, by_text)[0] for ex in dev]
    seen = [_Seen(cache.search) for _ in dev]
    table: dict[str, Any] = {}
    by_k: dict[int, dict[str, tuple[Any, ...]]] = {}
    for k in ks or (cache.k,):
        chosen = by_k.setdefault(k, {})
        for d in ("forward", "backward"):
            best: tuple[Any, ...] = (-1.0, 0.5, 3, [], 0, 0, "deep", -1.0)
            for reach, br, t, tl in ((r, br, t, tl) for r in (answer_reaches if d == "backward" else (0,))
                                     for br in branches for t in thresholds for tl in later_thresholds):
                runs = _direction_runs(model, dev, cache.with_reach(reach), seen, d, t, br, k, relation, tl)
                for keep, rank in prunes:
                    res = [prune_paths(r, keep, rank) for r in runs]
                    f1 = _f1(res, dev, golds, seen)
                    table[f"k{k}:{d}@{t}/branch{br}" + (f"/reach{reach}" if reach else "") + (f"/later{tl}" if tl >= 0 else "")
                          + (f"/keep{keep}-{rank}" if keep else "")] = round(f1, 4)
                    if log:
                        log(f"open selection k {k} {d} threshold {t}/{tl} branch {br} reach {reach} keep {keep} {rank}: F1 {f1:.4f}")
                    if f1 > best[0] + 1e-9:
                        best = (f1, t, br, res, reach, keep, rank, tl)
            chosen[d] = best
    k = max(by_k, key=lambda kk: (by_k[kk]["forward"][0] + by_k[kk]["backward"][0], -kk))
    chosen = by_k[k]
    best_rule = ("forward", -1.0, -1.0, 0.8)
    rules = [(r, 0.8) for r in MERGE_RULES if r != "union"] + [("union", u) for u in union_thresholds]
    for rule, uthr in rules:
        f1s, gms = [], []
        for f, b, ex, g, s in zip(chosen["forward"][3], chosen["backward"][3], dev, golds, seen):
            graph = merged_graph(ex.question, s.pool(), f, b, rule, uthr)
            f1s.append(set_scores(graph.evidence_ids, g.evidence_ids).f1)
            gms.append(graph_match(graph, g))
        f1, gm = float(np.mean(f1s)), float(np.mean(gms))
        table[f"merge:{rule}" + (f"@{uthr}" if rule == "union" else "")] = {"f1": round(f1, 4), "gm": round(gm, 4)}
        if (f1, gm) > best_rule[1:3]:
            best_rule = (rule, f1, gm, uthr)
    f, b = chosen["forward"], chosen["backward"]
    settings = OpenSettings(f[1], b[1], f[2], b[2], best_rule[0], best_rule[3], k, b[4], f[5], b[5], f[6], b[6], f[7], b[7])
    return settings, table


def train_bgr_open(train: Sequence[BGRExample], dev: Sequence[BGRExample], cache: CandidateCache,
                   by_text: dict[str, str], out: Path | None, model_cfg: Any, cfg: Any, keep_pool: bool = False,
                   other_positives: int = 0, encode: Callable[[list[str]], np.ndarray] | None = None,
                   log: Callable[[str], None] = print, card_extra: dict[str, Any] | None = None,
                   select_open_settings: bool = True) -> tuple[BGRModel, dict[str, Any]]:
    """Train on open pools (:func:`open_examples`), choose the epoch on the selection questions' open
    pools, the closed-pool settings on their own pools and the open settings by :func:`select_open`
    (unless ``select_open_settings`` is False: then the open settings are left to the caller, e.g.
    ``open_graph_eval.py --select-open N --select-on carve``); save to ``out``. Returns the model and its card."""
    from dataclasses import asdict

    from graphhop.retrieve.graphhop import save_model
    from graphhop.train.bgr import select_inference, train_bgr
    from graphhop.train.bgr_data import add_other_positives

    dev = list(dev)[: cfg.dev_limit]
    train_o = add_other_positives(open_examples(train, cache, by_text, keep_pool=keep_pool), other_positives)
    dev_o = open_examples(dev, cache, by_text)
    model, card = train_bgr(train_o, dev_o, out, model_cfg, cfg, progress=True, log=log, encode=encode, select=False)
    closed = select_inference(model, dev, encode=encode) if dev else {}
    settings, table = (select_open(model, dev, cache, by_text, ks=sorted({10, cache.k}), log=log) if dev and select_open_settings
                       else (OpenSettings.from_config(model.cfg), {}))
    card.update({"selection": closed, **({"open_selection": {**asdict(settings), "dev": table}} if table else {}),
                 "open_training": {"k": cache.k, "keep_pool": keep_pool, "other_positives": other_positives,
                                   "mean_train_pool": round(float(np.mean([len(e.pool.ids) for e in train_o])), 1)},
                 **(card_extra or {})})
    if out is not None:
        save_model(model, out, card)
    return model, card
