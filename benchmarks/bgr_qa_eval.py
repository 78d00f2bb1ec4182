"""QA from retrieved evidence graphs (Graph-hop paper's QA setting): builder datasets, closed pools.

For each builder dataset with a trained BGR model (``<bgr-dir>/<name>/model``, from
``benchmarks/bgr_eval.py``), ``--limit`` questions of ``--split`` spread evenly (stride), one Experiment: every retrieval method picks evidence
from the question's own pool (gold + distractors) exactly as in the BGR tables — random / BM25 / dense /
MDR chain / GoldEn (when ``<bgr-dir>/<name>/golden-generator`` exists) with ``k`` = the gold set size,
BGR forward / backward / bidirectional deciding their own size — and the **same reader** answers from
it: the facts of the retrieved sentences are chained into an evidence graph from the question's
entities (:func:`graphhop.read.graphs.build_evidence_graph`), then the question-type operation over
the untrained MiniLM fact reader (as ``benchmarks/qa_eval.py`` does over the KB). ``gold`` reads the
gold graph's sentences: the reader's ceiling on these pools. With ``--span-reader DIR`` (a model from
``graphhop train reader``) a second column reads the retrieved graph's sentences, linearized in graph
order, with the span reader instead (rows ``<method> (span reader)``).

Columns: QA EM / QA F1 of the top answer (SQuAD-normalized, max over gold answers; for MetaQA EM is
answer Hits@1), answer in graph (a gold answer is an entity of the retrieved sentences' facts),
evidence recall R and size of the retrieved set, seconds per question (retrieval + reading).
The BGR model's choices were made on its selection carve of train, never on the split reported.

    GRAPHHOP_DATA=/work/shared/data python benchmarks/bgr_qa_eval.py --datasets pq-2h,wc-c --limit 100 --split dev
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from graphhop.eval.experiment import Table

METHODS = ("gold", "random", "bm25", "dense", "mdr", "golden", "bgr-forward", "bgr-backward", "bgr-bidirectional")
MEASURES = ["QA EM", "QA F1", "answer in graph", "R", "size"]


def dataset_table(name: str, args: argparse.Namespace) -> Table:
    """One dataset: QA by method over the questions' own pools (see the module docstring)."""
    from graphhop.datasets.builder import read_records
    from graphhop.eval.bgr import golden_generator, golden_pool_method
    from graphhop.eval.bgr_bench import pool_reader_system
    from graphhop.eval.experiment import Experiment, stride_sample
    from graphhop.eval.measures import Gold
    from graphhop.eval.tasks import check_split
    from graphhop.read.facts import FactReader
    from graphhop.read.ops import OperationReader
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.retrieve.graphhop import BGRRetriever, load_model
    from graphhop.train.bgr_data import EmbeddingCache, load_examples

    folder, run = args.data_root / name, args.bgr_dir / name
    splits = {s: list(read_records(folder / f"{s}.jsonl")) for s in ("train", "dev", "test") if (folder / f"{s}.jsonl").exists()}
    recs = stride_sample([r for r in splits.get(check_split(args.split), []) if r.get("evidence")], args.limit)
    cache = EmbeddingCache(args.cache)
    examples = load_examples(recs, cache)
    model, card = load_model(run / "model")
    bm25 = PoolBM25(dict.fromkeys(e["text"] for rs in splits.values() for r in rs for e in r["evidence"]))
    gdir = run / "golden-generator"
    chains = {"golden": golden_pool_method(golden_generator(gdir), bm25)} if (gdir / "model.safetensors").exists() else {}
    shapes = json.loads((run / "results.json").read_text()).get("baseline_shapes", {}) if (run / "results.json").exists() else {}
    hops = max(int(r.get("hops") or 1) for r in recs)
    loops = name.startswith(("pq", "pql"))  # PathQuestion's paths revisit entities
    reader = OperationReader(FactReader.from_model(None, max_hops=hops, min_hops=1 if name == "wc-c" else hops,
                                                   join_starts=True, loops=loops))
    span = None
    if args.span_reader is not None:
        from graphhop.read.span import SpanReader

        span = SpanReader.from_pretrained(str(args.span_reader))
    common: dict[str, Any] = dict(reader=reader, hops=hops, loops=loops, ret=BGRRetriever(model, encode=cache.encode), bm25=bm25,
                                  shapes=shapes, chains=chains)
    methods = [m for m in args.methods.split(",") if m != "golden" or chains]
    systems = {m: pool_reader_system(m, examples, **common) for m in methods}
    if span is not None:
        systems.update({f"{m} (span reader)": pool_reader_system(m, examples, span=span, **common) for m in methods})
    golds = [Gold(r["id"], list(r["answers"]), set(ex.gold.evidence_ids), ex.gold) for r, ex in zip(recs, examples)]
    table = Experiment(MEASURES, report=args.split, select=card.get("select_split", "dev"), title=name).run(
        systems, [r["question"] for r in recs], golds)
    cache.save()
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="pq-2h,pq-3h,wc-c,metaqa-3h")
    ap.add_argument("--data-root", type=Path, default=Path("runs/bgr-data"), help="builder datasets, one folder each")
    ap.add_argument("--bgr-dir", type=Path, default=Path("runs/bgr"), help="bgr_eval.py's --out")
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"))
    ap.add_argument("--split", default="dev", help="dev or test")
    ap.add_argument("--limit", type=int, default=100, help="N questions, spread evenly (stride)")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--span-reader", type=Path, help="also read each graph with this span reader")
    ap.add_argument("--json", type=Path, help="append each table (one JSON line per dataset) here")
    args = ap.parse_args()
    from graphhop.models.encoder import set_threads

    set_threads(args.threads)
    for name in args.datasets.split(","):
        table = dataset_table(name.strip(), args)
        print(f"\n### {name} {args.split} ({table.meta['n']} questions, strided)\n\n{table.markdown()}", flush=True)
        if args.json:
            with args.json.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(table.to_json(), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
