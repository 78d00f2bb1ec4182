"""``graphhop train``: retriever and reranker (DiFaR / DiFaR² on CPU), query-generator (GoldEn), bgr, reader."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any, Callable, Optional

import typer

from graphhop.cli.common import Threads, builder_records
from graphhop.core import InputError
from graphhop.eval.golden import DEFAULT_INDEX_DIR

__all__ = ["train_retriever", "train_reranker", "train_query_generator", "train_bgr", "train_reader", "train_leaves", "train_leaf_encoder",
           "train_leaf_reranker", "register"]


def register(app: typer.Typer) -> None:
    """Add the ``train`` command group to ``app``."""
    train = typer.Typer(help="Train models: retriever, reranker (DiFaR²), query generator (GoldEn), bgr, reader, ssg, kgqa, kgqa-reranker, leaves, type-head, edge-reader, text-reranker.",
                        no_args_is_help=True)
    from graphhop.cli.kgqa import train_kgqa
    from graphhop.cli.kgqa_rerank import train_kgqa_reranker
    from graphhop.cli.ssg import train_ssg
    from graphhop.cli.text import train_edge_reader, train_span_head, train_text_reranker
    from graphhop.cli.type_head import train_type_head_cli

    for name, command in (("retriever", train_retriever), ("reranker", train_reranker), ("query-generator", train_query_generator),
                          ("bgr", train_bgr), ("reader", train_reader), ("ssg", train_ssg), ("span-head", train_span_head),
                          ("kgqa", train_kgqa), ("leaves", train_leaves), ("leaf-encoder", train_leaf_encoder),
                          ("leaf-reranker", train_leaf_reranker), ("type-head", train_type_head_cli),
                          ("kgqa-reranker", train_kgqa_reranker), ("edge-reader", train_edge_reader),
                          ("text-reranker", train_text_reranker)):
        train.command(name)(command)
    app.add_typer(train, name="train")

_DATASETS_HELP = (
    "Comma-separated datasets to train on: pq-2h, pq-3h, pql-2h, pql-3h, wc-p1, wc-p2, wc-c (their train split) "
    "and metaqa-1h/2h/3h (MetaQA dev after its first 1000 questions per hop; the first 1000 are kept for evaluation)."
)


def _config(**kw):
    from graphhop.train.difar import TrainConfig

    return TrainConfig(**kw)


def _load(datasets: str, data: Optional[Path], limit: Optional[int], holdout: int, max_positives: int, seed: int):
    from graphhop.train.data import load_train_data

    names = [d.strip() for d in datasets.split(",") if d.strip()]
    if not names:
        raise typer.BadParameter("give at least one dataset", param_hint="--datasets")
    train, val = load_train_data(names, data, limit=limit, holdout_percent=holdout, max_positives=max_positives, seed=seed)
    typer.echo(f"training questions {len(train.examples)} ({train.pairs()} pairs), held-out {len(val.examples)}; KBs: {', '.join(train.groups)}", err=True)
    return names, train, val


def _run(kind: str, out: Path, names, train, val, cfg, as_json: bool) -> None:
    from graphhop.core import GraphhopError
    from graphhop.train import difar

    fn = difar.train_retriever if kind == "retriever" else difar.train_reranker
    try:
        card = fn(train, val, out, cfg, datasets=names, progress=True, log=lambda m: typer.echo(m, err=True))
    except GraphhopError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    summary = {"out": str(out), "steps": card["steps"], "best_epoch": card["best_epoch"], "best_val": card["best_val"], "finished": card["finished"]}
    typer.echo(json.dumps(summary, indent=None if as_json else 1))
    verdict = difar.baseline_verdict(card, out)
    if verdict is not None and card["finished"]:
        typer.echo(f"error: {verdict}", err=True)
        raise typer.Exit(1)


#: What both trainers write and read, first in their ``--help``: (parameter, type, option).
_IO_OPTIONS = [
    ("out", Path, typer.Option(..., "--out", "-o", help="Model directory to write (best checkpoint + graphhop_card.json); <out>.ckpt holds the resumable state.")),
    ("datasets", str, typer.Option(..., "--datasets", help=_DATASETS_HELP)),
    ("data", Optional[Path], typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA).")),
]
#: The run options both trainers take, declared once: (parameter, type, option). :func:`_trainer_options`
#: adds them to a command's signature; the command receives them as keyword arguments.
_RUN_OPTIONS = [
    ("limit", Optional[int], typer.Option(None, "--limit", help="Use at most N training questions per dataset (seeded shuffle).")),
    ("holdout", int, typer.Option(10, "--holdout", help="Percent of training questions held out for per-epoch evaluation and best-checkpoint choice.")),
    ("val_limit", int, typer.Option(300, "--val-limit", help="Evaluate on at most N held-out questions per epoch.")),
    ("max_steps", Optional[int], typer.Option(None, "--max-steps", help="Stop after N optimizer steps in total.")),
    ("max_minutes", Optional[float], typer.Option(None, "--max-minutes", help="Stop (evaluate, checkpoint) after N minutes; rerun to resume.")),
    ("pool_size", int, typer.Option(20000, "--pool-size", help="KBs larger than this are ranked within a pool of N facts for mining/evaluation.")),
    ("threads", int, typer.Option(2, "--threads", help="torch CPU threads (use 1 on a busy machine: oversubscribed threads made steps ~10x slower here).")),
    ("seed", int, typer.Option(0, "--seed", help="Random seed (data order, negatives).")),
    ("as_json", bool, typer.Option(False, "--json", help="Print the summary as one JSON line.")),
]
#: The fitting options both trainers take, each with the retriever's and the reranker's default:
#: parameter -> (type, flag, {kind: default}, help). Read by :func:`_trainer_options`.
_FIT_OPTIONS: dict[str, tuple[type, str, dict[str, Any], str]] = {
    "epochs": (int, "--epochs", {"retriever": 2, "reranker": 2}, "Passes over the training questions."),
    "batch_size": (int, "--batch-size", {"retriever": 32, "reranker": 32},
                   "(question, fact) pairs per batch (retriever: in-batch negatives = batch size - 1)."),
    "lr": (float, "--lr", {"retriever": 2e-5, "reranker": 3e-5}, "AdamW learning rate (linear warm-up, then linear decay)."),
    "warmup": (float, "--warmup", {"retriever": 0.1, "reranker": 0.1}, "Warm-up, as a fraction of all steps."),
    "hard_negatives": (int, "--hard-negatives", {"retriever": 1, "reranker": 3},
                       "Hard negatives per question: the highest-ranked non-gold facts (retriever: added per pair; 0 = in-batch only)."),
    "mine_k": (int, "--mine-k", {"retriever": 20, "reranker": 20},
               "Hard negatives are drawn from the top-K non-gold facts (retriever: of the current model; reranker: of the miner)."),
    "remine_every": (int, "--remine-every", {"retriever": 1, "reranker": 1},
                     "Every N epochs, re-mine the hard negatives with the current model (0 = never)."),
    "max_length": (int, "--max-length", {"retriever": 64, "reranker": 96},
                   "Max tokens per question or fact (reranker: per (question, fact) pair)."),
    "max_positives": (int, "--max-positives", {"retriever": 8, "reranker": 8},
                      "Training pairs per question at most (all gold facts stay excluded from negatives)."),
}


def _trainer_options(kind: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give the ``kind`` trainer command (which takes ``**run``) the :data:`_IO_OPTIONS` before its own
    options, then the :data:`_FIT_OPTIONS` with ``kind``'s defaults and the :data:`_RUN_OPTIONS`."""
    fit = [(name, typ, typer.Option(defaults[kind], flag, help=help_))
           for name, (typ, flag, defaults, help_) in _FIT_OPTIONS.items()]

    def add(command: Callable[..., Any]) -> Callable[..., Any]:
        """``command`` itself (not wrapped) with a ``__signature__`` for typer: the I/O options, its own
        parameters (keyword-only), then the fit and run options, which typer passes into its ``**run``."""
        sig = inspect.signature(command)
        keyword = inspect.Parameter.KEYWORD_ONLY
        own = [p.replace(kind=keyword) for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
        params = [inspect.Parameter(name, keyword, default=option, annotation=typ) for name, typ, option in _IO_OPTIONS]
        params += own + [inspect.Parameter(name, keyword, default=option, annotation=typ)
                         for name, typ, option in fit + _RUN_OPTIONS]
        command.__signature__ = sig.replace(parameters=params)
        return command

    return add


def _train(kind: str, run: dict, **config) -> None:
    """Load the data and train ``kind`` with the command's own ``config`` and the options of
    :func:`_trainer_options` (in ``run``)."""
    names, train, val = _load(run["datasets"], run["data"], run["limit"], run["holdout"], run["max_positives"], run["seed"])
    fit = {name: run[name] for name in _FIT_OPTIONS if name != "max_positives"}
    cfg = _config(**config, **fit, max_steps=run["max_steps"], max_minutes=run["max_minutes"], pool_size=run["pool_size"],
                  threads=run["threads"], seed=run["seed"], val_limit=run["val_limit"])
    _run(kind, run["out"], names, train, val, cfg, run["as_json"])


@_trainer_options("retriever")
def train_retriever(
    model: Optional[str] = typer.Option(None, "--model", help="Initial bi-encoder (default: bundled all-MiniLM-L6-v2)."),
    scale: float = typer.Option(20.0, "--scale", help="Similarity scale (inverse temperature) of the contrastive loss."),
    **run,
) -> None:
    """Fine-tune the DiFaR bi-encoder on (question, gold fact) pairs with in-batch + hard negatives.

    Rerunning the same command after an interruption resumes from <out>.ckpt. Use the result with
    `graphhop eval DATASET --model OUT` (the KB is re-encoded with the new model, once, and cached).
    """
    from graphhop.models.locate import check_model

    check_model(model, "--model")
    _train("retriever", run, model=model, random_negatives=0, scale=scale)


@_trainer_options("reranker")
def train_reranker(
    model: Optional[str] = typer.Option(None, "--model", help="Cross-encoder backbone: HF name or directory (default: bundled MiniLM + a fresh one-logit head)."),
    miner: Optional[str] = typer.Option(None, "--miner", help="Bi-encoder whose top-K gives the hard negatives and validation candidates (default: MiniLM; or a `train retriever` output)."),
    random_negatives: int = typer.Option(1, "--random-negatives", help="Random non-gold facts per question."),
    eval_k: int = typer.Option(20, "--eval-k", help="Validation reranks the miner's top-K per held-out question."),
    **run,
) -> None:
    """Train a DiFaR² cross-encoder reranker with BCE on gold facts vs. the retriever's most confusing facts.

    Rerunning the same command after an interruption resumes from <out>.ckpt. Use the result with
    `graphhop eval DATASET --rerank OUT --rerank-k 100`.
    """
    from graphhop.models.locate import check_model

    check_model(model, "--model")
    check_model(miner, "--miner")
    _train("reranker", run, model=model, miner=miner, random_negatives=random_negatives, eval_k=eval_k)


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
    threads: Threads = None,
) -> None:
    """Train GoldEn's query generator: a span selector fitted to oracle queries (train split), best epoch on dev."""
    from graphhop.models.locate import check_model

    check_model(model, "--model")
    from graphhop.datasets.kgqa import data_root
    from graphhop.datasets.textqa import load_text_dataset
    from graphhop.eval.golden import open_or_build_index
    from graphhop.models.encoder import set_threads
    from graphhop.models.span import SpanSelector
    from graphhop.retrieve.golden import GoldEnSearch
    from graphhop.train.query_generator import OracleStats, query_examples, train_span_selector

    set_threads(threads)
    if oracle_select not in ("shortest", "rank"):
        raise InputError(f"--oracle-select {oracle_select!r}: choose shortest or rank")
    root = data_root(data)
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


