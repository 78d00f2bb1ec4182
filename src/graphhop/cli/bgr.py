"""``graphhop eval-bgr``: score BGR and the baselines on a builder dataset split."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from graphhop.cli.common import builder_records

__all__ = ["eval_bgr", "register"]


def register(app: typer.Typer) -> None:
    """Add ``eval-bgr`` to ``app``."""
    app.command("eval-bgr")(eval_bgr)


def eval_bgr(
    model: Path = typer.Argument(..., help="Model dir written by `graphhop train bgr`."),
    data: Path = typer.Argument(..., help="Builder dataset folder or JSONL file."),
    split: str = typer.Option("dev", help="Split reported: dev or test (a folder's <split>.jsonl)."),
    sample: Optional[int] = typer.Option(None, "--sample", help="Score N questions spread evenly over the split (stride)."),
    methods: str = typer.Option("random,bm25,dense,mdr,bgr-forward,bgr-backward,bgr-bidirectional",
                                help="Comma-separated methods (baselines: a row with k = gold set size, labelled oracle, and one with k chosen on selection)."),
    cache: Path = typer.Option(Path("runs/bgr-cache"), help="Where encoder vectors are cached."),
    as_json: bool = typer.Option(False, "--json", help="Print the full JSON (per type and per depth)."),
    threads: int = typer.Option(2, help="Torch CPU threads."),
    choose_k: bool = typer.Option(True, "--choose-k/--oracle-k-only",
                                  help="Add each baseline's row with k chosen on the model's selection split."),
) -> None:
    """Score BGR and the baselines: evidence-set EM/P/R/F1, GM, GS, GED per graph type and depth.

    The split the model chose its thresholds and merge rule on (its card's ``select_split``) cannot
    be the split reported.
    """
    from graphhop.eval.bgr import selection_ks
    from graphhop.eval.experiment import Experiment, stride_sample
    from graphhop.eval.measures import GRAPH
    from graphhop.eval.tasks import bgr_systems, builder_golds, check_split
    from graphhop.models.encoder import set_threads
    from graphhop.models.locate import check_model
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.retrieve.graphhop import load_model
    from graphhop.train.bgr_data import EmbeddingCache, load_examples

    check_model(model, "model", needs=("bgr.pt",))
    set_threads(threads)
    bgr, card = load_model(model)
    experiment = Experiment(GRAPH, report=check_split(split), select=card.get("select_split", "dev"),
                            title=f"{data.name} {split}")
    emb = EmbeddingCache(cache, bgr.cfg.encoder)
    recs = stride_sample(builder_records(data, split), sample)
    examples = load_examples(recs, emb, None, progress=True)
    bm25 = PoolBM25(dict.fromkeys(e["text"] for r in recs for e in r["evidence"]))
    names = [m.strip() for m in methods.split(",") if m.strip()]
    ks = selection_ks(data, card, names, emb) if choose_k else None
    systems = bgr_systems(bgr, examples, names, bm25, emb.encode, ks=ks)
    table = experiment.run(systems, [ex.question for ex in examples], builder_golds(examples))
    emb.save()
    typer.echo(table.dumps() if as_json else table.markdown() + "\n\n" + table.markdown("type"))
