"""`graphhop demo`, part 2: `ask` answers each demo question with the pipeline `ask` itself uses
(:func:`graphhop.pipeline.registry.default_pipeline`: ``kgqa`` on the demo's fact index)."""

from __future__ import annotations

import time
from typing import Any, Optional

__all__ = ["run_ask_demo"]


def run_ask_demo(console: Any = None, method: Optional[str] = None, index: Any = None) -> dict[str, Any]:
    """Answer every demo question with the registered pipeline ``method`` (default: the one ``ask``
    uses on the demo index) and print a table
    (question, type, answer, gold, correct) plus the support tree of each answer. Returns
    ``{"correct": n, "total": n, "rows": [...]}``."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from graphhop.demo import demo_index, demo_questions
    from graphhop.metrics.qa import exact_match
    from graphhop.pipeline.registry import build_pipeline, default_pipeline

    console = console or Console()
    t0 = time.perf_counter()
    index = index or demo_index(progress=False)
    method = method or default_pipeline(index)
    pipe = build_pipeline(method, index)
    table = Table(title=f"graphhop ask on the demo questions (pipeline {method})", title_justify="left")
    for col in ("id", "type", "answer", "gold", "ok", "ms"):
        table.add_column(col, justify="right" if col == "ms" else "left")
    rows = []
    for q in demo_questions():
        res = pipe.ask(q.question)
        ok = bool(exact_match(res.answer, q.answers))
        rows.append({"id": q.id, "qtype": res.qtype, "answer": res.answer, "gold": q.answers, "correct": ok,
                     "support": res.support_graph.render_tree(width=110)})
        table.add_row(q.id, res.qtype, escape(res.answer), escape(", ".join(q.answers)),
                      "[green]✓[/]" if ok else "[red]✗[/]", f"{res.timings['total_s'] * 1000:.0f}")
    for row in rows:
        console.print(f"[bold]{row['id']}[/] → {escape(row['answer'])}")
        console.print(escape(row["support"]), highlight=False)
    console.print(table)
    correct = sum(r["correct"] for r in rows)
    console.print(f"ask: {correct}/{len(rows)} demo questions answered correctly in {time.perf_counter() - t0:.1f}s")
    return {"method": method, "correct": correct, "total": len(rows), "rows": rows}
