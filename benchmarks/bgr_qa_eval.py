"""QA from retrieved evidence graphs (Graph-hop paper's QA setting): builder datasets, closed pools.

For each builder dataset with a trained BGR model (``<bgr-dir>/<name>/model``, from
``benchmarks/bgr_eval.py``), the first ``--limit`` dev questions: every retrieval method picks evidence
from the question's own pool (gold + distractors) exactly as in the BGR tables — random / BM25 / dense /
MDR chain / GoldEn (when ``<bgr-dir>/<name>/golden-generator`` exists) with ``k`` = the gold set size,
BGR forward / backward / bidirectional deciding their own size — and the **same reader** answers from
it: the facts of the retrieved sentences are chained into an evidence graph from the question's
entities (:func:`graphhop.read.graphs.build_evidence_graph`), then the question-type operation over
the untrained MiniLM fact reader (as ``benchmarks/qa_eval.py`` does over the KB). ``gold`` reads the
gold graph's sentences: the reader's ceiling on these pools. With ``--span-reader DIR`` (a model from
``graphhop train reader``) a second column reads the retrieved graph's sentences, linearized in graph
order, with the span reader instead (``span EM``).

Columns: EM / F1 of the top answer (SQuAD-normalized, max over gold answers; for MetaQA EM is answer
Hits@1), ans-in-graph (a gold answer is an entity of the chained graph), evidence recall and size of
the retrieved set, seconds per question (retrieval + reading).

    GRAPHHOP_DATA=/work/shared/data python benchmarks/bgr_qa_eval.py --datasets pq-2h,wc-c --limit 100
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

METHODS = ("gold", "random", "bm25", "dense", "mdr", "golden", "bgr-forward", "bgr-backward", "bgr-bidirectional")


def run(name: str, data_dir: Path, bgr_dir: Path, cache_dir: Path, limit: int, methods: list[str],
        span_reader: Path | None = None) -> list[dict]:
    """One dataset: QA rows per method (see the module docstring)."""
    from graphhop.datasets.builder import read_records
    from graphhop.metrics.qa import exact_match, token_f1
    from graphhop.read.facts import FactReader
    from graphhop.read.graphs import build_evidence_graph
    from graphhop.read.ops import OperationReader
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.retrieve.graphhop import BGRRetriever, load_model
    from graphhop.eval.bgr import golden_generator, golden_pool_method, method_graph
    from graphhop.train.bgr_data import EmbeddingCache, load_examples

    splits = {s: list(read_records(data_dir / f"{s}.jsonl")) for s in ("train", "dev", "test") if (data_dir / f"{s}.jsonl").exists()}
    recs = [r for r in splits["dev"] if r.get("evidence")][:limit]
    cache = EmbeddingCache(cache_dir)
    examples = load_examples(recs, cache)
    model, card = load_model(bgr_dir / name / "model")
    ret = BGRRetriever(model, encode=lambda t: cache.encode(t))
    bm25 = PoolBM25(dict.fromkeys(e["text"] for rs in splits.values() for r in rs for e in r["evidence"]))
    chains = {}
    gdir = bgr_dir / name / "golden-generator"
    if (gdir / "model.safetensors").exists():
        chains["golden"] = golden_pool_method(golden_generator(gdir), bm25)
    results = json.loads((bgr_dir / name / "results.json").read_text()) if (bgr_dir / name / "results.json").exists() else {}
    shapes = results.get("baseline_shapes", {})
    hops = max(int(r.get("hops") or 1) for r in recs)
    loops = name.startswith(("pq", "pql"))  # PathQuestion's paths revisit entities
    reader = OperationReader(FactReader.from_model(None, max_hops=hops, min_hops=1 if name == "wc-c" else hops,
                                                   join_starts=True, loops=loops))
    span = None
    if span_reader is not None:
        from graphhop.read.span import SpanReader

        span = SpanReader.from_pretrained(str(span_reader))
    rows = []
    for method in methods:
        if method == "golden" and "golden" not in chains:
            print(f"skip {name}/golden: no {gdir}", file=sys.stderr)
            continue
        t0 = time.perf_counter()
        em = f1 = in_graph = recall = size = span_em = 0.0
        graphs = []
        for rec, ex in zip(recs, examples):
            if method == "gold":
                g = ex.gold
            else:
                g = method_graph(method, ex, ret, bm25, shapes, chains)
            graphs.append(g)
            ids = list(g.evidence_ids)
            facts = dict(zip(ex.pool.ids, ex.pool.facts))
            pairs = [(f"{i}#{j}", f) for i in ids for j, f in enumerate(facts.get(i, []))]
            graph = build_evidence_graph(rec["question"], pairs, max_hops=hops, loops=loops)
            res = reader.run(rec["question"], graph)
            em += exact_match(res.answer.text, rec["answers"])
            f1 += token_f1(res.answer.text, rec["answers"])
            ents = {e for _, f in pairs for e in (f[0], f[2])}
            in_graph += bool(ents & set(rec["answers"]))
            gold = set(ex.gold.evidence_ids)
            recall += len(gold & set(ids)) / max(len(gold), 1)
            size += len(ids)
        n = len(recs)
        row = {"dataset": name, "method": method, "n": n, "EM": em / n, "F1": f1 / n, "ans-in-graph": in_graph / n,
               "evidence R": recall / n, "size": size / n, "s/q": (time.perf_counter() - t0) / n}
        if span is not None:
            answers = span.predict([r["question"] for r in recs], graphs)
            row["span EM"] = sum(exact_match(a.text, r["answers"]) for a, r in zip(answers, recs)) / n
        rows.append(row)
        print(json.dumps(rows[-1]), flush=True)
    cache.save()
    return rows


def main() -> None:
    from qa_eval import print_table  # benchmarks/ is the script's folder

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="pq-2h,pq-3h,wc-c,metaqa-3h")
    ap.add_argument("--data-root", type=Path, default=Path("runs/bgr-data"), help="builder datasets, one folder each")
    ap.add_argument("--bgr-dir", type=Path, default=Path("runs/bgr"), help="bgr_eval.py's --out")
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"))
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--span-reader", type=Path, help="also read each graph with this span reader (span EM)")
    ap.add_argument("--json", type=Path, help="append the rows (JSON lines) here")
    args = ap.parse_args()
    import torch

    from graphhop.models.encoder import set_threads

    torch.set_num_threads(args.threads)
    set_threads(args.threads)
    rows = []
    for name in args.datasets.split(","):
        rows += run(name.strip(), args.data_root / name.strip(), args.bgr_dir, args.cache, args.limit,
                    [m.strip() for m in args.methods.split(",")], args.span_reader)
    if args.json:
        with args.json.open("a") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    cols = ["dataset", "method", "n", "EM", "F1", "ans-in-graph", "evidence R", "size", "s/q"]
    cols += ["span EM"] if args.span_reader else []
    print_table(rows, cols)


if __name__ == "__main__":
    main()
