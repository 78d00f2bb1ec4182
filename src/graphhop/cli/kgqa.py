"""``graphhop eval-qa`` and ``graphhop train kgqa`` (``train kgqa`` is added to the ``train`` group by
:mod:`graphhop.cli.train`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from graphhop.cli.common import key_values
from graphhop.core import InputError

__all__ = ["register", "eval_qa", "train_kgqa", "support_triples"]


def register(app: typer.Typer) -> None:
    """Add ``eval-qa`` to ``app``."""
    app.command("eval-qa")(eval_qa)


def support_triples(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The triples of a result's support graph."""
    g = result["support_graph"]
    return [tuple(f) for n, d in g.g.nodes(data=True) if n != g.root for f in d.get("facts", [])]


def _make_ask(method: str, weights: Optional[Path], hops: Optional[int], used: Optional[list[str]] = None,
              extra: Optional[dict[str, str]] = None) -> Callable[[Path], tuple[Callable, Callable]]:
    """``make(kb) -> (ask, triples_of)``: the registry pipeline ``method`` over the KB's cached index
    (``auto``: :func:`~graphhop.pipeline.registry.default_pipeline`, what ``ask`` uses; BM25 only for
    kgqa, which reads the KB itself; flat dense for the retrieval pipelines). ``hops`` None: the pipeline's own
    default, as in ``ask``. The name run is appended to ``used``."""
    def make(kb: Path) -> tuple[Callable, Callable]:
        from graphhop.evaluation import dataset_index
        from graphhop.index.dense import DenseOptions
        from graphhop.pipeline.registry import build_pipeline, default_pipeline

        index = dataset_index(kb, dense=None, progress=False)
        name = default_pipeline(index) if method == "auto" else method
        if name != "kgqa":
            index = dataset_index(kb, dense=DenseOptions("flat"), progress=False)
        options: dict[str, Any] = {"hops": hops, **(extra or {})}
        if name == "kgqa" and weights is not None:
            options["weights"] = str(weights)
        pipe = build_pipeline(name, index, **options)
        if used is not None:
            used.append(name)

        def ask(question: str) -> dict[str, Any]:
            res = pipe.ask(question)
            return {"answer": res.answer, "answers": res.answers, "supported": res.supported,
                    "support_graph": res.support_graph}

        return ask, support_triples
    return make