def _train_bgr_open(data: Path, out: Path, train: list, dev: list, emb: Any, cfg: Any, tcfg: Any, extra: dict[str, Any],
                    log: Callable[[str], None], *, open_k: int, db_dir: Optional[Path], cache: Path, backend: str,
                    links: str, keep_pool: bool, other_positives: int, select: bool) -> dict[str, Any]:
    """``train bgr --open-k K``: train on each prefix's top-K open candidates from the whole sentence DB (every
    split's evidence sentences; no dev/test labels are read), built under ``db_dir`` (default: under ``cache``).
    Returns the model card."""
    import hashlib

    from graphhop.train.bgr_open import open_search, train_bgr_open
    db = db_dir or cache / f"db-{data.resolve().name}-{backend}-{hashlib.md5(str(data.resolve()).encode()).hexdigest()[:8]}"
    search, by_text = open_search(data, db, open_k, backend=backend, links=links)
    _, card = train_bgr_open(train, dev, search, by_text, out, cfg, tcfg, keep_pool, other_positives,
                             encode=lambda t: emb.encode(t), log=log, card_extra={**extra, "db": str(db), "open_links": links},
                             select_open_settings=select)
    return card


def _bgr_selection(data: Path, select_split: str, every: int, limit: int, emb: Any) -> tuple[list, list[dict], dict]:
    """``(selection examples, train records left, card fields)`` of ``train bgr``: a chain-disjoint carve of train
    (every ``every``-th chain group; dev and test stay for reporting) or ``limit`` dev questions."""
    from graphhop.datasets.splits import carve_selection
    from graphhop.train.bgr_data import load_examples

    records = builder_records(data, "train")
    if select_split == "train":
        carve, records = carve_selection(records, every=every, limit=limit)
        return load_examples(carve, emb, None, progress=True), records, {"select_split": "train-carve", **({"carve_every": every} if every != 10 else {})}
    if select_split == "dev":
        return load_examples(builder_records(data, "dev"), emb, limit, progress=True), records, {"select_split": "dev"}
    raise InputError(f"--select-split: choose train or dev, got {select_split!r}")


