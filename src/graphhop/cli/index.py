"""``graphhop index`` and ``graphhop search``: build a knowledge index, query it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.cli.common import Threads, console, err, print_table
from graphhop.core import GraphhopError

__all__ = ["index_cmd", "search_cmd", "register"]


def register(app: typer.Typer) -> None:
    """Add ``index`` and ``search`` to ``app``."""
    app.command("index")(index_cmd)
    app.command("search")(search_cmd)


def index_cmd(
    sources: list[Path] = typer.Argument(..., help="Triple files (TSV, pipe, JSONL, N-Triples) or, with --passages, passage files (JSONL, HotpotQA/MuSiQue corpus JSON)."),
    out: Path = typer.Option(..., "--out", "-o", help="Index directory to write (atomically)."),
    passages: bool = typer.Option(False, "--passages", help="Sources are passages, not triples."),
    fmt: str = typer.Option("auto", "--format", help="Triple format: auto, tsv, pipe, jsonl, nt."),
    dense: str = typer.Option("hnsw-sq", "--dense", help="Dense index: hnsw-sq (DiFaR), flat (exact), ivf-pq (IVF + 4-bit PQ fast scan + exact fp16 re-rank; large KBs) or none."),
    sparse: bool = typer.Option(True, "--sparse/--no-sparse", help="Build the BM25 (tantivy) index."),
    model: Optional[str] = typer.Option(None, "--model", help="sentence-transformers name or local path (default: bundled all-MiniLM-L6-v2)."),
    hnsw_m: int = typer.Option(32, "--hnsw-m", help="HNSW links per node."),
    ef_construction: int = typer.Option(80, "--ef-construction", help="HNSW build breadth."),
    ef_search: int = typer.Option(128, "--ef-search", help="HNSW search breadth (raised to k when k is larger)."),
    nlist: int = typer.Option(0, "--nlist", help="ivf-pq cells (0: a power of two near 4·sqrt(facts))."),
    nprobe: int = typer.Option(64, "--nprobe", help="ivf-pq cells scanned per query (choose on held-out questions)."),
    bigrams: bool = typer.Option(False, "--bigrams/--no-bigrams", help="Add bigram copies of title/text to BM25 (GoldEn; off: measured to hurt on facts and MuSiQue)."),
    title_boost: float = typer.Option(1.25, "--title-boost", help="BM25 title field boost (best-fields multi-match)."),
    skip_bad_lines: bool = typer.Option(False, "--skip-bad-lines", help="Skip malformed lines (reported) instead of stopping."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing index directory."),
    backend: str = typer.Option("torch", "--backend", help="Encoder backend: torch, onnx, onnx-int8 or static (model2vec)."),
    resume: bool = typer.Option(False, "--resume", help="Continue an interrupted build from its checkpointed vectors."),
    engine: str = typer.Option("local", "--engine", help="Encode in-process (local) or with a Ray Data actor pool (ray)."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Ray cluster address, e.g. ray://head:10001 (default: a local Ray)."),
    max_length: Optional[int] = typer.Option(None, "--max-length", help="Truncate documents to N tokens (default: fitted to the documents: the 99.9th percentile of their token lengths, recorded in the manifest)."),
    chunk: int = typer.Option(16384, "--chunk", help="Documents encoded (and checkpointed) per step."),
    threads: Threads = None,
    milvus_uri: Optional[str] = typer.Option(None, "--milvus-uri", help="Also write vectors + texts (BM25) to Milvus: a milvus-lite file (./kb.db) or a server URL (http://host:19530; token from $MILVUS_TOKEN)."),
    milvus_collection: Optional[str] = typer.Option(None, "--milvus-collection", help="Milvus collection name (default: from --out)."),
) -> None:
    """Build a knowledge index (BM25 + FAISS) from triples or passages."""
    import itertools

    from graphhop.index.dense import DENSE_KINDS, DenseOptions
    from graphhop.index.directory import EncodingOptions, build_index, documents_from_facts, documents_from_passages
    from graphhop.index.sparse import SparseOptions
    from graphhop.kb.loaders import BadLines, iter_passages, iter_triples

    if dense not in (*DENSE_KINDS, "none"):
        raise GraphhopError(f"--dense: unknown kind {dense!r}; choose one of {', '.join(DENSE_KINDS)}, none")
    from graphhop.models.locate import check_model

    if dense != "none":
        check_model(model, "--model")
    if chunk < 1:
        raise GraphhopError(f"--chunk: must be at least 1, got {chunk}")
    if nprobe < 1 or nlist < 0:
        raise GraphhopError(f"--nprobe must be at least 1 and --nlist at least 0 (got {nprobe}, {nlist})")
    encoding = EncodingOptions(backend, engine, resume, max_length, ray_address)
    encoding.check()
    if dense != "none":
        from graphhop.models.backends import set_threads

        set_threads(threads)
    milvus = _milvus_target(milvus_uri, milvus_collection or out.name)
    bad = BadLines()
    if passages:
        docs = documents_from_passages(itertools.chain.from_iterable(iter_passages(s, skip_bad_lines, bad) for s in sources))
    else:
        def facts():
            n = 0
            for s in sources:
                for f in iter_triples(s, fmt, skip_bad_lines, bad, start_id=n):
                    n += 1
                    yield f
        docs = documents_from_facts(facts())
    index = build_index(
        docs,
        out,
        sparse=SparseOptions(title_boost, bigrams) if sparse else None,
        dense=None if dense == "none" else DenseOptions(dense, hnsw_m, ef_construction, ef_search, nlist, nprobe),
        model=model,
        overwrite=overwrite,
        sources=[str(s) for s in sources],
        chunk=chunk,
        encoding=encoding,
        milvus=milvus,
    )
    m = index.manifest
    console.print(f"[green]indexed[/] {m['count']} {m['doc_type']} into {out} "
                  f"(bm25: {'yes' if m['sparse'] else 'no'}, dense: {m['dense']['options']['kind'] if m['dense'] else 'no'})")
    if bad.count:
        err.print(f"[yellow]warning:[/] {bad.summary()}")


def _milvus_target(uri: Optional[str], name: str):
    """The Milvus collection to write (None without --milvus-uri); a local milvus-lite file is made absolute."""
    if not uri:
        return None
    import os

    from graphhop.index.milvus import MilvusTarget, collection_name

    return MilvusTarget(uri if "://" in uri else str(Path(uri).resolve()), collection_name(name), os.environ.get("MILVUS_TOKEN"))


def search_cmd(
    index_dir: Path = typer.Argument(..., help="Index directory built by `graphhop index`."),
    queries: list[str] = typer.Argument(..., help="One or more questions."),
    k: int = typer.Option(10, "-k", help="Results per question (up to 1000)."),
    method: str = typer.Option("auto", "--method", "-m", help="A registered pipeline: bm25, dense, hybrid, mdr, golden, ... (auto: hybrid, or whichever of bm25/dense the index has)."),
    model: Optional[str] = typer.Option(None, "--model", help="Encoder (must be the one the index was built with)."),
    rerank: Optional[Path] = typer.Option(None, "--rerank", help="Cross-encoder model directory (DiFaR²) to rerank with."),
    rerank_k: int = typer.Option(100, "--rerank-k", help="How many first-stage hits to rerank."),
    max_chars: Optional[int] = typer.Option(None, "--max-question-chars", help="Longest question accepted (default 2,000 or $GRAPHHOP_MAX_QUESTION_CHARS)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Retrieve the nearest facts/passages for questions."""
    from graphhop.models.locate import check_model
    from graphhop.questions import check_questions

    queries = check_questions(queries, max_chars)
    check_model(model, "--model")
    check_model(rerank, "--rerank")
    from graphhop.index.directory import KnowledgeIndex
    from graphhop.pipeline.registry import build_pipeline
    from graphhop.retrieve.rerank import with_rerank

    if not 1 <= k <= 1000:
        raise GraphhopError(f"-k: must be between 1 and 1000, got {k}")
    index = KnowledgeIndex.open(index_dir)
    if method == "auto":
        method = "hybrid" if index.has_sparse and index.has_dense else "bm25" if index.has_sparse else "dense"
    retriever = with_rerank(build_pipeline(method, index, model=model), index, rerank, rerank_k)
    rankings = [[h if h.text else index.docs[h.id].hit(h.score) for h in ranking] for ranking in retriever.search(queries, k)]
    if as_json:
        print(json.dumps([{"query": q, "hits": [{"rank": r, **h.to_json()} for r, h in enumerate(ranking, 1)]}
                          for q, ranking in zip(queries, rankings)], ensure_ascii=False))
        return
    for q, ranking in zip(queries, rankings):
        print_table(f"{method}{' + rerank' if rerank else ''}: {q}",
                    [{"rank": r, "score": round(h.score, 4), "id": h.id, "text": h.text} for r, h in enumerate(ranking, 1)])
