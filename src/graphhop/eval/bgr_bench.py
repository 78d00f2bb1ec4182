"""The BGR benchmark's library half (``benchmarks/bgr_eval.py`` is the script): splits with a
chain-disjoint selection carve, the open setting as Experiment systems, latency, and the tables.

- :func:`benchmark_records`: a builder dataset folder (``train``/``dev``/``test``) or EntailmentBank
  (angles task-2 train; v2 task-1/2/3 dev), with ``select`` carved off train by
  :func:`~graphhop.datasets.splits.carve_selection` (no chain, question or gold sentence is both
  selected on and trained on) — dev and test only report.
- :func:`open_setting`: every method over a whole textual DB (the dataset's distinct evidence
  sentences, or WorldTree): BGR over a dense top-N first stage, BM25 (tantivy), dense and MDR chains
  and GoldEn's hop loop over the same index, gold graphs relabelled to DB ids by text.
- :func:`results_markdown`, :func:`report`, :func:`dataset_tables`: the markdown of ``results.json``.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.eval.bgr import depth_key
from graphhop.eval.experiment import Experiment, System, Table
from graphhop.eval.measures import Gold, Prediction, graph_measures
from graphhop.graph import EvidenceGraph

__all__ = ["benchmark_records", "report_splits", "pool_reader_system", "closed_latency", "OpenDB", "open_db", "open_setting",
           "relabel_gold", "normalize_text", "results_markdown", "report",
           "dataset_tables", "percentile"]

SUMMARY = ("random", "bm25", "dense", "mdr", "golden", "bgr-forward", "bgr-backward", "bgr-bidirectional")


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile of ``values`` (NaN when empty)."""
    return float(np.percentile(values, q)) if len(values) else float("nan")


def benchmark_records(dataset: str, data_dir: Path | None, data_root: Path, select_limit: int | None = None,
                      splits: Sequence[str] = ("dev", "test")) -> dict[str, list[dict]]:
    """``{"train", "select", <report splits>...}`` records; ``select`` is a chain-disjoint carve of train.

    Report splits are ``splits`` (dev, test; a builder folder's ``<split>.jsonl``, EntailmentBank's
    ``task_1/<split>.jsonl`` and ``task_2/<split>.jsonl`` as ``task1-<split>``, ``task2-<split>``, and
    task 3's as ``task3-<split>`` for the open setting). A split asked for whose file is missing is an
    error, except the default ``test``."""
    from graphhop.core import InputError
    from graphhop.datasets.builder import read_records
    from graphhop.datasets.splits import carve_selection
    from graphhop.eval.tasks import check_split

    splits = [check_split(s) for s in splits]
    if dataset == "entailmentbank":
        from graphhop.datasets.entailmentbank import load_angles, load_entailmentbank, tree_record

        eb = data_root / "entailmentbank"
        files = {f"task{t}-{s}": eb / f"task_{t}" / f"{s}.jsonl" for s in splits for t in (1, 2, 3)}
        out = {"train": [tree_record(t, "train") for t in load_angles(eb / "angles" / "task_2" / "train.jsonl")]}
        load = lambda name, path: [tree_record(t, name.split("-")[1]) for t in load_entailmentbank(  # noqa: E731
            path, *([eb / "task_1" / path.name] if name.startswith("task3") else []))]
    else:
        if data_dir is None:
            raise InputError("a builder dataset needs its folder (--data-dir)")
        files = {s: data_dir / f"{s}.jsonl" for s in ("train", *splits)}
        load = lambda name, path: list(read_records(path))  # noqa: E731
        out = {}
    for name, path in files.items():
        if path.exists():
            out[name] = load(name, path)
        elif name == "train" or list(splits) != ["dev", "test"] or not name.endswith("test"):
            raise InputError(f"{path}: no such file (--split {name.split('-')[-1]} needs it)")
    out["select"], out["train"] = carve_selection(out["train"], every=10, limit=select_limit)
    return out


