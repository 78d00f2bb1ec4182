"""The ``graphhop`` command line: index, search, eval, demo (and the methods' own commands)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from graphhop.core import GraphhopError

app = typer.Typer(
    help="Explainable multi-hop retrieval and QA over knowledge graphs and text.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err = Console(stderr=True)


def _split_methods(methods: str) -> list[str]:
    return [m.strip() for m in methods.split(",") if m.strip()]


def print_table(title: str, rows: list[dict], as_json: bool = False) -> None:
    """Rows of dicts as one rich table (or JSON lines with ``--json``)."""
    if as_json:
        print(json.dumps({"title": title, "rows": rows}, ensure_ascii=False))
        return
    table = Table(title=title, show_lines=False)
    columns: list[str] = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    for c in columns:
        table.add_column(c, justify="left" if c in ("method", "id", "text", "dataset") else "right", overflow="fold")
    for row in rows:
        table.add_row(*["" if row.get(c) is None else (f"{row[c]:.4f}" if isinstance(row.get(c), float) and c != "q/s" else str(row[c])) for c in columns])
    console.print(table)


@app.command("index")
def index_cmd(
    sources: list[Path] = typer.Argument(..., help="Triple files (TSV, pipe, JSONL, N-Triples) or, with --passages, passage files (JSONL, HotpotQA/MuSiQue corpus JSON)."),
    out: Path = typer.Option(..., "--out", "-o", help="Index directory to write (atomically)."),
    passages: bool = typer.Option(False, "--passages", help="Sources are passages, not triples."),
    fmt: str = typer.Option("auto", "--format", help="Triple format: auto, tsv, pipe, jsonl, nt."),
    dense: str = typer.Option("hnsw-sq", "--dense", help="Dense index: hnsw-sq (DiFaR), flat (exact) or none."),
    sparse: bool = typer.Option(True, "--sparse/--no-sparse", help="Build the BM25 (tantivy) index."),
    model: Optional[str] = typer.Option(None, "--model", help="sentence-transformers name or local path (default: bundled all-MiniLM-L6-v2)."),
    hnsw_m: int = typer.Option(32, "--hnsw-m", help="HNSW links per node."),
    ef_construction: int = typer.Option(80, "--ef-construction", help="HNSW build breadth."),
    ef_search: int = typer.Option(128, "--ef-search", help="HNSW search breadth (raised to k when k is larger)."),
    bigrams: bool = typer.Option(True, "--bigrams/--no-bigrams", help="Add bigram copies of title/text to BM25."),
    title_boost: float = typer.Option(1.25, "--title-boost", help="BM25 title field boost (best-fields multi-match)."),
    skip_bad_lines: bool = typer.Option(False, "--skip-bad-lines", help="Skip malformed lines (reported) instead of stopping."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing index directory."),
) -> None:
    """Build a knowledge index (BM25 + FAISS) from triples or passages."""
    import itertools

    from graphhop.index.dense import DENSE_KINDS, DenseOptions
    from graphhop.index.directory import build_index, documents_from_facts, documents_from_passages
    from graphhop.index.sparse import SparseOptions
    from graphhop.kb.loaders import BadLines, iter_passages, iter_triples

    if dense not in (*DENSE_KINDS, "none"):
        raise GraphhopError(f"--dense: unknown kind {dense!r}; choose one of {', '.join(DENSE_KINDS)}, none")
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
        dense=None if dense == "none" else DenseOptions(dense, hnsw_m, ef_construction, ef_search),
        model=model,
        overwrite=overwrite,
        sources=[str(s) for s in sources],
    )
    m = index.manifest
    console.print(f"[green]indexed[/] {m['count']} {m['doc_type']} into {out} "
                  f"(bm25: {'yes' if m['sparse'] else 'no'}, dense: {m['dense']['options']['kind'] if m['dense'] else 'no'})")
    if bad.count:
        err.print(f"[yellow]warning:[/] {bad.summary()}")


@app.command("search")
def search_cmd(
    index_dir: Path = typer.Argument(..., help="Index directory built by `graphhop index`."),
    queries: list[str] = typer.Argument(..., help="One or more questions."),
    k: int = typer.Option(10, "-k", help="Results per question (up to 1000)."),
    method: str = typer.Option("hybrid", "--method", "-m", help="bm25, dense or hybrid."),
    model: Optional[str] = typer.Option(None, "--model", help="Encoder (must be the one the index was built with)."),
    rerank: Optional[Path] = typer.Option(None, "--rerank", help="Cross-encoder model directory (DiFaR²) to rerank with."),
    rerank_k: int = typer.Option(100, "--rerank-k", help="How many first-stage hits to rerank."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Retrieve the nearest facts/passages for questions."""
    from graphhop.index.directory import KnowledgeIndex
    from graphhop.retrieve import make_retriever

    if not 1 <= k <= 1000:
        raise GraphhopError(f"-k: must be between 1 and 1000, got {k}")
    index = KnowledgeIndex.open(index_dir)
    retriever = _with_rerank(make_retriever(index, method, model), index, rerank, rerank_k)
    rankings = retriever.search(queries, k)
    if as_json:
        print(json.dumps([{"query": q, "hits": [{"rank": r, "id": h.id, "score": h.score, "text": index.docs[h.id].text}
                                                  for r, h in enumerate(ranking, 1)]} for q, ranking in zip(queries, rankings)], ensure_ascii=False))
        return
    for q, ranking in zip(queries, rankings):
        print_table(f"{method}{' + rerank' if rerank else ''}: {q}",
                    [{"rank": r, "score": round(h.score, 4), "id": h.id, "text": index.docs[h.id].text} for r, h in enumerate(ranking, 1)])


