"""``graphhop build-dataset`` and ``graphhop dataset-stats`` .

Both raise :class:`~graphhop.core.InputError` / :class:`~graphhop.core.GraphhopError` for bad
input; the app prints those as one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.core import InputError

__all__ = ["build_dataset", "dataset_stats", "register"]


def register(app: typer.Typer) -> None:
    """Add ``build-dataset`` and ``dataset-stats`` to ``app``."""
    app.command("build-dataset")(build_dataset)
    app.command("dataset-stats")(dataset_stats)


def _numbers(text: str, option: str, kind: type = int, n: int = 3) -> tuple:
    """``n`` comma-separated numbers of ``kind`` (int or float), or an :class:`InputError` naming ``option``."""
    what = "integers" if kind is int else "numbers"
    try:
        values = tuple(kind(x) for x in text.split(","))
    except ValueError:
        values = ()
    if len(values) != n:
        raise InputError(f"{option}: expected {n} comma-separated {what}, got {text!r}")
    return values


def build_dataset(
    name: str = typer.Argument(..., help="Source: a KGQA dataset (pq-2h, pq-3h, pql-2h, pql-3h, wc-p1, wc-p2, wc-c, "
                               "metaqa-1h, metaqa-2h, metaqa-3h), 'kqapro' (KQA Pro programs grounded in --kb), "
                               "or 'entailmentbank' (trees converted as they are)."),
    out: Path = typer.Option(..., "--out", "-o", help="Output folder: train/dev/test.jsonl, stats.json, stats.md."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    splits: str = typer.Option("train,dev", help="Source splits to read (comma-separated); MetaQA has only dev."),
    limit: Optional[int] = typer.Option(None, help="Read at most this many questions per source split (file order)."),
    seed: int = typer.Option(13, help="Seed: grouping, distractors, shuffling and the split all follow it."),
    distractors: int = typer.Option(12, help="Distractors per question, one third each dense/same-head/random."),
    group_probs: str = typer.Option("1,1,1", help="Weights of grouping 0,1,2 extra same-head triples with a gold triple."),
    corpus_size: int = typer.Option(10_000, help="Corpus sentences searched for dense distractors (seeded sample)."),
    max_paths: int = typer.Option(10, help="Drop questions with more gold paths than this (MetaQA/WC many-answer)."),
    split: str = typer.Option("8,1,1", help="train:dev:test ratio of the output split."),
    encoder: str = typer.Option("default", help="Dense encoder for the dense third: 'default' (bundled MiniLM), "
                                "a HF name or path, or 'none' (that third becomes random)."),
    d2t_model: Optional[str] = typer.Option(None, "--d2t-model", help="Seq2seq data-to-text model (HF name or path) "
                                            "instead of the relation templates."),
    kb: Optional[str] = typer.Option(None, help="kqapro: the dataset whose KB to ground in (e.g. wc-c, metaqa-1h) "
                                     "or a triple file."),
    programs: Optional[Path] = typer.Option(None, help="kqapro: programs JSON (default: the 200-question sample)."),
    threads: int = typer.Option(1, help="Torch CPU threads for encoding."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar."),
) -> None:
    """Build a ReasonGraphQA-style dataset (evidence pool + gold reasoning graph per question)."""
    from graphhop.models.locate import check_model

    check_model(None if encoder.lower() in ("default", "none") else encoder, "--encoder")
    check_model(d2t_model, "--d2t-model")
    from graphhop.datasets.builder import (
        BuildConfig, Seq2SeqDataToText, build_named_dataset, stats_table, write_dataset,
    )

    if name.lower() == "entailmentbank":
        from graphhop.datasets.entailmentbank import iter_entailmentbank_records
        from graphhop.datasets.kgqa import data_root

        records = iter_entailmentbank_records(data_root(data), splits=[s for s in splits.split(",") if s], limit=limit,
                                              seed=seed, ratios=_numbers(split, "--split"))
        stats = write_dataset(records, out, "entailmentbank", progress=progress)
    else:
        config = BuildConfig(seed=seed, distractors=distractors, group_probs=_numbers(group_probs, "--group-probs", float),
                             corpus_size=corpus_size, max_paths=max_paths, split_ratios=_numbers(split, "--split"))
        enc = None
        if encoder.lower() != "none":
            from graphhop.models.encoder import load_encoder, set_threads

            set_threads(threads)
            enc = load_encoder(None if encoder == "default" else encoder)
        d2t = Seq2SeqDataToText(d2t_model) if d2t_model else None
        stats = build_named_dataset(name, out, data, [s for s in splits.split(",") if s], limit, config, enc, d2t,
                                    kb=kb, programs=programs, progress=progress)
    typer.echo(stats_table([stats[k].row() for k in ("all", "train", "dev", "test")]))
    dropped = stats["all"].dropped
    if dropped:
        typer.echo("dropped: " + "; ".join(f"{k}: {v}" for k, v in dropped.most_common()))
    typer.echo(f"wrote {out}/{{train,dev,test}}.jsonl, stats.json, stats.md")


def dataset_stats(
    paths: list[Path] = typer.Argument(None, help="Builder JSONL files, or folders holding train/dev/test.jsonl."),
    name: str = typer.Option("", help="Row name (default: the path)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON rows instead of a Markdown table."),
    schema: bool = typer.Option(False, "--schema", help="Print the record format and exit."),
    show: int = typer.Option(0, help="Also draw the gold reasoning graphs of the first N questions."),
) -> None:
    """Print Table-2-style statistics (nodes, edges, depth, graph-type shares, question types)."""
    from graphhop.datasets.builder import SPLITS, read_records, record_schema, stats_of_files, stats_table
    from graphhop.graph import EvidenceGraph

    if schema:
        typer.echo(json.dumps(record_schema(), indent=2))
        return
    if not paths:
        raise InputError("dataset-stats: give at least one JSONL file or dataset folder")
    rows = []
    for path in paths:
        if path.is_dir():
            files = [path / f"{s}.jsonl" for s in SPLITS if (path / f"{s}.jsonl").exists()]
            if not files:
                raise InputError(f"{path}: no train/dev/test.jsonl in this folder")
        elif path.exists():
            files = [path]
        else:
            raise InputError(f"{path}: no such file or folder")
        rows.append(stats_of_files(files, name or str(path)).row())
        shown = 0
        for file in files:
            for rec in read_records(file):
                if shown >= show:
                    break
                graph = EvidenceGraph.from_json(rec["graph"], f"{file}: {rec['id']}")
                typer.echo(f"{rec['id']} ({rec['graph_type']}; answers: {', '.join(rec['answers'][:5])})")
                typer.echo(graph.render_tree() + "\n")
                shown += 1
    typer.echo(json.dumps(rows, indent=2) if as_json else stats_table(rows))
