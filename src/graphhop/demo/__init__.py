"""The bundled demo: a hand-written European geography & culture KB, passages and questions."""

from __future__ import annotations

import json
import time
from importlib import resources
from pathlib import Path

from graphhop.core import QAExample

__all__ = ["DEMO_DATA", "demo_questions", "demo_index", "run_demo"]

DEMO_DATA = Path(str(resources.files("graphhop.demo") / "data"))


def demo_questions() -> list[QAExample]:
    """The demo questions as :class:`QAExample` (gold facts = the gold path)."""
    out = []
    with (DEMO_DATA / "questions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            path = [tuple(t) for t in row["gold_path"]]
            out.append(
                QAExample(row["id"], row["question"], list(row["answers"]), list(path), [list(path)], len(path), row.get("qtype", "query"))
            )
    return out


def demo_index(out: Path | None = None, rebuild: bool = False, progress: bool = True):
    """Build once, then reuse, the demo KB's index (BM25 + flat dense)."""
    from graphhop.evaluation import cache_dir
    from graphhop.index.cache import open_or_build
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts
    from graphhop.kb.loaders import iter_triples

    path = out or cache_dir() / "demo-index"

    def build() -> KnowledgeIndex:
        return build_index(documents_from_facts(iter_triples(DEMO_DATA / "kb.tsv")), path, dense=DenseOptions("flat"),
                           overwrite=True, progress=progress, sources=[str(DEMO_DATA / "kb.tsv")])

    return build() if rebuild else open_or_build(path, build)


def run_demo(out: Path | None = None, k: int = 3, rebuild: bool = False, console=None, ask: bool = True) -> None:
    """Show, for each demo question, the top facts from BM25, dense and hybrid retrieval; then
    (``ask=True``) answer each with ``graphhop ask`` and print its evidence graph."""
    from rich.console import Console
    from rich.table import Table

    from graphhop.evaluation import evaluate_rankings
    from graphhop.retrieve import METHODS, make_retriever

    console = console or Console()
    t0 = time.perf_counter()
    index = demo_index(out, rebuild)
    console.print(f"[bold]graphhop demo[/]: {len(index.docs)} facts from {DEMO_DATA / 'kb.tsv'} "
                  f"(index {index.path}, ready in {time.perf_counter() - t0:.1f}s)\n")
    questions = demo_questions()
    retrievers = {m: make_retriever(index, m) for m in METHODS}
    rankings = {m: r.search([q.question for q in questions], max(k, 10)) for m, r in retrievers.items()}
    for i, q in enumerate(questions):
        gold = {t for t in q.gold_facts}
        table = Table(title=f"{q.id}: {q.question}  [dim](answer: {', '.join(q.answers)})[/]", title_justify="left")
        table.add_column("rank", justify="right")
        for m in METHODS:
            table.add_column(m)
        for r in range(k):
            cells = []
            for m in METHODS:
                hits = rankings[m][i]
                if r < len(hits):
                    doc = index.docs[hits[r].id]
                    mark = "[green]✓[/] " if doc.fact is not None and doc.fact.triple in gold else ""
                    cells.append(f"{mark}{doc.text}")
                else:
                    cells.append("")
            table.add_row(str(r + 1), *cells)
        console.print(table)
    summary = Table(title="demo questions: fact-level retrieval (✓ = gold fact)", title_justify="left")
    for col in ("method", "MRR", "Hits@1", "Hits@10"):
        summary.add_column(col, justify="right")
    for m in METHODS:
        res = evaluate_rankings(m, questions, {q.id: rk for q, rk in zip(questions, rankings[m])}, index.docs)
        summary.add_row(m, *(f"{res.fact[x]:.3f}" for x in ("MRR", "Hits@1", "Hits@10")))
    console.print(summary)
    if ask:
        from graphhop.demo.ask_demo import run_ask_demo

        console.print()
        run_ask_demo(console, index=index)
    console.print(f"done in {time.perf_counter() - t0:.1f}s")