def train_bgr(
    data: Path = typer.Argument(..., help="Builder dataset folder (train.jsonl + dev.jsonl)."),
    out: Path = typer.Option(..., "--out", "-o", help="Model dir to write (bgr.pt + model_card.json, atomic)."),
    train_limit: Optional[int] = typer.Option(None, help="Train on N training questions spread evenly (stride) over what the carve leaves."),
    dev_limit: int = typer.Option(200, help="Selection questions scored each epoch and used to choose thresholds/merge."),
    select_split: str = typer.Option("train", "--select-split", help="Where the selection questions come from: train "
                                     "(every 10th group of training questions sharing a chain, carved off and not trained on) or dev."),
    carve_every: Optional[int] = typer.Option(None, "--carve-every", min=2, help="--select-split train: carve every Nth chain "
                                              "group (default 10; smaller N: a larger carve, less to train on; for sets with few chain groups)."),
    epochs: int = typer.Option(20, help="Maximum epochs (early stop after --patience epochs without a better selection F1)."),
    patience: int = typer.Option(5, help="Epochs without improvement before stopping."),
    max_minutes: float = typer.Option(10.0, help="Wall-clock budget for training."),
    encoder: str = typer.Option("default", help="Frozen encoder: 'default' (bundled MiniLM) or a HF name/path."),
    cache: Path = typer.Option(Path("runs/bgr-cache"), help="Where encoder vectors are cached."),
    threads: int = typer.Option(2, help="Torch CPU threads."),
    seed: int = typer.Option(13, help="Seed."),
    path_text: bool = typer.Option(False, "--path-text/--no-path-text",
                                   help="Add the path-text matcher feature (cosine to the re-encoded question + path)."),
    vector_dropout: float = typer.Option(0.0, min=0.0, max=0.9,
                                         help="Training: drop a row's whole vector block with this probability."),
    scalar_after_first: bool = typer.Option(False, "--scalar-after-first/--no-scalar-after-first",
                                            help="Match steps >= 2 from the pair features alone (no vectors)."),
    other_positives: int = typer.Option(0, min=0, help="Training: add N gold sentences of other questions to each pool."),
    open_k: int = typer.Option(0, "--open-k", min=0, help="Train for the open setting: each prefix's candidates are the "
                               "top K retrieved hop by hop from the whole sentence DB (0: the prepared pools)."),
    keep_pool: bool = typer.Option(False, "--keep-pool/--no-keep-pool", help="--open-k: keep the prepared pool's distractors too."),
    db_dir: Optional[Path] = typer.Option(None, "--db-dir", help="--open-k: where the DB index is built (default: under --cache)."),
    open_links: str = typer.Option("proper", "--open-links", help="--open-k: entity links: proper, mentions (gazetteer), none."),
    link_feature: bool = typer.Option(False, "--link-feature/--no-link-feature",
                                      help="--open-k: the matcher also reads each candidate's entity-link weight."),
    open_select: bool = typer.Option(True, "--open-select/--no-open-select",
                                     help="--open-k: choose the open settings on the selection questions after training "
                                          "(off: leave them to open_graph_eval.py --select-open)."),
    backend: str = typer.Option("torch", "--backend", help="Encoder backend of the frozen vectors: torch (MiniLM) or "
                                "static (its model2vec distillation: for DBs too large to encode with MiniLM)."),
) -> None:
    """Train the Graph-hop retriever (forward + backward) on a builder dataset; print a JSON summary."""
    from graphhop.models.locate import check_model

    check_model(None if encoder == "default" else encoder, "--encoder")
    if link_feature and not open_k:
        raise InputError("--link-feature needs --open-k (the link weights come from the open retriever's candidates)")
    from graphhop.eval.experiment import stride_sample
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.graphhop import BGRConfig
    from graphhop.train.bgr import TrainConfig
    from graphhop.train.bgr import train_bgr as run
    from graphhop.train.bgr_data import EmbeddingCache, add_other_positives, load_examples

    if carve_every is not None and select_split != "train":
        raise InputError(f"--carve-every: only with --select-split train (--select-split {select_split} carves nothing)")

    set_threads(threads)
    name = None if encoder == "default" else encoder
    emb = EmbeddingCache(cache, name, backend=backend)  # an unknown backend: one InputError naming the choices
    dev, records, chosen = _bgr_selection(data, select_split, carve_every or 10, dev_limit, emb)
    train = load_examples(stride_sample(records, train_limit), emb, None, progress=True)
    dim = int(train[0].question_vec.shape[0]) if train else 384
    cfg = BGRConfig(encoder=emb.model_name, input_dim=dim, path_text_feature=path_text, vector_dropout=vector_dropout,
                    scalar_after_first=scalar_after_first, link_feature=link_feature)
    tcfg = TrainConfig(epochs=epochs, max_minutes=max_minutes, dev_limit=dev_limit, threads=threads, seed=seed,
                       patience=patience)
    extra = {"data": str(data), "other_positives": other_positives, "encoder_backend": backend, **chosen}
    log = lambda m: typer.echo(m, err=True)  # noqa: E731
    if open_k:
        card = _train_bgr_open(data, out, train, dev, emb, cfg, tcfg, extra, log, open_k=open_k, db_dir=db_dir, cache=cache,
                               backend=backend, links=open_links, keep_pool=keep_pool, other_positives=other_positives,
                               select=open_select)
    else:
        _, card = run(add_other_positives(train, other_positives), dev, out, cfg, tcfg, progress=True, log=log,
                      card_extra=extra, encode=lambda t: emb.encode(t))
    emb.save()
    typer.echo(json.dumps({"out": str(out), "train_seconds": card["train_seconds"], "best_epoch": card["best_epoch"],
                           "selection": {k: v for k, v in card["selection"].items() if k != "dev"}}, indent=1))


