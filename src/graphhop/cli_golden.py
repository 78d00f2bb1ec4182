"""CLI commands for GoldEn (registered by :mod:`graphhop.cli`): ``train query-generator``, ``eval-golden``.

Also the plain functions they share with ``benchmarks/golden_eval.py``: :func:`open_or_build_index`
and :func:`evaluate_methods`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional, Sequence

import typer

from graphhop.core import InputError, Ranking
from graphhop.datasets.textqa import TEXT_DATASETS, TextQAExample, iter_worldtree, load_text_dataset

__all__ = [
    "train_query_generator",
    "golden_eval",
    "open_or_build_index",
    "evaluate_methods",
    "METHOD_NAMES",
    "DEFAULT_INDEX_DIR",
]

DEFAULT_INDEX_DIR = Path(".cache/golden")
#: Methods ``eval-golden`` knows, in table order.
METHOD_NAMES = ("bm25", "dense", "hybrid", "mdr", "oracle", "oracle-rank", "golden", "golden-learned", "golden-rule")


def _data_root(data: Optional[Path]) -> Path:
    from graphhop.datasets.kgqa import data_root

    return data_root(data)


def open_or_build_index(dataset: str, corpus: Path, index_dir: Path, dense: bool = True, progress: bool = False):
    """Open ``index_dir/dataset``, building it (BM25 + flat MiniLM vectors) from ``corpus`` if absent
    or if it lacks a dense part that is needed."""
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages

    path = Path(index_dir) / dataset
    if path.exists():
        index = KnowledgeIndex.open(path)
        if index.has_sparse and (index.has_dense or not dense):
            return index
    passages = iter_worldtree(corpus) if dataset == "entailmentbank" else iter_passages(corpus)
    return build_index(
        documents_from_passages(passages),
        path,
        dense=DenseOptions("flat") if dense else None,
        overwrite=True,
        progress=progress,
        sources=[str(corpus)],
    )


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


def train_query_generator(
    out: Path = typer.Option(..., "--out", "-o", help="Directory to write the trained span selector to (atomically)."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    dataset: list[str] = typer.Option(
        ["hotpotqa", "musique"], "--dataset", "-d", help="Training set(s): hotpotqa, musique (repeat the option)."
    ),
    index_dir: Path = typer.Option(DEFAULT_INDEX_DIR, "--index-dir", help="Where per-dataset indexes are built or reused."),
    model: Optional[str] = typer.Option(None, "--model", help="Base encoder (HF name or path; default: bundled MiniLM)."),
    epochs: int = typer.Option(3, help="Training epochs."),
    batch_size: int = typer.Option(16, help="Examples per optimizer step."),
    lr: float = typer.Option(5e-5, help="Peak learning rate (AdamW)."),
    warmup: float = typer.Option(0.1, help="Share of steps with linear warm-up."),
    max_steps: Optional[int] = typer.Option(None, help="Stop after this many steps (default: all epochs)."),
    max_words: int = typer.Option(25, help="Words kept per passage in a hop context."),
    max_length: int = typer.Option(192, help="Word pieces per (hop, context) input; longer contexts are cut."),
    oracle_select: str = typer.Option(
        "shortest", help="Which oracle span is the target: shortest that finds the passage (paper) or best rank."
    ),
    seed: int = typer.Option(0, help="Random seed."),
    threads: Optional[int] = typer.Option(None, help="Torch CPU threads (default: $GRAPHHOP_THREADS or all cores)."),
) -> None:
    """Train GoldEn's query generator: a span selector fitted to oracle queries (train split), best epoch on dev."""
    from graphhop.models.encoder import set_threads
    from graphhop.models.span import SpanSelector
    from graphhop.retrieve.golden import GoldEnSearch
    from graphhop.train.query_generator import OracleStats, query_examples, train_span_selector

    set_threads(threads)
    if oracle_select not in ("shortest", "rank"):
        raise InputError(f"--oracle-select {oracle_select!r}: choose shortest or rank")
    root = _data_root(data)
    train, dev, stats = [], [], {}
    for name in dataset:
        if name not in ("hotpotqa", "musique"):
            raise InputError(f"--dataset {name!r}: the query generator trains on hotpotqa and/or musique")
        for split, bucket in (("train", train), ("dev", dev)):
            examples, corpus = load_text_dataset(name, split, root)
            search = GoldEnSearch(open_or_build_index(name, corpus, index_dir, progress=True))
            st = OracleStats()
            bucket.extend(query_examples(examples, search, max_words=max_words, stats=st, select=oracle_select))
            stats[f"{name}/{split}"] = st.to_dict()
            typer.echo(f"{name}/{split}: {st.questions} questions, {st.hops} hops, oracle found {st.found_top5} in top 5, skipped {st.skipped}")
    selector = SpanSelector.from_pretrained(model, max_length=max_length)
    selector.max_length = max_length
    result = train_span_selector(
        selector,
        train,
        dev,
        epochs=epochs,
        batch_size=batch_size,
        lr=lr,
        warmup=warmup,
        max_steps=max_steps,
        seed=seed,
        out=out,
        card={
            "task": "golden-query-generation",
            "data": {"datasets": list(dataset), "root": str(root), "oracle": stats, "max_words": max_words, "oracle_select": oracle_select},
        },
    )
    typer.echo(
        f"saved {out}: {result.steps} steps in {result.seconds:.0f}s, best epoch {result.best_epoch} "
        + " ".join(f"{k}={v:.3f}" for k, v in result.best.items())
    )


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


