"""BM25 parity and options: graphhop's tantivy BM25 against bm25s on the same documents and questions,
and GoldEn's title boost / bigram fields switched on and off.

    python benchmarks/bm25_parity.py --datasets pq-2h,pq-3h,wc-p2 --split dev           # KGQA, fact level
    python benchmarks/bm25_parity.py --text hotpotqa,musique --split dev --datasets ""   # passages

KGQA rows: fact-level Hits@1 / MRR (a gold path triple at rank 1). Text rows: a gold supporting
passage at rank 1 (Hits@1), MRR and Hits@10. Ties are broken by KB order in every variant.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from graphhop.evaluation import cache_dir, dataset_index, evaluate_retrievers
from graphhop.index.cache import open_or_build
from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
from graphhop.index.sparse import SparseOptions
from graphhop.retrieve.bm25 import BM25Retriever, BM25sRetriever

FACT_VARIANTS = {
    "bm25s (reference)": None,
    "bm25s tokens, no bigrams": SparseOptions(bigrams=False, tokenizer="bm25s"),
    "standard, no bigrams": SparseOptions(bigrams=False, tokenizer="standard"),
    "standard + bigrams": SparseOptions(bigrams=True, tokenizer="standard", tie_breaker=0.0),
    "simple + bigrams (before)": SparseOptions(bigrams=True, tokenizer="simple", tie_breaker=0.0),
}
TEXT_VARIANTS = {
    "bm25s (reference)": None,
    "title x1.0, no bigrams": SparseOptions(title_boost=1.0, bigrams=False, tie_breaker=0.0),
    "title x1.25, no bigrams": SparseOptions(title_boost=1.25, bigrams=False, tie_breaker=0.0),
    "title x1.0 + bigrams": SparseOptions(title_boost=1.0, bigrams=True, tie_breaker=0.0),
    "title x1.25 + bigrams (GoldEn)": SparseOptions(title_boost=1.25, bigrams=True, tie_breaker=0.0),
    "simple, title x1.25 + bigrams (before)": SparseOptions(title_boost=1.25, bigrams=True, tokenizer="simple", tie_breaker=0.0),
    "title x1.25, tie 0.3": SparseOptions(title_boost=1.25, bigrams=False, tie_breaker=0.3),
    "title x1.25, tie 0.7 (default)": SparseOptions(title_boost=1.25, bigrams=False, tie_breaker=0.7),
    "title x1.25, tie 1.0": SparseOptions(title_boost=1.25, bigrams=False, tie_breaker=1.0),
}


def variant_index(docs, options: SparseOptions, path: Path) -> KnowledgeIndex:
    """``docs`` indexed with ``options`` (BM25 only), cached under ``path``."""
    path = path.with_name(f"{path.name}-{options.tokenizer}-{int(options.bigrams)}-{options.title_boost}-{options.tie_breaker}")
    return open_or_build(path, lambda: build_index(iter(docs), path, sparse=options, dense=None, overwrite=True, progress=False))


def kgqa_rows(name: str, split: str, root: Path) -> list[dict]:
    from graphhop.datasets.kgqa import kb_path, load_dataset

    examples = load_dataset(name, split)
    base = dataset_index(kb_path(name), dense=None, progress=False)
    retrievers = {label: BM25sRetriever(base) if opt is None else BM25Retriever(variant_index(base.docs.docs, opt, root / name))
                  for label, opt in FACT_VARIANTS.items()}
    return [{"dataset": name, "split": split, "level": "fact", "method": r.method, "questions": r.questions,
             **{k: round(v, 4) for k, v in r.fact.items()}}
            for r in evaluate_retrievers(examples, retrievers, base.docs, k=100, progress=False)]


def text_rows(name: str, split: str, root: Path) -> list[dict]:
    from graphhop.datasets.textqa import load_text_dataset
    from graphhop.evaluation import run_retriever
    from graphhop.kb.loaders import iter_passages
    from graphhop.metrics.ranking import ranking_metrics

    examples, corpus = load_text_dataset(name, split, os.environ["GRAPHHOP_DATA"])
    docs = list(documents_from_passages(iter_passages(corpus)))
    rows = []
    base = variant_index(docs, SparseOptions(), root / name)
    for label, opt in TEXT_VARIANTS.items():
        retriever = BM25sRetriever(base, normalize=False) if opt is None else BM25Retriever(variant_index(docs, opt, root / name), normalize=False)
        rankings, _ = run_retriever(retriever, examples, k=100, progress=False)
        metrics = ranking_metrics(rankings, {ex.id: set(ex.gold) for ex in examples})
        rows.append({"dataset": name, "split": split, "level": "passage", "method": label, "questions": len(examples),
                     **{k: round(v, 4) for k, v in metrics.items()}})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="pq-2h,pq-3h,wc-p2", help="KGQA datasets (fact level)")
    parser.add_argument("--text", default="", help="text datasets: hotpotqa, musique, entailmentbank")
    parser.add_argument("--split", default="dev")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = cache_dir() / "bm25-parity"
    jobs = [(kgqa_rows, n) for n in filter(None, args.datasets.split(","))]
    jobs += [(text_rows, n) for n in filter(None, args.text.split(","))]
    for fn, name in jobs:
        for row in fn(name, args.split, root):
            _print(row, args.json)


def _print(row: dict, as_json: bool) -> None:
    print(json.dumps(row) if as_json else
          f"{row['dataset']:9s} {row['split']:5s} {row['method']:40s} Hits@1 {row['Hits@1']:.4f}  MRR {row['MRR']:.4f}  "
          f"Hits@10 {row['Hits@10']:.4f}  (n={row['questions']}, {row['level']})")


if __name__ == "__main__":
    main()
