"""The ``graphhop`` command line: one module per command group, each adding its commands to :data:`app`.

Commands parse options and call the library (registry, Experiment, readers); no library logic
lives here. Add a command group as a module with ``register(app)`` and list it in :data:`MODULES`.
"""

from __future__ import annotations

import importlib
import sys

import typer

from graphhop.cli.common import err, print_table
from graphhop.core import GraphhopError

__all__ = ["app", "main", "print_table", "MODULES"]

app = typer.Typer(
    help="Explainable multi-hop retrieval and QA over knowledge graphs and text.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: Command modules under ``graphhop.cli``, in help order.
MODULES = ("index", "eval", "demo", "ask", "serve", "train", "golden", "bgr", "dataset")

for _name in MODULES:
    importlib.import_module(f"graphhop.cli.{_name}").register(app)


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
