"""The ``graphhop`` command line: one module per command group, each adding its commands to :data:`app`.

Commands parse options and call the library (registry, Experiment, readers); no library logic
lives here. Add a command group as a module with ``register(app)`` and list it in :data:`MODULES`.
"""

from __future__ import annotations

import importlib
import sys

import typer

from graphhop.cli.common import print_table
from graphhop.cli.errors import run

__all__ = ["app", "main", "run", "print_table", "MODULES"]

app = typer.Typer(
    help="Explainable multi-hop retrieval and QA over knowledge graphs and text.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Command modules under ``graphhop.cli``, in help order.
MODULES = ("index", "eval", "demo", "ask", "kgqa", "serve", "train", "golden", "bgr", "dataset", "bench", "cache")


@app.callback()
def _global_options(
    online: bool = typer.Option(False, "--online", help="Allow Hugging Face downloads (default: offline; only local models load)."),
) -> None:
    """Explainable multi-hop retrieval and QA over knowledge graphs and text."""
    from graphhop.models.locate import set_offline

    set_offline(online)


for _name in MODULES:
    importlib.import_module(f"graphhop.cli.{_name}").register(app)


def main() -> None:
    """Entry point: every error is one line on stderr (2: bad input or usage, 130: Ctrl-C, 1: other)."""
    sys.exit(run(app, sys.argv[1:]))


if __name__ == "__main__":  # pragma: no cover
    main()