def report_splits(dataset: str, records: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """The closed-setting report splits of :func:`benchmark_records`' output (never ``train``,
    ``select`` or EntailmentBank's open-setting task 3)."""
    return {k: v for k, v in records.items() if k not in ("train", "select") and not k.startswith("task3") and v}


def pool_reader_system(method: str, examples: Sequence[Any], reader: Any, hops: int, loops: bool, ret: Any = None,
                       bm25: Any = None, shapes: dict[str, str] | None = None, chains: dict[str, Any] | None = None,
                       span: Any = None) -> System:
    """QA from a method's evidence over each question's own pool (``gold``: the gold graph, the reader's
    ceiling): the retrieved sentences' facts chained from the question's entities
    (:func:`~graphhop.read.graphs.build_evidence_graph`) and read by ``reader`` (an OperationReader);
    with ``span`` (a span reader) the retrieved graph's sentences are read by it instead. The
    prediction's graph is the retrieved evidence graph (graph measures score the retrieval)."""
    from graphhop.eval.bgr import BASELINES, method_graph
    from graphhop.eval.tasks import ORACLE_K
    from graphhop.read.graphs import build_evidence_graph

    def predict(questions: list[str]) -> list[Prediction]:
        graphs = [ex.gold if method == "gold" else method_graph(method, ex, ret, bm25, shapes, chains) for ex in examples]
        if span is not None:
            return [Prediction(graph=g, answer=a.text, answers=[a.text]) for g, a in zip(graphs, span.predict(questions, graphs))]
        out = []
        for q, ex, g in zip(questions, examples, graphs):
            facts = dict(zip(ex.pool.ids, ex.pool.facts))
            pairs = [(f"{i}#{j}", f) for i in g.evidence_ids for j, f in enumerate(facts.get(i, []))]
            res = reader.run(q, build_evidence_graph(q, pairs, max_hops=hops, loops=loops))
            out.append(Prediction(graph=g, answer=res.answer.text, answers=list(res.answers), cache={"qtype": res.qtype}))
        return out

    oracle = "the gold graph" if method == "gold" else ORACLE_K if method in BASELINES or method in (chains or {}) else ""
    return System(predict, oracle)


def closed_latency(ret: Any, examples: Sequence[Any], size: int, seed: int = 13) -> dict[str, float]:
    """Per-question bidirectional retrieval time over pools padded to ``size`` candidates with evidence
    of other questions (vectors cached; question encoding not included); a pool is padded with at most
    every other question's evidence (a toy set smaller than ``size`` no longer loops forever)."""
    from graphhop.retrieve.graphhop import CandidatePool

    rng = random.Random(seed)
    others = [(ex.id, i) for ex in examples for i in range(len(ex.pool.ids))]
    by_id = {ex.id: ex for ex in examples}
    times = []
    for ex in examples:
        ids, texts, vecs = list(ex.pool.ids), list(ex.pool.texts), [v for v in ex.pool.vectors]
        target = min(size, len(ids) + sum(1 for oid, _ in others if oid != ex.id))
        while len(ids) < target:
            oid, i = others[rng.randrange(len(others))]
            if oid == ex.id or f"pad:{oid}:{by_id[oid].pool.ids[i]}" in ids:
                continue
            o = by_id[oid]
            ids.append(f"pad:{oid}:{o.pool.ids[i]}")
            texts.append(o.pool.texts[i])
            vecs.append(o.pool.vectors[i])
        pool = CandidatePool(ids[:size], texts[:size], np.stack(vecs[:size]))
        t0 = time.perf_counter()
        ret.retrieve_pool(ex.question, pool, ex.question_vec, query=ex.query)
        times.append(1000 * (time.perf_counter() - t0))
    return {"pool": size, "n": len(times), "p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2)}


# ---------------------------------------------------------------------- open setting
def normalize_text(text: str) -> str:
    """Lower-cased, whitespace-collapsed text: how gold sentences are matched to DB sentences."""
    return " ".join(text.lower().split())


@dataclass
class OpenDB:
    """The open setting's textual DB: ids, texts, cached unit vectors, and normalized text -> first id."""

    ids: list[str]
    texts: list[str]
    vectors: np.ndarray
    by_text: dict[str, str]


def open_db(dataset: str, records: dict[str, list[dict]], data_root: Path, cache: Any) -> OpenDB:
    """The DB: WorldTree for EntailmentBank, else every distinct evidence sentence of every split's pools."""
    if dataset == "entailmentbank":
        from graphhop.datasets.entailmentbank import load_worldtree

        passages = load_worldtree(data_root / "entailmentbank" / "worldtree_corpus_sentences_extended.json")
        ids, texts = [p.id for p in passages], [p.text for p in passages]
    else:
        texts = list(dict.fromkeys(e["text"] for split in records.values() for r in split for e in r["evidence"]))
        ids = [f"d{i}" for i in range(len(texts))]
    by_text: dict[str, str] = {}
    for i, t in zip(ids, texts):
        by_text.setdefault(normalize_text(t), i)
    vectors = cache.encode(texts, progress=False)
    cache.save()
    return OpenDB(ids, texts, vectors, by_text)


def open_questions(dataset: str, records: dict[str, list[dict]], evals: dict[str, list[Any]], cache: Any, limit: int) -> list[Any]:
    """The open setting's questions: EntailmentBank's task-3 trees (every gold leaf kept), else the first report split's."""
    from graphhop.eval.experiment import stride_sample
    from graphhop.train.bgr_data import load_examples

    if dataset != "entailmentbank":
        return stride_sample(next(iter(evals.values())), limit)
    recs = [dict(r) for r in stride_sample(next(v for k, v in records.items() if k.startswith("task3")), limit)]
    for r in recs:  # keep every gold leaf (also those the task-3 context missed)
        r["evidence"] = r["evidence"] + [{"id": n["id"], "text": n["text"], "facts": [], "gold": True}
                                         for n in r["graph"]["nodes"] if n["id"].startswith("gold:")]
    return load_examples(recs, cache)


def relabel_gold(ex: Any, by_text: dict[str, str]) -> tuple[EvidenceGraph, int]:
    """``ex``'s gold graph with its nodes renamed to DB ids by (normalized) text; a node whose text is
    not in the DB keeps a unique id (unreachable). Returns the graph and how many nodes were unreachable."""
    gold = EvidenceGraph(ex.gold.question, ex.gold.root, ex.gold.text_evidence)
    rename: dict[str, str] = {}
    missing = 0
    for n in ex.gold.evidence_ids:
        text = ex.gold.g.nodes[n].get("text", "")
        did = by_text.get(normalize_text(text))
        rename[n] = did if did is not None and did not in rename.values() else f"missing:{ex.id}:{n}"
        missing += did is None
        gold.add_evidence(rename[n], text, ex.gold.g.nodes[n].get("facts", []), ex.gold.g.nodes[n].get("kind", "evidence"))
    for u, v in ex.gold.edges:
        gold.add_edge(rename.get(u, u), rename.get(v, v))
    return gold, missing


def open_systems(model: Any, examples: Sequence[Any], db: OpenDB, golds: Sequence[Gold], top_n: int, index_dir: Path,
                 shapes: dict[str, str] | None = None, golden: Any = None) -> tuple[dict[str, System], dict[str, Any]]:
    """One system per open-setting method (set baselines take ``k`` = the gold size: labelled oracle),
    and a dict the BGR systems fill with the first stage's recall and latency."""
    from graphhop.core import Passage
    from graphhop.eval.tasks import ORACLE_K
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.models.encoder import load_encoder
    from graphhop.retrieve.baselines import golden_chain, ids_to_graph
    from graphhop.retrieve.bm25 import BM25Retriever
    from graphhop.retrieve.golden import GoldEnSearch
    from graphhop.retrieve.graphhop import BGRRetriever, CandidatePool

    index = build_index(documents_from_passages(Passage(i, t) for i, t in zip(db.ids, db.texts)), index_dir,
                        dense=None, overwrite=True, progress=False)
    bm25, shapes, stats = BM25Retriever(index, normalize=True), shapes or {}, {"recall": [], "latency_ms": []}
    encoder = load_encoder(model.cfg.encoder_to_load())
    encode = lambda texts: encoder.encode(texts, convert_to_numpy=True, normalize_embeddings=True)  # noqa: E731
    ret = BGRRetriever(model, encode=lambda t: encode(t))
    sizes = [len(g.graph.evidence_ids) for g in golds]

    def bgr(mode: str) -> Callable[[list[str]], list[Prediction]]:
        def predict(_: list[str]) -> list[Prediction]:
            out = []
            for ex, gold in zip(examples, golds):
                t0 = time.perf_counter()
                qv = encode([ex.query])[0]
                s = db.vectors @ qv
                top = np.argpartition(-s, top_n)[:top_n]
                top = top[np.argsort(-s[top], kind="stable")]
                pool = CandidatePool([db.ids[i] for i in top], [db.texts[i] for i in top], db.vectors[top])
                out.append(Prediction(graph=ret.retrieve_pool(ex.question, pool, qv, mode=mode, query=ex.query)))
                if mode == "bidirectional":
                    stats["latency_ms"].append(1000 * (time.perf_counter() - t0))
                    stats["recall"].append(len(gold.evidence & set(pool.ids)) / max(len(gold.evidence), 1))
            return out
        return predict

    def chain(ids_of: Callable[[Any, int], list[str]], shape: str) -> Callable[[list[str]], list[Prediction]]:
        return lambda _: [Prediction(graph=ids_to_graph(ex.question, ids_of(ex, k), None, shape)) for ex, k in zip(examples, sizes)]

    def dense_top(ex: Any, k: int) -> list[str]:
        s = db.vectors @ encode([ex.query])[0]
        return [db.ids[i] for i in np.argsort(-s, kind="stable")[:k]]

    def mdr_chain(ex: Any, k: int) -> list[int]:
        picked: list[int] = []
        for _ in range(k):  # MDR: the question + the chain so far is the next query
            sc = db.vectors @ encode([" [SEP] ".join([ex.query, *(db.texts[i] for i in picked)])])[0]
            sc[picked] = -np.inf
            picked.append(int(np.argmax(sc)))
        return [db.ids[i] for i in picked]

    systems = {"bm25": System(chain(lambda ex, k: [h.id for h in bm25.search([ex.query], k)[0]], shapes.get("bm25", "chain")), ORACLE_K),
               "dense": System(chain(dense_top, shapes.get("dense", "chain")), ORACLE_K),
               "mdr": System(chain(mdr_chain, "chain"), ORACLE_K)}
    if golden is not None:
        search = GoldEnSearch(index)
        systems["golden"] = System(chain(lambda ex, k: golden_chain(ex.query, search, golden, k), "chain"), ORACLE_K)
    systems.update({f"bgr-{m}": System(bgr(m)) for m in ("bidirectional", "forward", "backward")})
    return systems, stats


def open_setting(model: Any, examples: Sequence[Any], db: OpenDB, top_n: int, index_dir: Path, select: str,
                 shapes: dict[str, str] | None = None, golden: Any = None,
                 ged_timeout: float = 1.0) -> tuple[Table, dict[str, Any]]:
    """The open setting as one Experiment (graph measures, GED searched for ``ged_timeout`` s; by gold type
    and depth) and its first-stage facts."""
    golds, missing = [], 0
    for ex in examples:
        gold, miss = relabel_gold(ex, db.by_text)
        missing += miss
        golds.append(Gold(ex.id, [], set(gold.evidence_ids), gold, {"type": gold.graph_type(), "depth": depth_key(ex.depth)}))
    systems, stats = open_systems(model, examples, db, golds, top_n, index_dir, shapes, golden)
    table = Experiment(graph_measures(ged_timeout), report="open", select=select, title="open").run(systems, [ex.question for ex in examples], golds)
    lat = stats["latency_ms"]
    return table, {"db_size": len(db.ids), "gold_not_in_db": f"{missing}/{sum(len(g.evidence) for g in golds)}",
                   "first_stage": {"kind": "dense (exact inner product)", "top_n": top_n,
                                   "recall": round(float(np.mean(stats["recall"])), 4) if stats["recall"] else None},
                   "latency_ms": {"n": len(lat), "p50": round(percentile(lat, 50), 2), "p95": round(percentile(lat, 95), 2),
                                  "includes": "question encoding + dense search over the DB + bidirectional BGR"}}


# ---------------------------------------------------------------------- tables
def results_markdown(result: dict[str, Any]) -> str:
    """The markdown of one dataset's ``results.json`` (:func:`benchmarks.bgr_eval` writes both)."""
    sel, ds = result["selection"], result["dataset"]
    md = [f"## {ds}", "", f"train {result['train']} questions, selection {result['select']} (a chain-disjoint carve of "
          f"train); training {result['train_seconds']} s; chosen: thresholds fwd {sel.get('threshold_forward')} / bwd "
          f"{sel.get('threshold_backward')}, max matches per step fwd {sel.get('max_branch')} / bwd "
          f"{sel.get('max_branch_backward')}, merge `{sel.get('merge')}`; baseline graph shapes {result['baseline_shapes']}"
          + (f", baseline k chosen on the carve {result['baseline_k']}" if result.get('baseline_k') else ""), ""]
    for name, tj in result["eval"].items():
        t = Table(tj["title"], tj["measures"], tj["rows"], tj.get("groups", {}))
        md += [f"### {ds} {name} (closed pools)", "", t.markdown(), "", "By graph type:", "", t.markdown("type"), "",
               "By depth:", "", t.markdown("depth"), ""]
    lat = result.get("latency", {})
    if lat:
        md += [f"Latency (closed, 25-candidate pools, bidirectional, vectors cached): {lat.get('closed')}", ""]
    if "open" in result:
        o, tj = result["open"], result["open"]["table"]
        t = Table(tj["title"], tj["measures"], tj["rows"], tj.get("groups", {}))
        md += [f"### {ds} open setting (DB {o['db_size']} sentences, first stage {o['first_stage']}, "
               f"gold not in DB {o['gold_not_in_db']})", "", t.markdown(), "", "By depth:", "", t.markdown("depth"), "",
               f"Latency (open): {o['latency_ms']}", ""]
    return "\n".join(md) + "\n"


def _row(table: dict[str, Any], method: str) -> dict[str, Any] | None:
    return next((r for r in table["rows"] if r["method"].split(" (oracle")[0] == method), None)


def report(folder: Path) -> str:
    """Cross-dataset summary of ``<folder>/*/results.json``: R / F1 / GM of every method, each report split and open."""
    lines = ["| dataset | split | n | " + " | ".join(f"{m} R / F1 / GM" for m in SUMMARY) + " | BGR merge chosen |",
             "|---|---|---:|" + "---:|" * len(SUMMARY) + "---|"]
    for path in sorted(folder.glob("*/results.json")):
        r = json.loads(path.read_text())
        sets = list(r["eval"].items()) + ([("open", r["open"]["table"])] if "open" in r else [])
        for split, table in sets:
            cells = []
            for m in SUMMARY:
                a = _row(table, m)
                cells.append(f"{a['R']:.3f} / {a['F1']:.3f} / {a['GM']:.3f}" if a else "–")
            lines.append(f"| {r['dataset']} | {split} | {table['n']} | " + " | ".join(cells) + f" | {r['selection'].get('merge')} |")
    return "\n".join(lines)


def dataset_tables(folder: Path) -> str:
    """Every dataset's ``results.md`` under ``folder`` (headings one level down), with training and wall time."""
    parts = []
    for path in sorted(folder.glob("*/results.json")):
        r = json.loads(path.read_text())
        md = (path.parent / "results.md").read_text()
        parts += [md.replace(f"## {r['dataset']}", f"#### {r['dataset']}", 1).replace("\n### ", "\n##### "), ""]
        gold = f" GoldEn generator oracle: {r['golden_generator']}." if r.get("golden_generator") else ""
        parts += [f"Training: {r['train_seconds']} s, best epoch {r['best_epoch']} (1 torch thread, 2 shared cores); "
                  f"benchmark wall time {r.get('total_seconds')} s.{gold}", ""]
    return "\n".join(parts)
