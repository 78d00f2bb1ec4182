"""Graph-hop retrieval (BGR) vs. baselines (Graph-hop paper, Table 3), closed and open settings.

One dataset per run: trains BGR on cached frozen-MiniLM vectors (train split, best epoch and
thresholds/merge chosen on dev), then scores random / BM25 / dense / MDR-style chain baselines
(k = gold set size) and BGR forward / backward / bidirectional (+ every merge rule) with evidence-set
EM/P/R/F1, GM, GS and GED, broken down by gold graph type and by depth; measures latency.

    GRAPHHOP_DATA=/work/shared/data python benchmarks/bgr_eval.py --dataset pq-2h \
        --data-dir /tmp/gh/datasets/pq-2h --out runs/bgr --train-limit 1000 --eval-limit 200 --open
    GRAPHHOP_DATA=/work/shared/data python benchmarks/bgr_eval.py --dataset entailmentbank --out runs/bgr --open

Builder datasets: train on ``train.jsonl``, choose on ``dev.jsonl``, report ``dev`` and the builder's
held-out ``test`` split. EntailmentBank: train on angles task-2 train (gold + distractor contexts)
minus its last 10% (the selection dev), report the v2 task-1 and task-2 dev trees; the open setting
retrieves the task-3 trees' leaves from the WorldTree corpus.

Open setting: the textual DB is every distinct evidence sentence of the dataset (all splits' pools)
or WorldTree; the first stage is exact dense top-N (cached MiniLM vectors, inner product, the same
ranking as a FAISS flat index); BM25 baselines use the project's tantivy index over the DB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Sequence

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

from graphhop.datasets.builder import read_records  # noqa: E402
from graphhop.graph import EvidenceGraph  # noqa: E402
from graphhop.retrieve.baselines import PoolBM25, golden_chain, ids_to_graph  # noqa: E402
from graphhop.retrieve.golden import GoldEnSearch  # noqa: E402
from graphhop.retrieve.graphhop import MERGE_RULES, BGRConfig, BGRRetriever, CandidatePool, load_model  # noqa: E402
from graphhop.eval.bgr import choose_shapes, depth_key, evaluate_methods, golden_generator, golden_pool_method  # noqa: E402
from graphhop.train.bgr import TrainConfig, finetune_encoder, train_bgr, train_pool_generator  # noqa: E402
from graphhop.train.bgr_data import BGRExample, EmbeddingCache, load_examples  # noqa: E402

METRICS = ("em", "precision", "recall", "f1", "gm", "gs", "ged")


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def eb_records(root: Path) -> dict[str, list[dict]]:
    from graphhop.datasets.entailmentbank import load_angles, load_entailmentbank, tree_record

    eb = root / "entailmentbank"
    train = [tree_record(t, "train") for t in load_angles(eb / "angles" / "task_2" / "train.jsonl")]
    cut = int(len(train) * 0.9)
    return {
        "train": train[:cut],
        "select": train[cut:],
        "task1-dev": [tree_record(t, "dev") for t in load_entailmentbank(eb / "task_1" / "dev.jsonl")],
        "task2-dev": [tree_record(t, "dev") for t in load_entailmentbank(eb / "task_2" / "dev.jsonl")],
        "task3-dev": [tree_record(t, "dev") for t in load_entailmentbank(eb / "task_3" / "dev.jsonl", eb / "task_1" / "dev.jsonl")],
    }


def builder_records(folder: Path) -> dict[str, list[dict]]:
    out = {}
    for split in ("train", "dev", "test"):
        path = folder / f"{split}.jsonl"
        if path.exists():
            out[split] = list(read_records(path))
    out["select"] = out["dev"]
    return out


def closed_latency(ret: BGRRetriever, examples: list[BGRExample], size: int, seed: int = 13) -> dict[str, float]:
    """Per-question bidirectional retrieval time over pools padded to ``size`` candidates with evidence
    of other questions (vectors cached; question encoding not included)."""
    rng = random.Random(seed)
    others = [(ex.id, i) for ex in examples for i in range(len(ex.pool.ids))]
    by_id = {ex.id: ex for ex in examples}
    times = []
    for ex in examples:
        ids, texts, vecs = list(ex.pool.ids), list(ex.pool.texts), [v for v in ex.pool.vectors]
        while len(ids) < size:
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
    return {"pool": size, "n": len(times), "p50_ms": round(pct(times, 50), 2), "p95_ms": round(pct(times, 95), 2)}


# ---------------------------------------------------------------------- open setting
def open_eval(model, examples: list[BGRExample], db_ids: list[str], db_texts: list[str], db_vecs: np.ndarray,
              text_to_db: dict[str, str], cache: EmbeddingCache, top_n: int, index_dir: Path, ged_timeout: float,
              shapes: dict[str, str] | None = None, golden: Any = None, only: Sequence[str] | None = None) -> dict:
    """Open setting: relabel gold graphs to DB ids (by text), first-stage dense top-N -> BGR; baselines
    over the whole DB (BM25 via tantivy, dense, MDR chain; GoldEn's hop loop over the same tantivy index
    when a ``golden`` query generator is given), set baselines drawn in their dev-chosen shape. ``only``
    restricts the methods scored (e.g. ``["golden"]`` to add a method to an earlier run)."""
    from graphhop.core import Passage
    from graphhop.index.directory import build_index, documents_from_passages
    from graphhop.metrics.graph import breakdown, score_graph
    from graphhop.models.encoder import load_encoder
    from graphhop.retrieve.bm25 import BM25Retriever

    index = build_index(documents_from_passages(Passage(i, t) for i, t in zip(db_ids, db_texts)), index_dir,
                        dense=None, overwrite=True, progress=False)
    bm25 = BM25Retriever(index, normalize=True)
    gsearch = GoldEnSearch(index) if golden is not None else None
    encoder = load_encoder(encoder_name(model))
    ret = BGRRetriever(model, encode=lambda t: encoder.encode(t, convert_to_numpy=True, normalize_embeddings=True))
    norm = lambda s: " ".join(s.lower().split())  # noqa: E731
    methods = ["bm25", "dense", "mdr", "bgr-forward", "bgr-backward", "bgr-bidirectional"] + (["golden"] if golden else [])
    rows: dict[str, dict[str, list]] = {m: {"type": [], "depth": []} for m in (only or methods)}
    first_recall, lat, unreachable, n_gold = [], [], 0, 0
    pos = {d: i for i, d in enumerate(db_ids)}
    for ex in examples:
        # gold relabelled to DB ids; a gold node whose text is not in the DB keeps a unique id (unreachable)
        gold = EvidenceGraph(ex.gold.question, ex.gold.root, ex.gold.text_evidence)
        rename = {}
        for n in ex.gold.evidence_ids:
            text = ex.gold.g.nodes[n].get("text", "")
            did = text_to_db.get(norm(text))
            rename[n] = did if did is not None and did not in rename.values() else f"missing:{ex.id}:{n}"
            unreachable += did is None
            n_gold += 1
            gold.add_evidence(rename[n], text, ex.gold.g.nodes[n].get("facts", []), ex.gold.g.nodes[n].get("kind", "evidence"))
        for u, v in ex.gold.edges:
            gold.add_edge(rename.get(u, u), rename.get(v, v))
        k = len(gold.evidence_ids)
        t0 = time.perf_counter()
        qv = encoder.encode([ex.query], convert_to_numpy=True, normalize_embeddings=True)[0]
        s = db_vecs @ qv
        top = np.argpartition(-s, top_n)[:top_n]
        top = top[np.argsort(-s[top], kind="stable")]
        pool = CandidatePool([db_ids[i] for i in top], [db_texts[i] for i in top], db_vecs[top])
        preds = {"bgr-bidirectional": ret.retrieve_pool(ex.question, pool, qv, query=ex.query)}
        lat.append(1000 * (time.perf_counter() - t0))
        preds["bgr-forward"] = ret.retrieve_pool(ex.question, pool, qv, mode="forward", query=ex.query)
        preds["bgr-backward"] = ret.retrieve_pool(ex.question, pool, qv, mode="backward", query=ex.query)
        gold_set = set(gold.evidence_ids)
        first_recall.append(len(gold_set & set(pool.ids)) / max(len(gold_set), 1))
        texts = {d: db_texts[pos[d]] for d in pool.ids}
        shapes = shapes or {}
        preds["dense"] = ids_to_graph(ex.question, [db_ids[i] for i in top[:k]], texts, shapes.get("dense", "chain"))
        preds["bm25"] = ids_to_graph(ex.question, [h.id for h in bm25.search([ex.query], k)[0]], None, shapes.get("bm25", "chain"))
        chain: list[int] = []
        for _ in range(k):
            v = encoder.encode([" [SEP] ".join([ex.query, *(db_texts[i] for i in chain)])], convert_to_numpy=True,
                               normalize_embeddings=True)[0]
            sc = db_vecs @ v
            if chain:
                sc[chain] = -np.inf
            chain.append(int(np.argmax(sc)))
        preds["mdr"] = ids_to_graph(ex.question, [db_ids[i] for i in chain], None, "chain")
        if golden is not None:
            preds["golden"] = ids_to_graph(ex.question, golden_chain(ex.query, gsearch, golden, k), None, "chain")
        for m, g in preds.items():
            if m not in rows:
                continue
            sc = score_graph(g, gold, ged_timeout)
            rows[m]["type"].append(sc)
            d = type(sc)(**{**sc.__dict__, "graph_type": depth_key(ex.depth)})
            rows[m]["depth"].append(d)
    out = {m: {"by_type": breakdown(r["type"]), "by_depth": breakdown(r["depth"])} for m, r in rows.items()}
    return {"methods": out, "first_stage": {"kind": "dense (exact inner product)", "top_n": top_n,
                                            "recall": round(float(np.mean(first_recall)), 4)},
            "gold_not_in_db": f"{unreachable}/{n_gold}",
            "latency_ms": {"n": len(lat), "p50": round(pct(lat, 50), 2), "p95": round(pct(lat, 95), 2),
                           "includes": "question encoding + dense search over the DB + bidirectional BGR"},
            "db_size": len(db_ids)}


# ---------------------------------------------------------------------- tables
def table(rows: dict, key: str = "all", by: str = "by_type") -> str:
    lines = ["| method | n | EM | P | R | F1 | GM | GS | GED |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for m, r in rows.items():
        row = r[by].get(key)
        if row is None:
            continue
        lines.append(f"| {m} | {row['n']} | " + " | ".join(f"{row[x]:.3f}" for x in METRICS) + " |")
    return "\n".join(lines)


def breakdown_table(rows: dict, by: str, metric: str = "f1") -> str:
    keys = sorted({k for r in rows.values() for k in r[by] if k != "all"})
    n = {k: next(r[by][k]["n"] for r in rows.values() if k in r[by]) for k in keys}
    head = "| method | " + " | ".join(f"{k} (n={n[k]})" for k in keys) + " |"
    lines = [head, "|---|" + "---:|" * len(keys)]
    for m, r in rows.items():
        lines.append(f"| {m} | " + " | ".join(f"{r[by][k][metric]:.3f}" if k in r[by] else "" for k in keys) + " |")
    return "\n".join(lines)


SUMMARY = ("random", "bm25", "dense", "mdr", "golden", "bgr-forward", "bgr-backward", "bgr-bidirectional")


def report(folder: Path) -> str:
    """Cross-dataset summary: recall / F1 / GM of every method, closed (each eval split) and open."""
    lines = ["| dataset | split | n | " + " | ".join(f"{m} R / F1 / GM" for m in SUMMARY) + " | BGR merge chosen |",
             "|---|---|---:|" + "---:|" * len(SUMMARY) + "---|"]
    for path in sorted(folder.glob("*/results.json")):
        r = json.loads(path.read_text())
        sets = [(k, v) for k, v in r["eval"].items()] + ([("open", r["open"]["methods"])] if "open" in r else [])
        for split, rows in sets:
            n = next(iter(rows.values()))["by_type"]["all"]["n"]
            cells = []
            for m in SUMMARY:
                a = rows.get(m, {}).get("by_type", {}).get("all")
                cells.append(f"{a['recall']:.3f} / {a['f1']:.3f} / {a['gm']:.3f}" if a else "–")
            lines.append(f"| {r['dataset']} | {split} | {n} | " + " | ".join(cells) + f" | {r['selection'].get('merge')} |")
    return "\n".join(lines)


def dataset_tables(folder: Path) -> str:
    """Every dataset's ``results.md`` under ``folder`` (headings one level down), with training time,
    wall time and GED timeouts: the per-dataset part of docs/RESULTS.md."""
    parts = []
    for path in sorted(folder.glob("*/results.json")):
        r = json.loads(path.read_text())
        ds = r["dataset"]
        md = (path.parent / "results.md").read_text()
        parts += [md.replace(f"## {ds}", f"#### {ds}", 1).replace("\n### ", "\n##### "), ""]
        tos = "; ".join(f"{k}: " + (", ".join(f"{m} {v['by_type']['all']['ged_timeouts']}" for m, v in rows.items()
                                              if v["by_type"]["all"].get("ged_timeouts")) or "none")
                        for k, rows in r["eval"].items())
        gold = f" GoldEn generator oracle: {r['golden_generator']}." if r.get("golden_generator") else ""
        parts += [f"Training: {r['train_seconds']} s, best epoch {r['best_epoch']} (1 torch thread, 2 shared cores); "
                  f"benchmark wall time {r.get('total_seconds')} s. GED timeouts (values that are upper bounds) per eval "
                  f"set: {tos}.{gold}", ""]
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--report", type=Path, help="only print the cross-dataset summary of <dir>/*/results.json")
    ap.add_argument("--tables", type=Path, help="only print every dataset's tables under <dir> (for docs/RESULTS.md)")
    ap.add_argument("--dataset", help="name: a builder dataset (pq-2h, wc-c, ...) or entailmentbank")
    ap.add_argument("--data-dir", type=Path, help="builder dataset folder (train/dev/test.jsonl)")
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("GRAPHHOP_DATA", "/work/shared/data")))
    ap.add_argument("--out", type=Path, default=Path("runs/bgr"))
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"))
    ap.add_argument("--train-limit", type=int, default=1000)
    ap.add_argument("--select-limit", type=int, default=200)
    ap.add_argument("--eval-limit", type=int, default=200)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--max-minutes", type=float, default=8.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--open", action="store_true", help="also run the open setting")
    ap.add_argument("--open-limit", type=int, default=100)
    ap.add_argument("--top-n", type=int, default=25)
    ap.add_argument("--ged-timeout", type=float, default=1.0)
    ap.add_argument("--path-text", action="store_true", help="add the path-text feature (MDR query cosine)")
    ap.add_argument("--vector-dropout", type=float, default=0.0,
                    help="training: drop a row's whole vector block with this probability")
    ap.add_argument("--interactions-only", action="store_true", help="matcher without the raw code/candidate vectors")
    ap.add_argument("--wide-pair", action="store_true", help="pair features also enter the logit linearly (wide & deep)")
    ap.add_argument("--no-pair-features", action="store_true", help="the paper's matcher: encoder vectors only")
    ap.add_argument("--reselect", action="store_true", help="with --reuse-model: redo the dev selection")
    ap.add_argument("--reuse-model", action="store_true", help="load <out>/<dataset>/model instead of training")
    ap.add_argument("--finetune-encoder", action="store_true",
                    help="fine-tune the encoder first (MDR-style pairs from the gold graphs; baselines use it too)")
    ap.add_argument("--encoder-minutes", type=float, default=10.0)
    ap.add_argument("--crossfit", action="store_true",
                    help="with --finetune-encoder: fit the encoder on the first half of the training questions, BGR on the rest")
    ap.add_argument("--golden", action="store_true", help="add GoldEn (pool query generator trained on train) as a baseline")
    ap.add_argument("--add-golden", action="store_true", help="only add GoldEn rows to an earlier run's results")
    ap.add_argument("--golden-limit", type=int, default=400, help="training questions for GoldEn's generator")
    ap.add_argument("--golden-epochs", type=int, default=1)
    args = ap.parse_args()
    if args.report:
        print(report(args.report))
        return
    if args.tables:
        print(dataset_tables(args.tables))
        return
    if not args.dataset:
        ap.error("--dataset is required")

    import torch

    torch.set_num_threads(args.threads)
    from graphhop.models.encoder import set_threads

    set_threads(args.threads)
    out = args.out / args.dataset
    out.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    recs = eb_records(args.data) if args.dataset == "entailmentbank" else builder_records(args.data_dir)
    cache = EmbeddingCache(args.cache)
    t0 = time.perf_counter()
    train = load_examples(recs["train"], cache, args.train_limit)
    select = load_examples(recs["select"], cache, args.select_limit)
    eval_sets = {"task1-dev": recs["task1-dev"], "task2-dev": recs["task2-dev"]} if args.dataset == "entailmentbank" \
        else {"dev": recs["dev"], "test": recs.get("test", [])}
    evals = {k: load_examples(v, cache, args.eval_limit) for k, v in eval_sets.items() if v}
    encoder = BGRConfig().encoder
    if args.finetune_encoder:  # the paper trains the encoder: fine-tune it first, then re-encode everything
        edir = (out / "encoder").resolve()
        enc_train = train[: len(train) // 2] if args.crossfit else train
        if not (edir / "graphhop_card.json").exists():
            ecard = finetune_encoder(enc_train, edir, max_minutes=args.encoder_minutes, progress=False)
            print(f"# encoder fine-tuned: {json.dumps(ecard)}", file=sys.stderr)
        encoder = str(edir)
        cache = EmbeddingCache(out / "emb-cache", model=encoder)
        train = load_examples(recs["train"], cache, args.train_limit)
        if args.crossfit:  # the matcher never sees the questions the encoder was fitted on
            train = train[len(enc_train):]
        select = load_examples(recs["select"], cache, args.select_limit)
        evals = {k: load_examples(v, cache, args.eval_limit) for k, v in eval_sets.items() if v}
    encode_s = time.perf_counter() - t0
    print(f"# {args.dataset}: train {len(train)}, select {len(select)}, " +
          ", ".join(f"{k} {len(v)}" for k, v in evals.items()) + f"; encoding {encode_s:.0f} s", file=sys.stderr)

    collection = [e["text"] for split in recs.values() for r in split for e in r["evidence"]]
    bm25 = PoolBM25(dict.fromkeys(collection))
    if args.add_golden:
        add_golden(args, out, train, evals, recs, collection, bm25, cache)
        return
    if args.reuse_model:
        model, card = load_model(out / "model")
        card.setdefault("train_seconds", None)
        card.setdefault("best_epoch", None)
        card.setdefault("history", [])
        if args.reselect:  # choose thresholds / branching / merge again on the selection dev
            from graphhop.retrieve.graphhop import save_model
            from graphhop.train.bgr import select_inference

            card["selection"] = select_inference(model, select, encode=lambda t: cache.encode(t))
            save_model(model, out / "model", {k: v for k, v in card.items() if k not in ("config", "kind", "version", "saved")})
    else:
        model, card = train_bgr(train, select, out / "model", BGRConfig(encoder=encoder, pair_features=not args.no_pair_features, path_text_feature=args.path_text,
                                                                     wide_pair=args.wide_pair,
                                                                     interactions_only=args.interactions_only,
                                                                     vector_dropout=args.vector_dropout), TrainConfig(
            epochs=args.epochs, max_minutes=args.max_minutes, dev_limit=args.select_limit, threads=args.threads),
            progress=False, log=lambda m: print(m, file=sys.stderr), card_extra={"dataset": args.dataset},
            encode=lambda t: cache.encode(t))
    print(f"# trained in {card['train_seconds']} s; selection {json.dumps(card['selection'])}", file=sys.stderr)

    encode_cached = lambda texts: cache.encode(texts)  # noqa: E731
    shapes = choose_shapes(select, bm25, encode_cached)
    chains, golden, result_extra = {}, None, {}
    if args.golden:
        gdir = train_or_reuse_golden(args, out, train, bm25)
        golden = golden_generator(gdir)
        chains["golden"] = golden_pool_method(golden, bm25)
        result_extra = {"golden_generator": json.loads((gdir / "model_card.json").read_text()).get("oracle")}
    result = {"dataset": args.dataset, "train": len(train), "select": len(select), "encode_seconds": round(encode_s, 1),
              "train_seconds": card["train_seconds"], "selection": card["selection"], "best_epoch": card["best_epoch"],
              "history": card["history"], "baseline_shapes": shapes, "eval": {}, "latency": {}, **result_extra}
    for name, exs in evals.items():
        rows = evaluate_methods(model, exs, bm25=bm25, encode=encode_cached, shapes=shapes,
                                extra_merges=MERGE_RULES, ged_timeout=args.ged_timeout, chains=chains)
        result["eval"][name] = insert_after(rows, {m: rows[m] for m in chains})
        cache.save()
    ret = BGRRetriever(model, encode=lambda t: cache.encode(t))
    main_eval = next(iter(evals.values()))
    result["latency"]["closed"] = closed_latency(ret, main_eval, 25)
    from graphhop.models.encoder import load_encoder

    enc = load_encoder(encoder_name(model))
    qt = []
    for ex in main_eval[:50]:
        t0 = time.perf_counter()
        enc.encode([ex.query], convert_to_numpy=True)
        qt.append(1000 * (time.perf_counter() - t0))
    result["latency"]["question_encoding"] = {"p50_ms": round(pct(qt, 50), 2), "p95_ms": round(pct(qt, 95), 2)}

    if args.open:
        db_ids, db_texts, db_vecs, text_to_db, open_ex = open_db(args, recs, collection, cache, evals)
        result["open"] = open_eval(model, open_ex, db_ids, db_texts, db_vecs, text_to_db, cache, args.top_n,
                                   out / "open-index", args.ged_timeout, shapes, golden=golden)
    result["total_seconds"] = round(time.perf_counter() - t_start, 1)
    write_results(out, result)


def encoder_name(model: Any) -> str | None:
    """The BGR model's encoder for :func:`load_encoder` (``None``: the bundled MiniLM)."""
    return None if model.cfg.encoder == BGRConfig().encoder else model.cfg.encoder


