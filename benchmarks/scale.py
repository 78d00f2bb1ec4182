"""Scale: 10k / 100k / 1M facts on one machine — flat (exact), hnsw-sq and ivf-pq dense indexes.

Two commands. The quality run (one process per size, so peak RAM is that size's) encodes the facts
(or reuses the vectors it cached), builds each index, chooses ivf-pq's ``nprobe`` on a *selection*
question set and measures recall vs flat and the answer-MRR loss vs exact on the disjoint *reported*
set; these figures are deterministic. It saves vectors, question vectors, indexes and chosen settings
under ``--cache``::

    GRAPHHOP_DATA=/work/shared/data python benchmarks/scale.py --size 1000000 [--kinds flat,ivf-pq]

The timing run reuses all of that (nothing is encoded or built) and prints one table of q/s at
top-1000 and top-10 for every cached size, batched over ``--threads`` threads::

    python benchmarks/scale.py --timing --sizes 10000,100000,1000000 --threads 2

Facts: the shared KBs (~150k, stride-sampled below that) plus synthetic facts above it (see
graphhop.bench.scale.fact_pool). Vectors come from the ``--backend`` encoder (static by default:
MiniLM torch on 1M facts would take hours on this machine). Questions: MetaQA-1h dev, two disjoint
even-stride samples of ``--queries``, encoded by the same backend.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import faiss
import numpy as np

from graphhop.bench.scale import (answer_mrr, build_dense, choose_nprobe, fact_pool, peak_rss_mb, question_sets, recall,
                                  time_search)
from graphhop.datasets.kgqa import data_root, load_dataset
from graphhop.index.dense import DenseIndex, DenseOptions
from graphhop.io import atomic_write_text
from graphhop.kb.verbalize import Verbalizer, normalize_question
from graphhop.models.backends import load_backend, set_threads


def encode(facts, backend: str, chunk: int = 65536) -> tuple[np.ndarray, float]:
    """All fact vectors (float32, preallocated) and the encoding rate."""
    verbalize = Verbalizer()
    encoder = load_backend(backend)
    out = np.zeros((len(facts), encoder.get_embedding_dimension()), dtype=np.float32)
    start = time.perf_counter()
    for i in range(0, len(facts), chunk):
        out[i : i + chunk] = encoder.encode([verbalize(f) for f in facts[i : i + chunk]], batch_size=1024)
        print(f"  encoded {min(i + chunk, len(facts))}/{len(facts)} ({time.perf_counter() - start:.0f}s)", flush=True)
    return out, len(facts) / (time.perf_counter() - start)


def cached_vectors(folder: Path, facts, backend: str) -> tuple[np.ndarray, float]:
    """The facts' vectors from ``folder`` when cached for the same size and backend, else encoded and saved."""
    meta_path, path = folder / "vectors.json", folder / "vectors.npy"
    if meta_path.is_file() and path.is_file():
        meta = json.loads(meta_path.read_text())
        if meta.get("size") == len(facts) and meta.get("backend") == backend:
            print(f"  reusing {path}", flush=True)
            return np.load(path), float(meta["facts_per_s"])
    vectors, rate = encode(facts, backend)
    np.save(folder / "vectors.tmp.npy", vectors)
    os.replace(folder / "vectors.tmp.npy", path)
    atomic_write_text(meta_path, json.dumps({"size": len(facts), "backend": backend, "facts_per_s": rate}))
    return vectors, rate


def measure(index: DenseIndex, queries: np.ndarray, examples, facts, exact: tuple[np.ndarray, np.ndarray]) -> dict:
    """Recall of ``index`` vs flat at 10 and 1000 and its answer MRR@1000 on the reported questions."""
    pos1000 = index.search(queries, 1000)[1]
    pos10 = index.search(queries, 10)[1]
    return {"recall@10": round(recall(pos10, exact[1]), 4), "recall@1000": round(recall(pos1000, exact[0]), 4),
            "answer_mrr@1000": round(answer_mrr(examples, facts, pos1000), 4)}