def _with_rerank(retriever, index, rerank: Optional[Path], rerank_k: int):
    if rerank is None:
        return retriever
    from graphhop.retrieve.rerank import CrossEncoderReranker, RerankedRetriever

    return RerankedRetriever(retriever, CrossEncoderReranker(str(rerank), index), rerank_k=rerank_k)


@app.command("eval")
def eval_cmd(
    dataset: str = typer.Argument(..., help="pq-2h, pq-3h, pql-2h, pql-3h, pql-3h-more, wc-p1, wc-p2, wc-c, metaqa-1h, metaqa-2h, metaqa-3h."),
    split: str = typer.Option("dev", "--split", help="Dataset split."),
    methods: str = typer.Option("bm25,dense,hybrid", "--methods", help="Comma-separated: bm25, dense, hybrid."),
    data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA)."),
    dense: str = typer.Option("flat", "--dense", help="Dense index kind: flat or hnsw-sq."),
    model: Optional[str] = typer.Option(None, "--model", help="Bi-encoder (default: bundled all-MiniLM-L6-v2)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Evaluate only the first N questions."),
    rerank: Optional[Path] = typer.Option(None, "--rerank", help="Cross-encoder model directory; adds METHOD+rerank rows."),
    rerank_k: int = typer.Option(100, "--rerank-k", help="First-stage hits to rerank."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Evaluate retrieval methods on a KGQA dataset: one table of methods × metrics."""
    from graphhop.datasets.kgqa import kb_path, load_dataset
    from graphhop.evaluation import dataset_index, evaluate_retrievers
    from graphhop.index.dense import DenseOptions
    from graphhop.retrieve import make_retriever

    examples = load_dataset(dataset, split, data)
    if limit:
        examples = examples[:limit]
    index = dataset_index(kb_path(dataset, data), DenseOptions(dense), model=model)
    retrievers = {}
    for m in _split_methods(methods):
        base = make_retriever(index, m, model)
        retrievers[m] = base
        if rerank is not None:
            retrievers[f"{m}+rerank@{rerank_k}"] = _with_rerank(base, index, rerank, rerank_k)
    results = evaluate_retrievers(examples, retrievers, index.docs)
    print_table(f"{dataset} {split} ({len(examples)} questions, KB {len(index.docs)} facts)", [r.row() for r in results], as_json)


@app.command("datasets")
def datasets_cmd(data: Optional[Path] = typer.Option(None, "--data", help="Benchmark data root (default: $GRAPHHOP_DATA).")) -> None:
    """List the KGQA datasets `graphhop eval` knows and whether their files are present."""
    import os

    from graphhop.datasets.kgqa import DATASETS

    root = data or (Path(os.environ["GRAPHHOP_DATA"]) if os.environ.get("GRAPHHOP_DATA") else None)
    rows = []
    for name, spec in DATASETS.items():
        present = None if root is None else (root / spec.questions.format(split="dev")).exists()
        rows.append({"dataset": name, "family": spec.family, "hops": spec.hops, "kb": spec.kb, "dev present": present})
    print_table("datasets", rows)


@app.command("demo")
def demo_cmd(
    out: Optional[Path] = typer.Option(None, "--index-dir", help="Where to keep the demo index (default: cache dir)."),
    k: int = typer.Option(3, "-k", help="Facts shown per method."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Rebuild the demo index."),
    ask: bool = typer.Option(True, "--ask/--no-ask", help="Also answer each question with `graphhop ask`."),
) -> None:
    """Build (or reuse) the demo KB's index; show BM25, dense and hybrid results per question, then `ask`'s answers."""
    from graphhop.demo import run_demo

    run_demo(out, k=k, rebuild=rebuild, console=console, ask=ask)


def _register_method_commands() -> None:
    """Commands that live in the methods' own modules (imported here, registered once)."""
    from graphhop import cli_ask, cli_bgr, cli_dataset, cli_golden, cli_serve, cli_train

    train = typer.Typer(help="Train models: retriever, reranker (DiFaR²), query generator (GoldEn), bgr, reader.",
                        no_args_is_help=True)
    train.command("retriever")(cli_train.train_retriever)
    train.command("reranker")(cli_train.train_reranker)
    train.command("query-generator")(cli_golden.train_query_generator)
    train.command("bgr")(cli_bgr.train_bgr)
    train.command("reader")(cli_ask.train_reader)
    app.add_typer(train, name="train")
    app.command("ask")(cli_ask.ask)
    app.command("serve")(cli_serve.serve)
    app.command("eval-golden")(cli_golden.golden_eval)
    app.command("eval-bgr")(cli_bgr.eval_bgr)
    app.command("build-dataset")(cli_dataset.build_dataset)
    app.command("dataset-stats")(cli_dataset.dataset_stats)


_register_method_commands()


def main() -> None:
    """Entry point: graphhop errors become one line on stderr and exit status 2."""
    try:
        app(standalone_mode=False)
    except GraphhopError as exc:
        err.print(f"[red]error:[/] {exc}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except Exception as exc:  # click usage errors and the like
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            sys.exit(exc.exit_code)
        if isinstance(exc, click.exceptions.Abort):
            sys.exit(1)
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