def open_db(args: argparse.Namespace, recs: dict[str, list[dict]], collection: list[str], cache: EmbeddingCache,
            evals: dict[str, list[BGRExample]]) -> tuple[list[str], list[str], np.ndarray, dict[str, str], list[BGRExample]]:
    """The open setting's textual DB (ids, texts, cached vectors, normalized text -> id) and its questions."""
    norm = lambda s: " ".join(s.lower().split())  # noqa: E731
    if args.dataset == "entailmentbank":
        from graphhop.datasets.entailmentbank import load_worldtree

        passages = load_worldtree(args.data / "entailmentbank" / "worldtree_corpus_sentences_extended.json")
        db_ids, db_texts = [p.id for p in passages], [p.text for p in passages]
        # task-3 gold graphs: the task-1 trees, leaves matched by text (pool-independent)
        open_recs = [dict(r) for r in recs["task3-dev"][: args.open_limit]]
        for r in open_recs:  # keep every gold leaf (also those the task-3 context missed)
            r["evidence"] = r["evidence"] + [{"id": n["id"], "text": n["text"], "facts": [], "gold": True}
                                             for n in r["graph"]["nodes"] if n["id"].startswith("gold:")]
        open_ex = load_examples(open_recs, cache)
    else:
        db_texts = list(dict.fromkeys(collection))
        db_ids = [f"d{i}" for i in range(len(db_texts))]
        open_ex = next(iter(evals.values()))[: args.open_limit]
    text_to_db: dict[str, str] = {}
    for i, t in zip(db_ids, db_texts):
        text_to_db.setdefault(norm(t), i)
    t0 = time.perf_counter()
    db_vecs = cache.encode(db_texts, progress=False)
    cache.save()
    print(f"# open DB {len(db_ids)} sentences encoded in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return db_ids, db_texts, db_vecs, text_to_db, open_ex


def train_or_reuse_golden(args: argparse.Namespace, out: Path, train: list[BGRExample], bm25: PoolBM25) -> Path:
    """Train GoldEn's pool query generator on the training questions (or reuse ``<out>/golden-generator``)."""
    gdir = out / "golden-generator"
    if not (gdir / "model.safetensors").exists():
        card = train_pool_generator(train, bm25, gdir, limit=args.golden_limit, epochs=args.golden_epochs, progress=False)
        print(f"# GoldEn generator: {card['train_examples']} hop examples, {card['steps']} steps, "
              f"{card['train_seconds']} s; oracle {card['oracle']}", file=sys.stderr)
    return gdir


def insert_after(rows: dict, new: dict, after: str = "mdr") -> dict:
    """``rows`` with ``new``'s methods placed right after ``after`` (replacing same-named rows)."""
    out = {}
    for m, r in rows.items():
        if m not in new:
            out[m] = r
        if m == after:
            out.update(new)
    out.update({m: r for m, r in new.items() if m not in out})
    return out


def add_golden(args: argparse.Namespace, out: Path, train: list[BGRExample], evals: dict[str, list[BGRExample]],
               recs: dict[str, list[dict]], collection: list[str], bm25: PoolBM25, cache: EmbeddingCache) -> None:
    """Add GoldEn rows (closed and, when run, open) to an earlier run's ``results.json`` / ``results.md``."""
    result = json.loads((out / "results.json").read_text())
    gdir = train_or_reuse_golden(args, out, train, bm25)
    generator = golden_generator(gdir)
    chains = {"golden": golden_pool_method(generator, bm25)}
    for name, exs in evals.items():
        rows = evaluate_methods(None, exs, methods=(), bm25=bm25, chains=chains, ged_timeout=args.ged_timeout)
        result["eval"][name] = insert_after(result["eval"][name], rows)
    if "open" in result:
        model, _ = load_model(out / "model")
        db_ids, db_texts, db_vecs, text_to_db, open_ex = open_db(args, recs, collection, cache, evals)
        n_open = next(iter(result["open"]["methods"].values()))["by_type"]["all"]["n"]
        o = open_eval(model, open_ex[:n_open], db_ids, db_texts, db_vecs, text_to_db, cache, args.top_n,
                      out / "open-index", args.ged_timeout, result.get("baseline_shapes"),
                      golden=generator, only=["golden"])
        result["open"]["methods"] = insert_after(result["open"]["methods"], o["methods"])
    result["golden_generator"] = json.loads((gdir / "model_card.json").read_text()).get("oracle")
    write_results(out, result)


def write_results(out: Path, result: dict) -> None:
    """``results.json`` and the markdown tables ``results.md`` of one dataset."""
    (out / "results.json").write_text(json.dumps(result, indent=1) + "\n")
    sel, ds = result["selection"], result["dataset"]
    md = [f"## {ds}", "", f"train {result['train']} questions, selection dev {result['select']}; training "
          f"{result['train_seconds']} s; chosen: thresholds fwd {sel.get('threshold_forward')} / bwd "
          f"{sel.get('threshold_backward')}, max matches per step fwd {sel.get('max_branch')} / bwd "
          f"{sel.get('max_branch_backward')}, merge `{sel.get('merge')}`; baseline graph shapes {result['baseline_shapes']}", ""]
    for name, rows in result["eval"].items():
        md += [f"### {ds} {name} (closed pools)", "", table(rows), "", "F1 by graph type:", "",
               breakdown_table(rows, "by_type"), "", "F1 by depth:", "", breakdown_table(rows, "by_depth"), "",
               "GM by depth:", "", breakdown_table(rows, "by_depth", "gm"), ""]
    md += [f"Latency (closed, 25-candidate pools, bidirectional, vectors cached): {result['latency']['closed']}; "
           f"question encoding: {result['latency']['question_encoding']}", ""]
    if "open" in result:
        o = result["open"]
        md += [f"### {ds} open setting (DB {o['db_size']} sentences, first stage {o['first_stage']}, "
               f"gold not in DB {o['gold_not_in_db']})", "", table(o["methods"]), "", "F1 by depth:", "",
               breakdown_table(o["methods"], "by_depth"), "", f"Latency (open): {o['latency_ms']}", ""]
    (out / "results.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
