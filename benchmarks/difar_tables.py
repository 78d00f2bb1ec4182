"""DiFaR / DiFaR² tables: BM25, DiFaR (unsupervised, supervised), DiFaR² (reranked), one Experiment per dataset.

Every method is a registry pipeline ranked to ``--depth`` (MRR is RR@1000):

* ``BM25``                   ``bm25``: tantivy BM25 over verbalized facts
* ``DiFaR (unsup.)``         ``dense``: bundled all-MiniLM-L6-v2, exact (flat) index
* ``DiFaR (sup.)``           ``dense`` over the KB re-encoded (cached) by the ``--retriever FAMILY=DIR`` model
* ``DiFaR² (unsup. + rr)``   ``difar2``: MiniLM top-K reranked by the ``--reranker FAMILY=DIR`` model
* ``DiFaR² (sup. + rr)``     ``difar2`` over the supervised index: its top-K reranked by the same reranker

``FAMILY`` is ``pathquestion``, ``wc2014`` or ``metaqa``: which KG's training data the model saw. With
``--transfer`` every reranker also runs on the other families' datasets (zero-shot; rows say "on PQ"...).
``--limit`` questions are spread evenly (stride) over the split; MetaQA dev: over its evaluation part
(the first 1000 questions per hop; the later ones trained the MetaQA models), with gold facts derived
by path search (:func:`graphhop.datasets.kgqa.metaqa_gold_paths`). Tables per dataset and by hop count
(per dataset and pooled over the datasets run); JSON to ``--out``.

    GRAPHHOP_DATA=/work/shared/data python benchmarks/difar_tables.py --limit 150 --rerank-k 20 --split dev \\
        --retriever pathquestion=runs/ret-pq --reranker pathquestion=runs/rr-pq --transfer --out runs/difar_tables
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from graphhop.eval.experiment import Table

ALL = ["pq-2h", "pq-3h", "pql-2h", "pql-3h", "wc-p1", "wc-p2", "wc-c", "metaqa-1h", "metaqa-2h", "metaqa-3h"]
SHORT = {"pathquestion": "PQ", "wc2014": "WC", "metaqa": "MetaQA"}
MEASURES = ["fact MRR", "fact Hits@1", "fact Hits@10", "answer Hits@1"]


def parse_pairs(items: list[str]) -> dict[str, str]:
    """``FAMILY=DIR`` options as ``{family: absolute dir}``."""
    out = {}
    for item in items or []:
        fam, _, path = item.partition("=")
        if fam not in SHORT or not path:
            raise SystemExit(f"expected FAMILY=DIR with FAMILY in {', '.join(SHORT)}: {item!r}")
        out[fam] = str(Path(path).resolve())
    return out


def pipelines(name: str, args: argparse.Namespace, retrievers: dict[str, str], rerankers: dict[str, str]) -> tuple[Any, dict[str, Any]]:
    """``(base index, {label: pipeline})`` of one dataset, every pipeline from the registry."""
    from graphhop.datasets.kgqa import DATASETS, kb_path
    from graphhop.evaluation import dataset_index
    from graphhop.index.dense import DenseOptions
    from graphhop.pipeline.registry import build_pipeline

    fam = DATASETS[name].family
    base = dataset_index(kb_path(name), DenseOptions("flat"), progress=False)
    pipes = {"BM25": build_pipeline("bm25", base), "DiFaR (unsup.)": build_pipeline("dense", base)}
    sup = {}
    for f, path in retrievers.items():
        if f == fam or args.transfer_retrievers:
            sup[f] = dataset_index(kb_path(name), DenseOptions("flat"), model=path, progress=False)
            pipes["DiFaR (sup.)" if f == fam else f"DiFaR (sup. on {SHORT[f]})"] = build_pipeline("dense", sup[f], model=path)
    for f, path in rerankers.items():
        if f == fam or args.transfer:
            on = "" if f == fam else f" on {SHORT[f]}"
            pipes[f"DiFaR² (unsup. + rr{on})"] = build_pipeline("difar2", base, reranker=path, rerank_k=args.rerank_k)
            if f == fam and fam in sup:
                pipes["DiFaR² (sup. + rr)"] = build_pipeline("difar2", sup[fam], model=retrievers[fam], reranker=path,
                                                             rerank_k=args.rerank_k)
    return base, pipes


def dataset_table(name: str, args: argparse.Namespace, retrievers: dict[str, str], rerankers: dict[str, str]) -> Table:
    """One Experiment: every pipeline of ``name`` on the strided split, grouped by hop count."""
    from graphhop.datasets.kgqa import DATASETS
    from graphhop.eval.experiment import Experiment, ranking_system
    from graphhop.eval.measures import Gold
    from graphhop.eval.tasks import qa_examples
    from graphhop.evaluation import fact_qrels
    from graphhop.train.data import METAQA_EVAL_N

    head = METAQA_EVAL_N if DATASETS[name].family == "metaqa" and args.split == "dev" else None
    exs = qa_examples(name, args.split, args.limit, max_paths=200, head=head)
    base, pipes = pipelines(name, args, retrievers, rerankers)
    qrels = fact_qrels(exs, base.docs)
    golds = [Gold(ex.id, list(ex.answers), qrels[ex.id], None, {"hops": f"{ex.hops}-hop"}) for ex in exs]
    systems = {label: ranking_system(p, k=args.depth, docs=base.docs, batch=32) for label, p in pipes.items()}
    return Experiment(MEASURES, report=args.split, title=name).run(systems, [ex.question for ex in exs], golds)


def pooled_by_hops(tables: list[Table]) -> Table:
    """Fact Hits@1 per method and hop count, pooled over ``tables`` (means weighted by n)."""
    acc: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for t in tables:
        for r in t.groups.get("hops", []):
            hop = "single-hop" if r["hops"] == "1-hop" else "multi-hop"
            for key in ((r["method"], r["hops"]), (r["method"], hop)):
                acc[key][0] += r["fact Hits@1"] * r["n"]
                acc[key][1] += r["n"]
    rows = [{"method": m, "hops": h, "n": int(n), "fact Hits@1": s / n} for (m, h), (s, n) in sorted(acc.items()) if n]
    return Table("pooled", ["fact Hits@1"], rows, {"hops": rows})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(ALL))
    ap.add_argument("--split", default="dev", help="dev or test (a test file beside the dev file)")
    ap.add_argument("--limit", type=int, default=150, help="N questions per dataset, spread evenly (stride)")
    ap.add_argument("--rerank-k", type=int, default=20)
    ap.add_argument("--depth", type=int, default=1000, help="ranking depth (MRR is RR@1000)")
    ap.add_argument("--retriever", action="append", default=[], help="FAMILY=DIR of a supervised bi-encoder")
    ap.add_argument("--reranker", action="append", default=[], help="FAMILY=DIR of a trained cross-encoder")
    ap.add_argument("--transfer", action="store_true", help="also run each reranker on the other families (zero-shot)")
    ap.add_argument("--transfer-retrievers", action="store_true", help="also run each supervised retriever on the other families (re-encodes their KBs)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("runs/difar_tables"))
    args = ap.parse_args()
    from graphhop.io import atomic_write_text
    from graphhop.models.encoder import set_threads

    set_threads(args.threads)
    retrievers, rerankers = parse_pairs(args.retriever), parse_pairs(args.reranker)
    tables = []
    for name in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        tables.append(dataset_table(name, args, retrievers, rerankers))
        print(f"\n### {name} ({args.split}, {tables[-1].meta['n']} questions strided; rerank top-{args.rerank_k})\n", flush=True)
        print(tables[-1].markdown(), flush=True)
    hops = pooled_by_hops(tables)
    print("\n### Fact Hits@1 by hop count (all datasets above pooled)\n\n" + hops.markdown("hops"))
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "difar_tables.json", json.dumps(
        {"args": {k: str(v) for k, v in vars(args).items()}, "datasets": [t.to_json() for t in tables], "hops": hops.rows}, indent=1))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
