"""How the ``graphhop`` entry point turns every failure into one line on stderr and an exit status.

Exit status: 0 success, 2 bad input or usage (a :class:`~graphhop.core.GraphhopError`, a usage error
of typer's own vendored click classes or of click's, an ``OSError`` on a user path), 130 Ctrl-C
(whatever was being written is discarded; what was stored before is unchanged), 1 anything else
(one line naming the exception; ``GRAPHHOP_DEBUG=1`` re-raises it to show the traceback).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Sequence

__all__ = ["run", "INTERRUPTED"]

INTERRUPTED = "interrupted (Ctrl-C): stopped; anything being written was discarded, stored files are unchanged"


def _line(message: str) -> str:
    return " ".join(str(message).split())


def _say(message: str) -> None:
    from rich.markup import escape

    from graphhop.cli.common import err

    err.print(f"[red]error:[/] {escape(_line(message))}", highlight=False, soft_wrap=True)


def _usage_classes() -> tuple[tuple[type, ...], tuple[type, ...]]:
    """(usage-error classes, abort classes) of typer's vendored click and of click itself."""
    from typer import _click as tclick
    from typer import exceptions as texc

    usage: list[type] = [tclick.exceptions.ClickException]
    abort: list[type] = [texc.Abort]
    try:
        import click

        usage.append(click.exceptions.ClickException)
        abort.append(click.exceptions.Abort)
    except ImportError:  # pragma: no cover - click is a dependency of rich/typer installs here
        pass
    return tuple(usage), tuple(abort)


def _usage_message(exc: Any) -> str:
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "graphhop"
    if type(exc).__name__ == "NoArgsIsHelpError":
        return f"{where}: no command given; `{where} --help` lists the commands"
    hint = f" (see `{where} --help`)" if ctx is not None else ""
    return f"{exc.format_message()}{hint}"


def run(app: Any, argv: Sequence[str]) -> int:
    """Run the typer ``app`` on ``argv``; returns the exit status after printing at most one error line."""
    from graphhop.core import GraphhopError

    usage, abort = _usage_classes()
    try:
        rv = app(args=list(argv), prog_name="graphhop", standalone_mode=False)
    except GraphhopError as exc:
        _say(str(exc))
        return 2
    except usage as exc:  # type: ignore[misc]
        _say(_usage_message(exc))
        return 2
    except (KeyboardInterrupt, *abort):
        _say(INTERRUPTED)
        return 130
    except BrokenPipeError:  # `graphhop ... | head`: the reader went away; not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 1
    except OSError as exc:
        _say(f"{exc.filename + ': ' if getattr(exc, 'filename', None) else ''}{exc.strerror or exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - the entry point: one line, never a traceback
        if os.environ.get("GRAPHHOP_DEBUG"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        _say(f"internal error: {type(exc).__name__}: {first} (set GRAPHHOP_DEBUG=1 to see the traceback)")
        return 1
    if rv == 130:  # typer turns Ctrl-C inside a command into Exit(130)
        _say(INTERRUPTED)
    return rv if isinstance(rv, int) else 0
