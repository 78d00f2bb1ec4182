"""DiFaR / DiFaR² tables: BM25, DiFaR (unsupervised, supervised), DiFaR² (reranked) per dataset.

For each dataset (dev split; MetaQA: its evaluation part, the first 1000 dev questions per hop)
the first ``--limit`` questions are ranked by

* ``BM25``                      tantivy BM25 over verbalized facts
* ``DiFaR (unsup.)``            bundled all-MiniLM-L6-v2, exact (flat) index
* ``DiFaR (sup.)``              the ``--retriever FAMILY=DIR`` model (KB re-encoded once, cached)
* ``DiFaR² (unsup. + rr)``      MiniLM top-K reranked by the ``--reranker FAMILY=DIR`` model
* ``DiFaR² (sup. + rr)``        supervised top-K reranked by the same reranker

``FAMILY`` is ``pathquestion``, ``wc2014`` or ``metaqa``: which KG's training data the model saw.
With ``--transfer`` every reranker is also run on every other family's datasets (zero-shot).
MetaQA has no gold facts in its files: they are derived by path search
(:func:`graphhop.datasets.kgqa.metaqa_gold_paths`) so fact-level metrics exist there too.

Prints markdown tables (per dataset, per hop count, transfer) and writes them with the raw rows
as JSON to ``--out``. Usage::

    GRAPHHOP_DATA=/work/shared/data python benchmarks/difar_tables.py --limit 150 --rerank-k 20 \\
        --retriever pathquestion=runs/ret-pq --reranker pathquestion=runs/rr-pq \\
        --retriever wc2014=runs/ret-wc --reranker wc2014=runs/rr-wc --transfer --out runs/difar_tables
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Sequence

from graphhop.core import QAExample, Ranking, Stage
from graphhop.datasets.kgqa import DATASETS, kb_path, load_dataset, metaqa_gold_paths
from graphhop.evaluation import dataset_index, evaluate_rankings, fact_qrels
from graphhop.index.dense import DenseOptions
from graphhop.metrics.ranking import per_query_metrics
from graphhop.retrieve import make_retriever
from graphhop.pipeline.ops import Rerank
from graphhop.retrieve.rerank import CrossEncoderReranker

ALL = ["pq-2h", "pq-3h", "pql-2h", "pql-3h", "wc-p1", "wc-p2", "wc-c", "metaqa-1h", "metaqa-2h", "metaqa-3h"]
SHORT = {"pathquestion": "PQ", "wc2014": "WC", "metaqa": "MetaQA"}


class Cached(Stage):
    """A retriever replaying precomputed rankings (so every reranker sees the same first stage)."""

    def __init__(self, rankings: dict[str, Ranking], name: str) -> None:
        self.rankings = rankings
        self.name = name

    def search(self, queries: Sequence[str], k: int = 10) -> list[Ranking]:
        return [self.rankings[q][:k] for q in queries]


def examples_for(name: str, limit: int | None) -> list[QAExample]:
    """The first ``limit`` dev questions (MetaQA: of its evaluation part), with gold facts."""
    exs = load_dataset(name, "dev")
    if DATASETS[name].family == "metaqa":
        from graphhop.kb.loaders import iter_triples
        from graphhop.kb.store import TripleStore
        from graphhop.train.data import METAQA_EVAL_N

        exs = exs[: min(limit or METAQA_EVAL_N, METAQA_EVAL_N)]
        store = TripleStore.from_facts(iter_triples(kb_path(name)))
        for ex in exs:
            ex.gold_paths = metaqa_gold_paths(ex, store)
            ex.gold_facts = sorted({t for p in ex.gold_paths for t in p})
    return exs[:limit] if limit else exs


def run_first_stage(retriever, exs: list[QAExample], depth: int) -> tuple[dict[str, Ranking], float]:
    t0 = time.perf_counter()
    out: dict[str, Ranking] = {}
    for i in range(0, len(exs), 128):
        batch = exs[i : i + 128]
        for ex, r in zip(batch, retriever.search([e.question for e in batch], depth)):
            out[ex.question] = r
    return out, time.perf_counter() - t0


def score(method: str, exs, by_question: dict[str, Ranking], docs, seconds: float, rows: list, hops_acc, extra=None) -> dict:
    rankings = {ex.id: by_question[ex.question] for ex in exs}
    res = evaluate_rankings(method, exs, rankings, docs, seconds)
    row = {
        "method": method,
        "questions": len(exs),
        "fact MRR": res.fact["MRR"] if res.fact else None,
        "fact Hits@1": res.fact["Hits@1"] if res.fact else None,
        "fact Hits@10": res.fact["Hits@10"] if res.fact else None,
        "answer Hits@1": res.answer["Hits@1"],
        "ms/q": 1000 * seconds / max(1, len(exs)),
        **(extra or {}),
    }
    rows.append(row)
    if res.fact:
        per_q = per_query_metrics(rankings, fact_qrels(exs, docs))
        for ex in exs:
            hop = "single-hop" if ex.hops <= 1 else "multi-hop"
            hops_acc[(method, hop)].append(per_q[ex.id]["Hits@1"])
            hops_acc[(method, f"{ex.hops}-hop")].append(per_q[ex.id]["Hits@1"])
    return row


def table(rows: list[dict], cols: list[str]) -> str:
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            cells.append("" if v is None else f"{v:.3f}" if isinstance(v, float) and c != "ms/q" else f"{v:.1f}" if isinstance(v, float) else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def parse_pairs(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items or []:
        fam, _, path = item.partition("=")
        if fam not in SHORT or not path:
            raise SystemExit(f"expected FAMILY=DIR with FAMILY in {', '.join(SHORT)}: {item!r}")
        out[fam] = path
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(ALL))
    ap.add_argument("--limit", type=int, default=150, help="first N dev questions per dataset")
    ap.add_argument("--rerank-k", type=int, default=20)
    ap.add_argument("--depth", type=int, default=1000, help="first-stage depth (MRR is RR@1000)")
    ap.add_argument("--retriever", action="append", default=[], help="FAMILY=DIR of a supervised bi-encoder")
    ap.add_argument("--reranker", action="append", default=[], help="FAMILY=DIR of a trained cross-encoder")
    ap.add_argument("--transfer", action="store_true", help="also run each reranker on the other families (zero-shot)")
    ap.add_argument("--transfer-retrievers", action="store_true", help="also run each supervised retriever on the other families (re-encodes their KBs)")
    ap.add_argument("--sparse-only", action="store_true", help="BM25 first stage only (no dense index: e.g. MetaQA without its 129k-fact encoding)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("runs/difar_tables"))
    args = ap.parse_args()

    import faiss
    import torch

    torch.set_num_threads(args.threads)
    faiss.omp_set_num_threads(1)
    retrievers, rerankers = parse_pairs(args.retriever), parse_pairs(args.reranker)
    args.out.mkdir(parents=True, exist_ok=True)
    per_dataset: dict[str, list[dict]] = {}
    transfer_rows: list[dict] = []
    hops_acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for name in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        fam = DATASETS[name].family
        exs = examples_for(name, args.limit)
        rows: list[dict] = []
        base = dataset_index(kb_path(name), None if args.sparse_only else DenseOptions("flat"), progress=False)
        docs = base.docs
        firsts: dict[str, tuple[dict[str, Ranking], float]] = {}
        firsts["BM25"] = run_first_stage(make_retriever(base, "bm25"), exs, args.depth)
        if not args.sparse_only:
            firsts["DiFaR (unsup.)"] = run_first_stage(make_retriever(base, "dense"), exs, args.depth)
        sup_models = {} if args.sparse_only else {f: p for f, p in retrievers.items() if f == fam or args.transfer_retrievers}
        for f, path in sup_models.items():
            idx = dataset_index(kb_path(name), DenseOptions("flat"), model=str(Path(path).resolve()), progress=False)
            label = "DiFaR (sup.)" if f == fam else f"DiFaR (sup. on {SHORT[f]})"
            firsts[label] = run_first_stage(make_retriever(idx, "dense", model=str(Path(path).resolve())), exs, args.depth)
        for label, (ranks, secs) in firsts.items():
            row = score(label, exs, ranks, docs, secs, rows, hops_acc)
            if "on " in label:
                transfer_rows.append({"dataset": name, "trained on": label.split("on ")[1].rstrip(")"), "model": "retriever", **row})
        for f, path in rerankers.items():
            if f != fam and not args.transfer:
                continue
            reranker = CrossEncoderReranker(path, base)
            stages = [("BM25", "BM25")] if args.sparse_only else [("unsup.", "DiFaR (unsup.)")]
            if f == fam and "DiFaR (sup.)" in firsts:
                stages.append(("sup.", "DiFaR (sup.)"))
            for tag, first_label in stages:
                ranks, secs = firsts[first_label]
                rr = Rerank(Cached(ranks, first_label), reranker, depth=args.rerank_k)
                before = reranker.seconds
                out: dict[str, Ranking] = {}
                for i in range(0, len(exs), 32):
                    batch = exs[i : i + 32]
                    for ex, r in zip(batch, rr.search([e.question for e in batch], args.depth)):
                        out[ex.question] = r
                added = reranker.seconds - before
                label = f"DiFaR² ({tag} + rr)" if f == fam else f"DiFaR² ({tag} + rr on {SHORT[f]})"
                row = score(label, exs, out, docs, secs + added, rows, hops_acc, {"rerank ms/q": 1000 * added / max(1, len(exs))})
                if f != fam:
                    transfer_rows.append({"dataset": name, "trained on": SHORT[f], "model": "reranker", **row})
        per_dataset[name] = rows
        print(f"\n### {name} (dev, first {len(exs)} questions; rerank top-{args.rerank_k})\n", flush=True)
        print(table(rows, ["method", "fact MRR", "fact Hits@1", "fact Hits@10", "answer Hits@1", "ms/q", "rerank ms/q"]), flush=True)
    hop_rows = []
    for (method, hop), vals in sorted(hops_acc.items()):
        hop_rows.append({"method": method, "hops": hop, "questions": len(vals), "fact Hits@1": sum(vals) / len(vals)})
    print("\n### Fact Hits@1 by hop count (all datasets above pooled)\n")
    print(table(hop_rows, ["method", "hops", "questions", "fact Hits@1"]))
    if transfer_rows:
        print("\n### Zero-shot transfer\n")
        print(table(transfer_rows, ["dataset", "trained on", "method", "fact MRR", "fact Hits@1", "fact Hits@10", "answer Hits@1"]))
    (args.out / "difar_tables.json").write_text(
        json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "datasets": per_dataset, "hops": hop_rows, "transfer": transfer_rows}, indent=1)
    )


if __name__ == "__main__":
    main()
