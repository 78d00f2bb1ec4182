"""GoldEn's evaluation over a text dataset: Paragraph Recall@k, both-gold (all@k) and any-gold (any@k).

:func:`evaluate_methods` runs single-hop baselines, MDR, the oracle and GoldEn over one index;
:func:`format_table` renders the result; :func:`open_or_build_index` opens or builds the index.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional, Sequence

from graphhop.core import InputError, Ranking
from graphhop.datasets.textqa import TextQAExample, iter_worldtree

__all__ = ["open_or_build_index", "evaluate_methods", "format_table", "METHOD_NAMES", "DEFAULT_INDEX_DIR"]

DEFAULT_INDEX_DIR = Path(".cache/golden")
#: Methods ``eval-golden`` knows, in table order.
METHOD_NAMES = ("bm25", "dense", "hybrid", "mdr", "oracle", "oracle-rank", "golden", "golden-learned", "golden-rule")


def open_or_build_index(dataset: str, corpus: Path, index_dir: Path, dense: bool = True, progress: bool = False):
    """Open ``index_dir/dataset``, building it (BM25 + flat MiniLM vectors) from ``corpus`` if absent
    or if it lacks a dense part that is needed."""
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages

    from graphhop.index.cache import open_or_build

    path = Path(index_dir) / dataset

    def build() -> KnowledgeIndex:
        passages = iter_worldtree(corpus) if dataset == "entailmentbank" else iter_passages(corpus)
        return build_index(documents_from_passages(passages), path, dense=DenseOptions("flat") if dense else None,
                           overwrite=True, progress=progress, sources=[str(corpus)])

    return open_or_build(path, build, accept=lambda index: index.has_sparse and (index.has_dense or not dense))


def _golds(examples: Sequence[TextQAExample]) -> list[list[str]]:
    """Gold ids, with a placeholder per unmapped leaf so that it counts as missed."""
    return [ex.gold + [f"__unmapped_{i}" for i in range(ex.unmapped)] for ex in examples]


def evaluate_methods(
    examples: Sequence[TextQAExample],
    index,
    methods: Sequence[str],
    selector_dir: Optional[Path] = None,
    max_hops: int = 2,
    adaptive_max_hops: int = 4,
    ks: Sequence[int] = (2, 5, 10),
    mdr_beam: int = 5,
    max_words: Optional[int] = None,
) -> dict[str, dict[str, Any]]:
    """Run each method on every question; ``{method: {"all": metrics, "by_type": {...}, "hops": mean, "seconds": s}}``
    (GoldEn methods add ``traces``: each question's hop queries, top-3 ids per hop, and why it stopped).

    ``golden`` uses ``max_hops`` fixed hops; ``golden-learned`` / ``golden-rule`` allow 1 to
    ``adaptive_max_hops``. ``oracle`` merges the oracle queries' hits (the ceiling; ``oracle-rank``
    with the best-rank span instead of the shortest); ``mdr`` chains
    ``max_hops`` dense hops. ``max_words`` (words per passage in a hop context) defaults to the
    trained generator's setting (its model card), else 25.
    """
    from graphhop.retrieve import make_retriever
    from graphhop.retrieve.golden import GoldEnRetriever, GoldEnSearch, SpanQueryGenerator, merge_hops, oracle_trajectory, passage_recall

    unknown = [m for m in methods if m not in METHOD_NAMES]
    if unknown:
        raise InputError(f"unknown method {unknown[0]!r}; choose from {', '.join(METHOD_NAMES)}")
    needs_model = [m for m in methods if m.startswith("golden")]
    if needs_model and selector_dir is None:
        raise InputError(f"method {needs_model[0]} needs a trained query generator (--model DIR)")
    if needs_model and not Path(selector_dir).is_dir():
        raise InputError(f"{selector_dir}: no trained query generator there (see `graphhop train query-generator`)")
    k_max = max(ks)
    questions = [ex.question for ex in examples]
    golds = _golds(examples)
    search = GoldEnSearch(index)
    generator = None
    if needs_model:
        from graphhop.models.span import SpanSelector

        selector = SpanSelector.from_pretrained(str(selector_dir))
        generator = SpanQueryGenerator(selector)
        if max_words is None:
            max_words = selector.card.get("data", {}).get("max_words")
    max_words = max_words or 25
    results: dict[str, dict[str, Any]] = {}
    for method in methods:
        t0 = time.perf_counter()
        hops: list[int] = []
        rankings: list[Ranking]
        explained: list[dict[str, Any]] | None = None
        if method in ("bm25", "dense", "hybrid"):
            rankings = make_retriever(index, method).search(questions, k_max)
            hops = [1] * len(questions)
        elif method == "mdr":
            from graphhop.retrieve.dense import DenseRetriever
            from graphhop.retrieve.mdr import MDRRetriever

            rankings = MDRRetriever(DenseRetriever(index), hops=max_hops, beam=mdr_beam).search(questions, k_max)
            hops = [max_hops] * len(questions)
        elif method in ("oracle", "oracle-rank"):
            select = "rank" if method == "oracle-rank" else "shortest"
            rankings = []
            for ex in examples:
                traj = oracle_trajectory(
                    search, ex.question, ex.gold, ex.ordered, max_words=max_words, depth=k_max, stop_hop=False, select=select
                )
                rankings.append(merge_hops([h.hits for h in traj], k_max))
                hops.append(len(traj))
        else:
            stop = {"golden": "fixed", "golden-learned": "learned", "golden-rule": "rule"}[method]
            retriever = GoldEnRetriever(
                search, generator, max_hops=max_hops if stop == "fixed" else adaptive_max_hops, stop=stop, max_words=max_words
            )
            traces = retriever.retrieve(questions, k_max)
            rankings = [t.ranking for t in traces]
            hops = [len(t.hops) for t in traces]
            explained = [
                {
                    "question": t.question,
                    "stopped_by": t.stopped_by,
                    "hops": [{"hop": r.hop, "query": r.query, "top": [h.id for h in r.hits[:3]]} for r in t.hops],
                }
                for t in traces
            ]
        seconds = time.perf_counter() - t0
        by_type: dict[str, dict[str, float]] = {}
        for qtype in sorted({ex.qtype for ex in examples}):
            idx = [i for i, ex in enumerate(examples) if ex.qtype == qtype]
            by_type[qtype] = passage_recall([rankings[i] for i in idx], [golds[i] for i in idx], ks)
            by_type[qtype]["n"] = len(idx)
        results[method] = {
            "all": passage_recall(rankings, golds, ks),
            "by_type": by_type,
            "hops": sum(hops) / max(1, len(hops)),
            "seconds": seconds,
            "n": len(examples),
        }
        if explained is not None:
            results[method]["traces"] = explained
    return results


def format_table(results: dict[str, dict[str, Any]], ks: Sequence[int] = (2, 5, 10), split: str = "all") -> str:
    """A markdown table: one row per method (and per question type with ``split="by_type"``)."""
    cols = [f"R@{k}" for k in ks] + [f"all@{k}" for k in ks] + [f"any@{k}" for k in ks]
    lines = ["| method | " + ("type | n | " if split == "by_type" else "") + " | ".join(cols) + " | hops |"]
    lines.append("|" + "---|" * (len(cols) + (4 if split == "by_type" else 2)))
    for method, res in results.items():
        rows = [("", res["n"], res["all"])] if split == "all" else [(t, m["n"], m) for t, m in res["by_type"].items()]
        for qtype, n, metrics in rows:
            prefix = f"| {method} | " + (f"{qtype} | {n} | " if split == "by_type" else "")
            lines.append(prefix + " | ".join(f"{metrics[c]:.3f}" for c in cols) + f" | {res['hops']:.2f} |")
    return "\n".join(lines)