def build_or_load(folder: Path, vectors: np.ndarray, options: DenseOptions, reuse: bool) -> tuple[DenseIndex, dict]:
    """The index of ``options.kind`` (built and saved, or loaded when ``reuse`` and saved before)."""
    path, meta_path = folder / f"{options.kind}.faiss", folder / f"{options.kind}.json"
    if reuse and path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        return DenseIndex.load(path, DenseOptions.from_dict(meta["options"])), meta
    index, build_s, nbytes = build_dense(vectors, options)
    index.save(folder / f"{options.kind}.tmp.faiss")
    os.replace(folder / f"{options.kind}.tmp.faiss", path)
    meta = {"options": index.options.to_dict(), "build_s": round(build_s, 1), "bytes_per_fact": round(nbytes / len(vectors), 1)}
    atomic_write_text(meta_path, json.dumps(meta))
    return index, meta


def quality(args: argparse.Namespace) -> dict:
    """Build (or reuse) every index of one size and measure recall / MRR loss; save settings for --timing."""
    set_threads(args.build_threads)
    folder = Path(args.cache) / str(args.size)
    folder.mkdir(parents=True, exist_ok=True)
    facts, synthetic = fact_pool(data_root(), args.size)
    vectors, rate = cached_vectors(folder, facts, args.backend)
    reported, selection = question_sets(load_dataset("metaqa-1h", "dev"), args.queries)
    encoder = load_backend(args.backend)
    qr, qs = (encoder.encode([normalize_question(e.question) for e in ex], batch_size=256) for ex in (reported, selection))
    np.savez(folder / "questions.npz", reported=qr, selection=qs)
    flat = DenseIndex.create(vectors.shape[1], DenseOptions("flat"))
    flat.add(vectors)
    exact = (flat.search(qr, 1000)[1], flat.search(qr, 10)[1])
    exact_sel = answer_mrr(selection, facts, flat.search(qs, 1000)[1])
    del flat
    row = {"size": len(facts), "synthetic": synthetic, "backend": args.backend, "dim": int(vectors.shape[1]),
           "encode_facts_per_s": round(rate, 1), "questions": {"reported": len(reported), "selection": len(selection)},
           "exact_answer_mrr@1000": round(answer_mrr(reported, facts, exact[0]), 4), "kinds": {}}
    for kind in args.kinds.split(","):
        if kind == "flat":
            row["kinds"]["flat"] = {"bytes_per_fact": 4 * int(vectors.shape[1])}
            continue
        faiss.omp_set_num_threads(args.build_threads)
        index, meta = build_or_load(folder, vectors, DenseOptions(kind, args.m, args.ef_construction, args.ef_search),
                                    args.reuse)
        faiss.omp_set_num_threads(1)
        if kind == "ivf-pq":
            index, meta["nprobe_selection"] = choose_nprobe(index, qs, selection, facts, exact_sel, args.max_loss)
            meta["options"] = index.options.to_dict()
        meta.update(measure(index, qr, reported, facts, exact))
        meta["mrr_loss_vs_exact"] = round(row["exact_answer_mrr@1000"] - meta["answer_mrr@1000"], 4)
        if kind == "ivf-pq" and args.sweep:  # other settings on the reported set: shown, never chosen from
            meta["sweep_reported"] = [{"nprobe": p, **measure(index.with_options(nprobe=p), qr, reported, facts, exact)}
                                      for p in (int(x) for x in args.sweep.split(","))]
        atomic_write_text(folder / f"{kind}.json", json.dumps(meta))
        row["kinds"][kind] = meta
        print(f"  {kind}: {json.dumps(meta)}", flush=True)
    row["peak_rss_mb"] = round(peak_rss_mb())  # a build's peak only without --reuse
    row["reused_indexes"] = bool(args.reuse)
    row["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    atomic_write_text(folder / "quality.json", json.dumps(row, indent=1))
    return row


def timed(index: DenseIndex, queries: np.ndarray, k: int) -> tuple[float, float]:
    """``(wall q/s, q/s per CPU-second of this process)`` of one batched top-``k`` search."""
    cpu = time.process_time()
    qps, _, _ = time_search(index, queries, k)
    return qps, len(queries) / max(1e-9, time.process_time() - cpu)


def timing(args: argparse.Namespace) -> list[dict]:
    """q/s at top-1000 and top-10 of every kind saved by the quality runs, batched over ``args.threads``."""
    faiss.omp_set_num_threads(args.threads)
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        folder = Path(args.cache) / str(size)
        if not (folder / "quality.json").is_file():
            raise SystemExit(f"{folder}/quality.json: missing; run the quality run first: --size {size}")
        quality_row = json.loads((folder / "quality.json").read_text())
        queries = np.load(folder / "questions.npz")["reported"]
        for kind in quality_row["kinds"]:
            if kind == "flat":
                index = DenseIndex.create(int(quality_row["dim"]), DenseOptions("flat"))
                index.add(np.load(folder / "vectors.npy"))
            else:
                index = DenseIndex.load(folder / f"{kind}.faiss", DenseOptions.from_dict(quality_row["kinds"][kind]["options"]))
            (q1000, c1000), (q10, c10) = timed(index, queries, 1000), timed(index, queries, 10)
            rows.append({"size": size, "kind": kind, "qps_top1000": round(q1000, 1), "qps_top10": round(q10, 1),
                         "cpu_qps_top1000": round(c1000, 1), "cpu_qps_top10": round(c10, 1)})
            print(json.dumps(rows[-1]), flush=True)
            del index
    return rows


def print_timing(rows: list[dict], threads: int) -> None:
    """The timing table (markdown) and, per kind, how q/s falls from the smallest to the largest size."""
    print(f"\n| facts | index | top-1000 q/s | top-10 q/s | top-1000 q/CPU-s | top-10 q/CPU-s |  ({threads} threads, "
          f"load {os.getloadavg()[0]:.1f})\n|---:|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['size']:,} | {r['kind']} | {r['qps_top1000']:,} | {r['qps_top10']:,} | {r['cpu_qps_top1000']:,} | "
              f"{r['cpu_qps_top10']:,} |")
    for kind in dict.fromkeys(r["kind"] for r in rows):
        ks = [r for r in rows if r["kind"] == kind]
        for a, b in zip(ks, ks[1:]):  # sublinear: cost grows less than the number of facts
            print(f"{kind}: top-1000 query cost x{a['qps_top1000'] / b['qps_top1000']:.1f} (wall), "
                  f"x{a['cpu_qps_top1000'] / b['cpu_qps_top1000']:.1f} (CPU) from {a['size']:,} to {b['size']:,} facts "
                  f"(x{b['size'] / a['size']:.0f} facts)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, help="Quality run: facts to index.")
    parser.add_argument("--timing", action="store_true", help="Timing run over the cached sizes (--sizes).")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--cache", default=str(Path(os.environ.get("GRAPHHOP_CACHE") or Path.home() / ".cache/graphhop") / "scale"))
    parser.add_argument("--kinds", default="flat,hnsw-sq,ivf-pq")
    parser.add_argument("--reuse", action="store_true", help="Quality run: reuse indexes saved by an earlier run.")
    parser.add_argument("--backend", default="static")
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--m", type=int, default=32)
    parser.add_argument("--ef-construction", type=int, default=80)
    parser.add_argument("--ef-search", type=int, default=128)
    parser.add_argument("--max-loss", type=float, default=0.005, help="ivf-pq: answer-MRR loss allowed on the selection set.")
    parser.add_argument("--sweep", default="", help="ivf-pq: also measure these nprobe values on the reported set.")
    parser.add_argument("--build-threads", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2, help="Timing run: search threads (batched queries).")
    args = parser.parse_args()
    if args.timing:
        print_timing(timing(args), args.threads)
    elif args.size:
        print(json.dumps(quality(args)))
    else:
        parser.error("give --size N (quality run) or --timing")


if __name__ == "__main__":
    main()
