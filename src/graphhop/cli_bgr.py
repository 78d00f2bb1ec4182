"""``graphhop train bgr``, ``graphhop eval-bgr`` and :func:`ask_bgr` (for ``graphhop ask --method bgr``).

Command functions only: :mod:`graphhop.cli` registers them. Datasets are builder folders
(``train/dev/test.jsonl`` from ``graphhop build-dataset``, EntailmentBank included).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional, Sequence

import typer

from graphhop.core import InputError

__all__ = ["train_bgr", "eval_bgr", "ask_bgr"]


def _records(folder: Path, split: str) -> list[dict[str, Any]]:
    from graphhop.datasets.builder import read_records

    path = folder / f"{split}.jsonl" if folder.is_dir() else folder
    if not path.exists():
        raise InputError(f"{path}: no such file (expected a builder dataset folder with {split}.jsonl)")
    return list(read_records(path))


def train_bgr(
    data: Path = typer.Argument(..., help="Builder dataset folder (train.jsonl + dev.jsonl)."),
    out: Path = typer.Option(..., "--out", "-o", help="Model dir to write (bgr.pt + model_card.json, atomic)."),
    train_limit: Optional[int] = typer.Option(None, help="Use the first N training questions."),
    dev_limit: int = typer.Option(200, help="Dev questions scored each epoch and used to choose thresholds/merge."),
    epochs: int = typer.Option(20, help="Maximum epochs (early stop after --patience epochs without a better dev F1)."),
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
) -> None:
    """Train the Graph-hop retriever (forward + backward) on a builder dataset; print a JSON summary."""
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.graphhop import BGRConfig
    from graphhop.train.bgr import EmbeddingCache, TrainConfig, load_examples
    from graphhop.train.bgr import train_bgr as run

    set_threads(threads)
    name = None if encoder == "default" else encoder
    emb = EmbeddingCache(cache, name)
    train = load_examples(_records(data, "train"), emb, train_limit, progress=True)
    dev = load_examples(_records(data, "dev"), emb, dev_limit, progress=True)
    dim = int(train[0].question_vec.shape[0]) if train else 384
    cfg = BGRConfig(encoder=emb.model_name, input_dim=dim)
    cfg.path_text_feature = path_text
    cfg.vector_dropout = vector_dropout
    _, card = run(train, dev, out, cfg, TrainConfig(epochs=epochs, max_minutes=max_minutes, dev_limit=dev_limit,
                                                    threads=threads, seed=seed, patience=patience),
                  progress=True, log=lambda m: typer.echo(m, err=True), card_extra={"data": str(data)},
                  encode=lambda t: emb.encode(t))
    emb.save()
    typer.echo(json.dumps({"out": str(out), "train_seconds": card["train_seconds"], "best_epoch": card["best_epoch"],
                           "selection": {k: v for k, v in card["selection"].items() if k != "dev"}}, indent=1))


def eval_bgr(
    model: Path = typer.Argument(..., help="Model dir written by `graphhop train bgr`."),
    data: Path = typer.Argument(..., help="Builder dataset folder or JSONL file."),
    split: str = typer.Option("dev", help="Split to score (a folder's <split>.jsonl)."),
    limit: Optional[int] = typer.Option(None, help="Score the first N questions."),
    methods: str = typer.Option("random,bm25,dense,mdr,bgr-forward,bgr-backward,bgr-bidirectional",
                                help="Comma-separated methods (baselines use k = gold set size)."),
    cache: Path = typer.Option(Path("runs/bgr-cache"), help="Where encoder vectors are cached."),
    as_json: bool = typer.Option(False, "--json", help="Print the full JSON (per type and per depth)."),
    threads: int = typer.Option(2, help="Torch CPU threads."),
) -> None:
    """Score BGR and the baselines: evidence-set EM/P/R/F1, GM, GS, GED per graph type and depth."""
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.retrieve.graphhop import load_model
    from graphhop.train.bgr import EmbeddingCache, evaluate_methods, load_examples

    set_threads(threads)
    bgr, card = load_model(model)
    emb = EmbeddingCache(cache, bgr.cfg.encoder)
    recs = _records(data, split)
    examples = load_examples(recs, emb, limit, progress=True)
    bm25 = PoolBM25(dict.fromkeys(e["text"] for r in recs for e in r["evidence"]))
    rows = evaluate_methods(bgr, examples, [m.strip() for m in methods.split(",") if m.strip()], bm25,
                            lambda t: emb.encode(t), progress=True)
    emb.save()
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    typer.echo("| method | n | EM | P | R | F1 | GM | GS | GED |")
    typer.echo("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m, r in rows.items():
        a = r["by_type"]["all"]
        typer.echo(f"| {m} | {a['n']} | " + " | ".join(f"{a[k]:.3f}" for k in ("em", "precision", "recall", "f1", "gm", "gs", "ged")) + " |")


def ask_bgr(
    question: str,
    model: str | Path,
    evidence: Sequence[str | dict[str, Any]] | None = None,
    index: str | Path | None = None,
    first_stage: str = "dense",
    top_n: int = 25,
    mode: str = "bidirectional",
) -> "EvidenceGraph":  # noqa: F821
    """The evidence graph of ``question`` from a trained BGR model dir.

    Candidates come from ``evidence`` (texts, or ``{"id", "text", "facts"}`` dicts: the closed
    setting) or from a knowledge ``index`` (the open setting: ``first_stage`` top-``top_n``,
    ``bm25``/``dense``/``hybrid``). ``mode``: forward, backward or bidirectional (merge from the model card).
    """
    import numpy as np

    from graphhop.kb.verbalize import normalize_question
    from graphhop.models.encoder import load_encoder
    from graphhop.retrieve.graphhop import BGRRetriever, CandidatePool, load_model

    bgr, _ = load_model(model)
    enc = load_encoder(None if bgr.cfg.encoder == "sentence-transformers/all-MiniLM-L6-v2" else bgr.cfg.encoder)
    if evidence is None and index is None:
        raise InputError("ask_bgr needs candidate evidence or an index")
    ids: list[str]
    texts: list[str]
    facts: list[list[list[str]]]
    if evidence is not None:
        ids, texts, facts = [], [], []
        for i, e in enumerate(evidence):
            if isinstance(e, str):
                ids.append(f"e{i}"), texts.append(e), facts.append([])
            else:
                if "text" not in e:
                    raise InputError(f"evidence[{i}]: missing field 'text'")
                ids.append(str(e.get("id", f"e{i}"))), texts.append(str(e["text"])), facts.append(list(e.get("facts", [])))
    else:
        from graphhop.index.directory import KnowledgeIndex
        from graphhop.retrieve import make_retriever

        kidx = KnowledgeIndex.open(index)
        hits = make_retriever(kidx, first_stage).search([question], top_n)[0]
        docs = [kidx.docs[h.id] for h in hits]
        ids, texts = [d.id for d in docs], [d.text for d in docs]
        facts = [[list(d.fact.triple)] if getattr(d, "fact", None) is not None else [] for d in docs]
    if not ids:
        raise InputError("no candidate evidence for the question")
    query = normalize_question(question)
    vecs = np.asarray(enc.encode([query] + texts, convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)
    pool = CandidatePool(ids, texts, vecs[1:], facts)
    encode = lambda t: np.asarray(enc.encode(t, convert_to_numpy=True, normalize_embeddings=True), dtype=np.float32)  # noqa: E731
    return BGRRetriever(bgr, encode=encode).retrieve_pool(question, pool, vecs[0], mode=mode)
