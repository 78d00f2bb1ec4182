"""``graphhop demo``: the bundled demo KB, searched and asked."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from graphhop.cli.common import console

__all__ = ["demo_cmd", "register"]


def register(app: typer.Typer) -> None:
    """Add ``demo`` to ``app``."""
    app.command("demo")(demo_cmd)


def demo_cmd(
    out: Optional[Path] = typer.Option(None, "--index-dir", help="Where to keep the demo index (default: cache dir)."),
    k: int = typer.Option(3, "-k", help="Facts shown per method."),
    rebuild: bool = typer.Option(False, "--rebuild", help="Rebuild the demo index."),
    ask: bool = typer.Option(True, "--ask/--no-ask", help="Also answer each question with `graphhop ask`."),
) -> None:
    """Build (or reuse) the demo KB's index; show BM25, dense and hybrid results per question, then `ask`'s answers."""
    from graphhop.demo import run_demo

    run_demo(out, k=k, rebuild=rebuild, console=console, ask=ask)