def golden_eval(
    dataset: str = typer.Option("hotpotqa", "--dataset", "-d", help=f"One of {', '.join(TEXT_DATASETS)}."),
    split: str = typer.Option("dev", help="Question split (report dev; test is withheld)."),
    model: Optional[Path] = typer.Option(None, "--model", help="Trained query generator (from `graphhop train query-generator`)."),
    methods: str = typer.Option(
        "bm25,dense,hybrid,mdr,oracle,golden", help=f"Comma-separated methods: {', '.join(METHOD_NAMES)}."
    ),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    index_dir: Path = typer.Option(DEFAULT_INDEX_DIR, "--index-dir", help="Where per-dataset indexes are built or reused."),
    max_hops: int = typer.Option(2, help="Hops of `golden` (fixed) and `mdr`."),
    adaptive_max_hops: int = typer.Option(4, help="Most hops `golden-learned`/`golden-rule` may take."),
    max_words: Optional[int] = typer.Option(None, help="Words kept per passage in a hop context (default: as in training, else 25)."),
    limit: Optional[int] = typer.Option(None, help="Evaluate only the first N questions."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the full results as JSON."),
    explain: int = typer.Option(0, help="Print the hop queries of the first N questions (GoldEn methods)."),
    threads: Optional[int] = typer.Option(None, help="Torch CPU threads."),
) -> None:
    """Paragraph Recall@2/5/10, both-gold (all@k) and at-least-one (any@k) found, by question type."""
    from graphhop.models.encoder import set_threads

    set_threads(threads)
    examples, corpus = load_text_dataset(dataset, split, _data_root(data))
    if limit is not None:
        examples = examples[:limit]
    if not examples:
        raise InputError(f"{dataset}/{split}: no questions")
    index = open_or_build_index(dataset, corpus, index_dir, progress=True)
    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    results = evaluate_methods(
        examples, index, chosen, model, max_hops=max_hops, adaptive_max_hops=adaptive_max_hops, max_words=max_words
    )
    typer.echo(f"{dataset}/{split}: {len(examples)} questions, corpus {len(index.docs)} passages")
    typer.echo(format_table(results))
    typer.echo("")
    typer.echo(format_table(results, split="by_type"))
    for method, res in results.items():
        for trace in res.get("traces", [])[:explain]:
            typer.echo(f"\n[{method}] {trace['question']}  ({trace['stopped_by']})")
            for rec in trace["hops"]:
                typer.echo(f"  hop {rec['hop']}: {rec['query']!r} -> {', '.join(rec['top'])}")
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