def eval_qa(
    dataset: str = typer.Argument(..., help="A dataset of `graphhop datasets` (pq-3h, metaqa-2h, ...) or a folder with kb.tsv + questions.jsonl."),
    split: str = typer.Option("dev", "--split", help="dev or test (a test file placed beside the dev file)."),
    sample: Optional[int] = typer.Option(None, "--sample", "-n", help="Evaluate N questions spread evenly over the file (default: all)."),
    method: str = typer.Option("auto", "--method", "-m", help="A fact pipeline of `graphhop pipelines`, or auto: what `ask` uses (kgqa, trained, on facts); e.g. dense is retrieval + the untrained fact reader, the previous default."),
    weights: Optional[Path] = typer.Option(None, "--weights", help="KGQA scorer directory (default: the shipped weights)."),
    hops: Optional[int] = typer.Option(None, "--hops", help="Longest relation path (1-4); default: the pipeline's own, as in `ask` (kgqa: 4)."),
    data: Optional[Path] = typer.Option(None, "--data", help="Data root (default: $GRAPHHOP_DATA)."),
    details: Optional[Path] = typer.Option(None, "--details", help="Also write one JSON line per question here."),
    threads: int = typer.Option(1, "--threads", help="torch CPU threads (1: fastest per question on a shared machine)."),
    option: list[str] = typer.Option([], "--option", "-o", help="KEY=VALUE option of the pipeline, repeatable (kgqa: answer_order=name, confidence=path, end_typing=false, ...)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """End-to-end QA through the same pipeline as `ask`: answer Hits@1 / EM, support recall, right reason;
    seconds per question warm (mean, median) and the first question's (models loading) apart."""
    from graphhop.kgqa.evaluate import evaluate_dataset
    from graphhop.models.encoder import set_threads

    if split not in ("dev", "test", "train"):
        raise InputError(f"--split: {split!r} is not dev, test or train")
    from graphhop.pipeline.registry import pipeline_names

    if method != "auto" and method not in pipeline_names("facts"):
        raise InputError(f"--method: unknown method {method!r}; choose one of {', '.join(pipeline_names('facts'))}")
    if sample is not None and sample < 1:
        raise InputError(f"--sample must be at least 1 (got {sample})")
    if hops is not None and not 1 <= hops <= 4:
        raise InputError(f"--hops must be in 1..4 (got {hops})")
    if threads < 1:
        raise InputError(f"--threads must be at least 1 (got {threads})")
    extra = key_values(option)
    set_threads(threads)
    rows: list[dict[str, Any]] = []
    used: list[str] = []
    out = evaluate_dataset(dataset, split, _make_ask(method, weights, hops, used, extra), sample, data, progress=not as_json, rows_out=rows)
    out["method"] = used[0] if used else method
    if extra:
        out["options"] = extra
    if details is not None:
        _write_lines(details, [json.dumps(r, ensure_ascii=False) for r in rows])
    if as_json:
        print(json.dumps(out, ensure_ascii=False))
        return
    _print_summary(out)


def _write_lines(path: Path, lines: list[str]) -> None:
    """Write ``lines`` to ``path`` atomically (temp file + rename)."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))
    os.replace(tmp, path)


def _print_summary(out: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"eval-qa {out['dataset']} ({out['split']}, {out['n']} of {out['of']} questions, {out['method']})",
                  title_justify="left")
    cols = ("n", "answer_hits1", "em", "support_recall", "right_reason", "abstained")
    table.add_column("slice")
    for c in cols:
        table.add_column(c, justify="right")
    fmt = lambda v: "" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))  # noqa: E731
    table.add_row("all", *[fmt(out[c]) for c in cols])
    for group in ("by_hops", "by_qtype"):
        for key, block in out[group].items():
            table.add_row(f"{group[3:]}={key}", *[fmt(block[c]) for c in cols])
    Console().print(table)
    if out.get("note"):
        Console().print(f"[dim]{out['note']}[/]")
    if out.get("n"):
        Console().print(f"[dim]{out['mean_seconds'] * 1000:.0f} ms per question warm (median {out['median_seconds'] * 1000:.0f}); "
                        f"the first, loading the models, {out['first_seconds']:.1f} s[/]")


def train_kgqa(
    out: Path = typer.Option(..., "--out", "-o", help="Directory to write the scorer (head.npz + config.json) atomically."),
    epochs: int = typer.Option(4, "--epochs"),
    lr: float = typer.Option(2e-3, "--lr"),
    metaqa_limit: int = typer.Option(3000, "--metaqa-limit", help="Questions per MetaQA hop count, spread evenly over its fit half."),
    synthetic: int = typer.Option(600, "--synthetic", help="Synthetic compositional questions per training KB."),
    schemas: int = typer.Option(0, "--schemas", help="Questions per hand-written schema (kgqa/schemas.py: paraphrased wordings; 0: none, the shipped head's recipe)."),
    train_limit: Optional[int] = typer.Option(None, "--train-limit", help="At most N questions of each PQ/PQL/WC train set, spread evenly."),
    init: Optional[Path] = typer.Option(None, "--init", help="Fine-tune this scorer directory (e.g. the shipped weights) instead of a fresh head."),
    hard: bool = typer.Option(False, "--hard/--no-hard", help="Hard negatives: one relation off the gold path, shortcuts, named relations (off: the shipped head's recipe)."),
    lures: bool = typer.Option(False, "--lures/--no-lures", help="With --hard: keep each question's lures as negatives (the gold chain "
                               "cut one hop short; walked one hop further along a relation the question's words name)."),
    schema_variants: int = typer.Option(0, "--schema-variants", help="Questions per schema variant (kgqa/schema_variants.py: Wikidata-style "
                                        "labels, relations stored the other way round, lure relations; 0: none)."),
    seed: int = typer.Option(0, "--seed"),
    max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Stop after this many minutes (best epoch kept)."),
    data: Optional[Path] = typer.Option(None, "--data", help="Data root (default: $GRAPHHOP_DATA)."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing output directory."),
    threads: Optional[int] = typer.Option(None, "--threads", help="torch CPU threads."),
    cache: Optional[Path] = typer.Option(None, "--cache", help="Corpus cache file: read if present (same options), else written after the build."),
    epoch_dir: Optional[Path] = typer.Option(None, "--epoch-dir", help="Also write every epoch's head to DIR/epoch_N, a folder "
                                             "outside --out, empty unless --overwrite (to choose the epoch end to end: benchmarks/kgqa_schema_carve.py --choose)."),
) -> None:
    """Train the KGQA relation-path scorer on the shared train parts (MetaQA: the fit half of dev)."""
    from graphhop.kgqa.train import train_scorer
    from graphhop.models.encoder import set_threads

    set_threads(threads)
    for option, value, least in (("--epochs", epochs, 1), ("--metaqa-limit", metaqa_limit, 1), ("--synthetic", synthetic, 0),
                                 ("--schemas", schemas, 0), ("--schema-variants", schema_variants, 0), ("--train-limit", train_limit, 1)):
        if value is not None and value < least:
            raise InputError(f"{option} must be at least {least} (got {value})")
    if lures and not hard:
        raise InputError("--lures needs --hard (the lures are kept among the hard negatives)")
    report = train_scorer(out, epochs=epochs, lr=lr, metaqa_limit=metaqa_limit, seed=seed, max_minutes=max_minutes,
                          root=data, overwrite=overwrite, synthetic=synthetic, hard=hard, schemas=schemas,
                          train_limit=train_limit, init=init, cache=cache, epoch_dir=epoch_dir, lures=lures,
                          schema_variants=schema_variants)
    typer.echo(json.dumps({k: v for k, v in report.items() if k != "history"}, indent=2))
