"""Graph-hop (BGR) closed pool vs the whole textual DB: top-25 first stage, and hop by hop.

    python benchmarks/open_graph_eval.py --data-dir DATASET --model BGR_DIR --out runs/open/NAME \
        [--split dev] [--limit 100] [--k 10]

DATASET is a builder folder (train/dev/test.jsonl); BGR_DIR a model from `graphhop train bgr` on it.
The DB is every distinct evidence sentence of all the folder's splits, indexed once (BM25 + flat
dense, bundled MiniLM) under --out. For the first --limit questions of --split (taken evenly over
the file: every n-th) it scores, against the gold graph (relabelled to DB ids by text):

* ``closed``: BGR over the question's own pool (gold + distractors), as issue 5 measured;
* ``open-top25``: BGR over the DB's dense top 25 for the question (issue 5's open setting);
* ``open-hops``: BGR hop by hop over the whole DB (`graphhop.retrieve.bgr_open.OpenBGR`: each step's
  candidates = dense + BM25 with question + path as the query, plus entity links, top --k);

for forward, backward and the model card's merge. Prints R / P / F1 / GM / GS / GED overall and by
depth, the gold share the open candidates ever reached, and latency (p50 / p95, warm).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def _stride(items: list, n: int) -> list:
    step = max(1, len(items) // max(1, n))
    return items[::step][:n]


def _db(recs: list[dict], out: Path):
    from graphhop.core import Passage
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages

    texts = list(dict.fromkeys(e["text"] for r in recs for e in r["evidence"]))
    path = out / "db-index"
    if (path / "manifest.json").exists():
        index = KnowledgeIndex.open(path, verify=False)
    else:
        index = build_index(documents_from_passages(Passage(f"s{i}", t) for i, t in enumerate(texts)), path,
                            dense=DenseOptions("flat"), overwrite=True, progress=True)
    return index, {" ".join(t.lower().split()): f"s{i}" for i, t in enumerate(texts)}


def _relabel(gold, text_to_db: dict[str, str], qid: str):
    from graphhop.graph import EvidenceGraph

    out = EvidenceGraph(gold.question, gold.root, gold.text_evidence)
    rename = {}
    for n in gold.evidence_ids:
        text = gold.g.nodes[n].get("text", "")
        rename[n] = text_to_db.get(" ".join(text.lower().split()), f"missing:{qid}:{n}")
        out.add_evidence(rename[n], text)
    for u, v in gold.edges:
        out.add_edge(rename.get(u, u), rename.get(v, v))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--k", type=int, default=10, help="candidates per hop (open-hops)")
    ap.add_argument("--ged-timeout", type=float, default=0.5)
    args = ap.parse_args()

    import torch

    from graphhop.datasets.builder import read_records
    from graphhop.metrics.graph import breakdown, score_graph
    from graphhop.retrieve.bgr_open import OpenBGR
    from graphhop.retrieve.graphhop import BGRRetriever, CandidatePool, load_model
    from graphhop.retrieve.texthop import HopSearch
    from graphhop.eval.bgr import depth_key as _depth_key
    from graphhop.train.bgr_data import EmbeddingCache, load_examples

    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    recs = [r for s in ("train", "dev", "test") if (args.data_dir / f"{s}.jsonl").exists()
            for r in read_records(args.data_dir / f"{s}.jsonl")]
    index, text_to_db = _db(recs, args.out)
    model, card = load_model(args.model)
    cache = EmbeddingCache(args.out / "cache", None)
    examples = load_examples(_stride(list(read_records(args.data_dir / f"{args.split}.jsonl")), args.limit), cache)
    encode = lambda t: cache.encode(t)  # noqa: E731
    closed = BGRRetriever(model, encode=encode)
    search = HopSearch(index, depth=max(20, args.k))
    modes = ("forward", "backward", "bidirectional")
    scores: dict[str, list] = {}
    lat: dict[str, list[float]] = {"open-top25": [], "open-hops": []}
    reached: list[float] = []
    for ex in examples:
        gold = _relabel(ex.gold, text_to_db, ex.id)
        qv = search.encode_queries([ex.query])[0]
        top = search.dense.search_vectors(qv[None, :], 25)[0]
        ids = [h.id for h in top]
        pool = CandidatePool(ids, [search.text(d) for d in ids], search.vectors(ids))
        for mode in modes:
            preds = {"closed": (closed.retrieve_pool(ex.question, ex.pool, ex.question_vec, mode=mode, query=ex.query), ex.gold)}
            t0 = time.perf_counter()
            preds["open-top25"] = (closed.retrieve_pool(ex.question, pool, qv, mode=mode, query=ex.query), gold)
            t1 = time.perf_counter()
            opener = OpenBGR(model, search, k=args.k, mode=mode)
            preds["open-hops"] = (opener.retrieve_graph(ex.query), gold)
            t2 = time.perf_counter()
            if mode == "bidirectional":
                reached.append(len(set(gold.evidence_ids) & set(opener.last_candidates)) / max(1, len(gold.evidence_ids)))
                lat["open-top25"].append(1000 * (t1 - t0))
                lat["open-hops"].append(1000 * (t2 - t1))
            for setting, (pred, g) in preds.items():
                sc = score_graph(pred, g, args.ged_timeout)
                scores.setdefault(f"{setting} {mode}", []).append(sc)
                d = type(sc)(**{**sc.__dict__, "graph_type": _depth_key(ex.depth)})
                scores.setdefault(f"{setting} {mode} by-depth", []).append(d)
    result = {k: breakdown(v) for k, v in scores.items()}
    result["_meta"] = {"n": len(examples), "db": len(index.docs), "k": args.k, "merge": card["config"]["merge"],
                       "gold_reached_by_open_candidates": round(float(np.mean(reached)), 4),
                       "latency_ms": {k: {"p50": round(float(np.percentile(v, 50)), 1),
                                          "p95": round(float(np.percentile(v, 95)), 1)} for k, v in lat.items() if v}}
    (args.out / "results.json").write_text(json.dumps(result, indent=1))
    print(f"# {args.data_dir.name} {args.split}: {len(examples)} questions, DB {len(index.docs)} sentences, "
          f"merge {card['config']['merge']}; {json.dumps(result['_meta'])}")
    print("| setting | mode | n | R | P | F1 | GM | GS | GED |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for key, br in result.items():
        if key.startswith("_") or key.endswith("by-depth"):
            continue
        a = br["all"]
        setting, mode = key.split(" ", 1)
        print(f"| {setting} | {mode} | {a['n']} | " + " | ".join(f"{a[m]:.3f}" for m in ("recall", "precision", "f1", "gm", "gs", "ged")) + " |")


if __name__ == "__main__":
    main()
