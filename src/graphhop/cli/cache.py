"""``graphhop cache``: list and prune the derived indexes kept under ``$GRAPHHOP_CACHE/indexes``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from graphhop.cli.common import console, print_table

__all__ = ["register", "list_cmd", "prune_cmd"]

cache_app = typer.Typer(help="The derived index cache ($GRAPHHOP_CACHE/indexes): list, prune stale entries.",
                        no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add ``cache list`` and ``cache prune`` to ``app``."""
    app.add_typer(cache_app, name="cache")


def _root(root: Optional[Path]) -> Path:
    from graphhop.core import InputError
    from graphhop.evaluation import cache_dir

    if root is not None and root.exists() and not root.is_dir():
        raise InputError(f"--dir {root}: is a file, not a cache directory")
    return root or cache_dir() / "indexes"


def _rows(entries) -> list[dict]:
    return [{"path": str(e.path), "sources": list(e.sources), "bytes": e.bytes, "stale": e.stale} for e in entries]


_ROOT = typer.Option(None, "--dir", help="Cache directory of indexes (default: $GRAPHHOP_CACHE/indexes).")
_JSON = typer.Option(False, "--json", help="Machine-readable output.")


@cache_app.command("list")
def list_cmd(root: Optional[Path] = _ROOT, as_json: bool = _JSON) -> None:
    """Every cached index with its source file, size, and why it is stale (if it is)."""
    from graphhop.index.cache import cache_entries

    rows = _rows(cache_entries(_root(root)))
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    print_table(f"{len(rows)} cached indexes under {_root(root)}",
                [{"index": Path(r["path"]).name, "source": ", ".join(r["sources"]) or "-",
                  "MB": round(r["bytes"] / 1e6, 1), "stale": r["stale"] or ""} for r in rows])


@cache_app.command("prune")
def prune_cmd(root: Optional[Path] = _ROOT,
              dry_run: bool = typer.Option(False, "--dry-run", help="Only say what would be removed."),
              as_json: bool = _JSON) -> None:
    """Remove cached indexes whose source file is gone or was edited since (they are rebuilt on demand).
    Only graphhop indexes are touched; an index another process is writing is left alone."""
    from graphhop.index.cache import prune_cache

    rows = _rows(prune_cache(_root(root), dry_run=dry_run))
    if as_json:
        print(json.dumps({"dry_run": dry_run, "removed": rows, "bytes": sum(r["bytes"] for r in rows)}, indent=2))
        return
    verb = "would remove" if dry_run else "removed"
    for r in rows:
        console.print(f"{verb} {r['path']}: {r['stale']}")
    console.print(f"{verb} {len(rows)} stale indexes ({sum(r['bytes'] for r in rows) / 1e6:.1f} MB)")
