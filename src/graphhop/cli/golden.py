"""``graphhop eval-golden``: GoldEn and the baselines on a text dataset (:mod:`graphhop.eval.golden`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from graphhop.core import InputError
from graphhop.datasets.textqa import TEXT_DATASETS, load_text_dataset
from graphhop.eval.golden import DEFAULT_INDEX_DIR, METHOD_NAMES, evaluate_methods, open_or_build_index

__all__ = ["golden_eval", "register"]


def register(app: typer.Typer) -> None:
    """Add ``eval-golden`` to ``app``."""
    app.command("eval-golden")(golden_eval)


def golden_eval(
    dataset: str = typer.Option("hotpotqa", "--dataset", "-d", help=f"One of {', '.join(TEXT_DATASETS)}."),
    split: str = typer.Option("dev", help="Split reported: dev or test (a test file placed beside the dev file)."),
    model: Optional[Path] = typer.Option(None, "--model", help="Trained query generator (from `graphhop train query-generator`)."),
    methods: str = typer.Option(
        "bm25,dense,hybrid,mdr,oracle,golden", help=f"Comma-separated methods: {', '.join(METHOD_NAMES)}."
    ),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    index_dir: Path = typer.Option(DEFAULT_INDEX_DIR, "--index-dir", help="Where per-dataset indexes are built or reused."),
    max_hops: int = typer.Option(2, help="Hops of `golden` (fixed) and `mdr`."),
    adaptive_max_hops: int = typer.Option(4, help="Most hops `golden-learned`/`golden-rule` may take."),
    max_words: Optional[int] = typer.Option(None, help="Words kept per passage in a hop context (default: as in training, else 25)."),
    sample: Optional[int] = typer.Option(None, "--sample", help="Evaluate N questions spread evenly over the split (stride)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the full results as JSON."),
    explain: int = typer.Option(0, help="Print the hop queries of the first N questions (GoldEn methods)."),
    threads: Optional[int] = typer.Option(None, help="Torch CPU threads."),
) -> None:
    """Paragraph Recall@2/5/10, both-gold (all@k) and at-least-one (any@k) found, by question type."""
    from graphhop.models.locate import check_model

    check_model(model, "--model")
    from graphhop.datasets.kgqa import data_root
    from graphhop.eval.experiment import stride_sample
    from graphhop.eval.tasks import check_split
    from graphhop.models.encoder import set_threads

    set_threads(threads)
    examples, corpus = load_text_dataset(dataset, check_split(split), data_root(data))
    examples = stride_sample(examples, sample)
    if not examples:
        raise InputError(f"{dataset}/{split}: no questions")
    index = open_or_build_index(dataset, corpus, index_dir, progress=True)
    chosen = [m.strip() for m in methods.split(",") if m.strip()]
    table = evaluate_methods(examples, index, chosen, model, split, max_hops=max_hops,
                             adaptive_max_hops=adaptive_max_hops, max_words=max_words)
    typer.echo(f"{dataset}/{split}: {len(examples)} questions, corpus {len(index.docs)} passages")
    typer.echo(table.markdown() + "\n\n" + table.markdown("qtype"))
    for method, traces in table.meta.get("traces", {}).items():
        for trace in traces[:explain]:
            typer.echo(f"\n[{method}] {trace['question']}  ({trace['stopped_by']})")
            for rec in trace["hops"]:
                typer.echo(f"  hop {rec['hop']}: {rec['query']!r} -> {', '.join(rec['top'])}")
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
        json_out.write_text(table.dumps() + "\n", encoding="utf-8")
