"""What the command modules share: the consoles, the result table, option parsing helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from graphhop.core import InputError

__all__ = ["console", "err", "print_table", "split_methods", "builder_records", "key_values", "Threads"]

#: ``--threads`` of the commands that default to every core: one setting for torch, FAISS and
#: onnxruntime (:func:`graphhop.models.encoder.set_threads`; ``None`` reads ``$GRAPHHOP_THREADS``).
Threads = Annotated[Optional[int], typer.Option(
    "--threads", help="Threads for torch, onnxruntime and FAISS (default: $GRAPHHOP_THREADS or all cores).")]

console = Console()
err = Console(stderr=True)


def key_values(items: list[str]) -> dict[str, str]:
    """The ``KEY=VALUE`` items of a repeatable ``--option`` as a dict (a malformed item is an :class:`InputError`)."""
    out: dict[str, str] = {}
    for text in items:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--option: expected KEY=VALUE (got {text!r})")
        out[key.strip()] = value.strip()
    return out


def split_methods(methods: str) -> list[str]:
    """The non-empty names of a comma-separated list."""
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


def builder_records(folder: Path, split: str) -> list[dict[str, Any]]:
    """The records of a builder dataset folder's ``<split>.jsonl`` (or of a JSONL file)."""
    from graphhop.datasets.builder import read_records

    path = folder / f"{split}.jsonl" if folder.is_dir() else folder
    if not path.exists():
        raise InputError(f"{path}: no such file (expected a builder dataset folder with {split}.jsonl)")
    return list(read_records(path))


