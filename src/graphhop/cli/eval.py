"""``graphhop eval`` and ``graphhop datasets``: KGQA retrieval evaluation and the datasets it knows."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from graphhop.cli.common import print_table, split_methods

__all__ = ["eval_cmd", "datasets_cmd", "register"]


def register(app: typer.Typer) -> None:
    """Add ``eval`` and ``datasets`` to ``app``."""
    app.command("eval")(eval_cmd)
    app.command("datasets")(datasets_cmd)


def eval_cmd(
    dataset: str = typer.Argument(..., help="pq-2h, pq-3h, pql-2h, pql-3h, pql-3h-more, wc-p1, wc-p2, wc-c, metaqa-1h, metaqa-2h, metaqa-3h."),
    split: str = typer.Option("dev", "--split", help="Split reported: dev or test (a test file placed beside the dev file)."),
    methods: str = typer.Option("bm25,dense,hybrid", "--methods", help="Comma-separated registered pipelines: bm25, dense, hybrid, mdr, golden, ..."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    dense: str = typer.Option("flat", "--dense", help="Dense index kind: flat or hnsw-sq."),
    model: Optional[str] = typer.Option(None, "--model", help="Bi-encoder (default: bundled all-MiniLM-L6-v2)."),
    sample: Optional[int] = typer.Option(None, "--sample", help="Evaluate N questions spread evenly over the file (stride)."),
    rerank: Optional[Path] = typer.Option(None, "--rerank", help="Cross-encoder model directory; adds METHOD+rerank rows."),
    rerank_k: int = typer.Option(100, "--rerank-k", help="First-stage hits to rerank."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Evaluate retrieval methods on a KGQA dataset: one table of methods × measures (an Experiment)."""
    from graphhop.eval.experiment import Experiment, ranking_system
    from graphhop.eval.measures import RANKING, TIES
    from graphhop.eval.tasks import DENSE_FREE, check_split, kgqa_task
    from graphhop.pipeline.registry import build_pipeline, pipeline_spec
    from graphhop.retrieve.rerank import with_rerank

    from graphhop.models.locate import check_model

    check_model(model, "--model")
    check_model(rerank, "--rerank")
    names = split_methods(methods)
    for m in names:
        pipeline_spec(m)  # an unknown name stops here, before any index is built
    check_split(split)
    index, questions, golds = kgqa_task(dataset, split, sample, data, None if set(names) <= DENSE_FREE else dense, model)
    systems = {}
    for m in names:
        base = build_pipeline(m, index, model=model)
        systems[m] = ranking_system(base, docs=index.docs)
        if rerank is not None:
            systems[f"{m}+rerank@{rerank_k}"] = ranking_system(with_rerank(base, index, rerank, rerank_k), docs=index.docs)
    measures = [n for n in RANKING if not n.startswith("fact") or any(g.evidence for g in golds)] + [TIES]
    title = f"{dataset} {split} ({len(questions)} questions, KB {len(index.docs)} facts)"
    table = Experiment(measures, report=split, title=title).run(systems, questions, golds)
    print_table(title, table.rows, as_json)


def datasets_cmd(data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
                 as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")) -> None:
    """List the KGQA datasets `graphhop eval` knows and whether their files are present."""
    import os

    from graphhop.datasets.kgqa import DATASETS

    root = data or (Path(os.environ["GRAPHHOP_DATA"]) if os.environ.get("GRAPHHOP_DATA") else None)
    rows = []
    for name, spec in DATASETS.items():
        present = {s: None if root is None else (root / spec.questions.format(split=s)).exists() for s in ("dev", "test")}
        rows.append({"dataset": name, "family": spec.family, "hops": spec.hops, "kb": spec.kb,
                     "dev present": present["dev"], "test present": present["test"]})
    print_table("datasets", rows, as_json)
    if root is None:
        from graphhop.cli.common import err

        err.print("no data root: pass --data DIR or set GRAPHHOP_DATA to see which files are present")