def train_reader(
    data: Path = typer.Argument(..., help="Builder dataset directory (train.jsonl, dev.jsonl) or a train .jsonl file."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to save the span reader (atomically)."),
    dev: Optional[Path] = typer.Option(None, "--dev", help="Dev .jsonl (default: dev.jsonl next to the training data)."),
    model: Optional[str] = typer.Option(None, "--model", help="HF encoder name or path (default: bundled MiniLM)."),
    evidence: str = typer.Option("gold", "--evidence", help="Evidence the reader sees in training: gold (the gold graph) or pool (gold + distractors)."),
    epochs: int = typer.Option(2, "--epochs"),
    batch_size: int = typer.Option(16, "--batch-size"),
    lr: float = typer.Option(1e-4, "--lr"),
    warmup: float = typer.Option(0.1, "--warmup", help="Fraction of steps for linear warm-up."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Use the first N training questions."),
    dev_limit: Optional[int] = typer.Option(200, "--dev-limit", help="Evaluate on the first N dev questions."),
    max_length: int = typer.Option(256, "--max-length", help="Word pieces per (question, evidence) pair."),
    max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Stop training after this many minutes (best checkpoint kept)."),
    threads: Threads = None,
    seed: int = typer.Option(0, "--seed"),
) -> None:
    """Train the span reader on a builder dataset's (question, evidence, answer) triples."""
    from graphhop.models.locate import check_model

    check_model(model, "--model")
    from graphhop.models.encoder import set_threads
    from graphhop.read.span import SpanReader, examples_from_records
    from graphhop.train.reader import train_span_reader

    set_threads(threads)
    train_path = data / "train.jsonl" if data.is_dir() else data
    dev_path = dev or (train_path.parent / "dev.jsonl")
    if not train_path.exists():
        raise InputError(f"{train_path}: no such file")
    train_ex, skipped = examples_from_records(train_path, evidence=evidence, limit=limit)
    dev_ex: list = []
    if dev_path.exists():
        dev_ex, _ = examples_from_records(dev_path, evidence=evidence, limit=dev_limit)
    typer.echo(f"train: {len(train_ex)} examples ({skipped} questions without the answer in their evidence); dev: {len(dev_ex)}")
    reader = SpanReader.from_pretrained(model, max_length=max_length)
    result = train_span_reader(reader, train_ex, dev_ex, out=out, epochs=epochs, batch_size=batch_size, lr=lr,
                               warmup=warmup, seed=seed, max_minutes=max_minutes,
                               card={"data": str(train_path), "evidence": evidence})
    typer.echo(json.dumps({"out": str(out), "steps": result.steps, "seconds": round(result.seconds, 1),
                           "best_epoch": result.best_epoch, "best": result.best}, indent=2))


def train_leaves(
    out: Path = typer.Option(..., "--out", "-o", help="Directory to write the leaf head to (head.npz + head.json)."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    index_dir: Path = typer.Option(DEFAULT_INDEX_DIR, "--index-dir", help="Where the WorldTree index is built or reused."),
    pool: int = typer.Option(30, help="Candidates per source (dense, BM25, path) at every step."),
    hidden: int = typer.Option(32, help="Hidden units of the head's MLP."),
    epochs: int = typer.Option(8, help="Passes over the teacher-forced rows."),
    seed: int = typer.Option(13, help="Random seed (leaf orders, initialization, batches)."),
    rollout: bool = typer.Option(False, help="Add one DAgger round (rows from the head's own greedy prefixes)."),
    encoder: bool = typer.Option(False, "--encoder", help="Train the head over the fine-tuned encoder's index "
                                 "(the encoder is fine-tuned first when not cached; see `train leaf-encoder`)."),
    threads: Optional[int] = typer.Option(1, help="Torch CPU threads."),
) -> None:
    """Train the EntailmentBank leaf head (``retrieve/leaves.py``) on the angles task-1 train trees; its stop
    threshold and step cap are chosen on the last tenth of the train trees (the selection carve)."""
    from graphhop.datasets.kgqa import data_root
    from graphhop.models.encoder import set_threads
    from graphhop.train.leaf_encoder import open_leaf_index
    from graphhop.train.leaves import train_leaf_head

    set_threads(threads)
    if pool < 1 or hidden < 1 or epochs < 1:
        raise InputError("--pool, --hidden and --epochs must be positive")
    root = data_root(data)
    index = open_leaf_index(root, index_dir, fine_tuned=encoder, train=True, progress=True)
    card = train_leaf_head(index, root, out, pool=pool, hidden=hidden, epochs=epochs, seed=seed, rollout=rollout)
    card.pop("grid")
    typer.echo(json.dumps(card, indent=1))


def train_leaf_encoder(
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    index_dir: Path = typer.Option(DEFAULT_INDEX_DIR, "--index-dir", help="Where the WorldTree indexes are built or reused."),
    threads: Optional[int] = typer.Option(1, help="Torch CPU threads."),
) -> None:
    """Fine-tune MiniLM on the EntailmentBank train trees (hypothesis + question -> leaves; the selection carve
    held out) and cache it under $GRAPHHOP_CACHE/encoders (a setup step: about 90 MB, not shipped); then
    build the WorldTree index it encodes. Reuses the cached model when the recipe and data are unchanged."""
    from graphhop.datasets.kgqa import data_root
    from graphhop.models.encoder import set_threads
    from graphhop.train.leaf_encoder import leaf_encoder_dir, open_leaf_index

    set_threads(threads)
    root = data_root(data)
    index = open_leaf_index(root, index_dir, fine_tuned=True, train=True, progress=True)
    enc = leaf_encoder_dir(root)
    card = json.loads((enc / "graphhop_card.json").read_text(encoding="utf-8"))
    typer.echo(json.dumps({"encoder": str(enc), "index": str(index.path), **card}, indent=1))


def train_leaf_reranker(
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    index_dir: Path = typer.Option(DEFAULT_INDEX_DIR, "--index-dir", help="Where the WorldTree indexes are built or reused."),
    encoder: bool = typer.Option(True, "--encoder/--base", help="Choose the leaf-set rule over the fine-tuned "
                                 "encoder's index (`train leaf-encoder`; falls back to the frozen MiniLM with a warning "
                                 "when not cached) or over the frozen MiniLM's."),
    threads: Optional[int] = typer.Option(1, help="Torch CPU threads."),
    recipe: Optional[str] = typer.Option(None, help="listwise (the default, session 6: hard negatives from the fine-tuned "
                               "encoder's top 10, listwise + pointwise loss; needs `train leaf-encoder`), listwise-more (session 7: the "
                               "listwise model one more epoch, negatives drawn again; needs it trained) or pointwise "
                               "(session 5: BCE, frozen negatives)."),
    log: Optional[Path] = typer.Option(None, "--log", help="Append a progress line every 20 training steps here."),
) -> None:
    """Train the EntailmentBank leaf reranker (a MiniLM cross-encoder; ``train/leaf_reranker.py``) on the train
    trees minus the selection carve and cache it under $GRAPHHOP_CACHE/encoders (about 90 MB, not shipped; reused
    when the recipe and data are unchanged); then choose its leaf-set rule on the carve and store it beside it."""
    from graphhop.datasets.kgqa import data_root
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.leaves_rerank import DEFAULT_RULE, LeafReranker
    from graphhop.train.leaf_encoder import open_leaf_index
    from graphhop.train.leaf_reranker import DEFAULT_RECIPE, RECIPES, choose_rule, ensure_leaf_reranker, line_log
    from graphhop.train.leaves import selection_examples

    recipe = recipe or DEFAULT_RECIPE
    if recipe not in RECIPES:
        raise InputError(f"--recipe {recipe!r}: use one of {', '.join(RECIPES)}")
    set_threads(threads)
    root = data_root(data)
    base = open_leaf_index(root, index_dir, fine_tuned=False, progress=True)
    index = open_leaf_index(root, index_dir, fine_tuned=encoder, progress=True) if encoder else base
    model_dir = ensure_leaf_reranker(base, root, RECIPES[recipe], negative_index=index, log=line_log(log))
    rule = choose_rule(LeafReranker(index, model_dir, **DEFAULT_RULE), selection_examples(index, root))
    card = json.loads((model_dir / "graphhop_card.json").read_text(encoding="utf-8"))
    typer.echo(json.dumps({"reranker": str(model_dir), "index": str(index.path), "rule": rule, **card}, indent=1))
