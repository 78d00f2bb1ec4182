"""Index directories: a ``manifest.json`` with format version, options and checksums; atomic writes."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from graphhop.core import InputError

__all__ = ["FORMAT_VERSION", "MANIFEST", "sha256_file", "atomic_dir", "write_manifest", "read_manifest", "verify_checksums"]

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
_IGNORED = {MANIFEST}
_IGNORED_PREFIXES = (".tantivy-",)  # tantivy's lock files come and go while an index is open


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _tracked_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name not in _IGNORED and not path.name.startswith(_IGNORED_PREFIXES):
            files.append(path)
    return files


@contextmanager
def atomic_dir(target: str | Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a temporary sibling directory; on success it replaces ``target`` in one rename.

    If the block raises, the temporary directory is removed and ``target`` is untouched: nothing
    already stored is lost. An existing ``target`` is only replaced when ``overwrite`` is true.
    """
    target = Path(target)
    if target.exists() and not overwrite:
        raise InputError(f"{target}: already exists (use --overwrite to replace it)")
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        yield tmp
        old = None
        if target.exists():
            old = target.parent / f".{target.name}.old-{os.getpid()}"
            os.rename(target, old)
        os.rename(tmp, target)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_manifest(root: Path, info: dict[str, Any]) -> dict[str, Any]:
    """Write ``manifest.json`` with ``info`` plus the format version and every file's checksum."""
    manifest = {"format_version": FORMAT_VERSION, **info}
    manifest["files"] = {
        str(p.relative_to(root)): {"sha256": sha256_file(p), "bytes": p.stat().st_size} for p in _tracked_files(root)
    }
    tmp = root / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, root / MANIFEST)
    return manifest


def read_manifest(root: str | Path, kind: str | None = None) -> dict[str, Any]:
    """Read and sanity-check a manifest (format version, ``kind`` when given)."""
    root = Path(root)
    path = root / MANIFEST
    if not root.is_dir():
        raise InputError(f"{root}: no such index directory")
    if not path.is_file():
        raise InputError(f"{path}: missing; {root} is not a graphhop index (build one with `graphhop index`)")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: corrupted manifest ({exc})") from None
    if not isinstance(manifest, dict):
        raise InputError(f"{path}: corrupted manifest (not a JSON object)")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise InputError(f"{path}: format version {version!r}, this graphhop reads {FORMAT_VERSION}; rebuild the index")
    if kind is not None and manifest.get("kind") != kind:
        raise InputError(f"{path}: field 'kind' is {manifest.get('kind')!r}, expected {kind!r}")
    return manifest


def verify_checksums(root: str | Path, manifest: dict[str, Any]) -> None:
    """Check every file listed in the manifest exists with the recorded size and SHA-256."""
    root = Path(root)
    for rel, meta in manifest.get("files", {}).items():
        path = root / rel
        if not path.is_file():
            raise InputError(f"{root}: file {rel} listed in the manifest is missing; the index is incomplete")
        if path.stat().st_size != meta.get("bytes") or sha256_file(path) != meta.get("sha256"):
            raise InputError(f"{path}: checksum mismatch; the index is corrupted — rebuild it")
