"""Index directories: a ``manifest.json`` with format version, options, checksums and its own digest.

Verification covers all of it: the manifest's ``digest`` (SHA-256 of its other fields) catches an
edited field (``doc_type``, ``model``, ``dim``, counts, options), :func:`check_index_fields` checks
each field's type and the files it implies, and :func:`verify_checksums` checks that the file list
covers every file of the directory, with the recorded size and SHA-256.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from graphhop.core import InputError
from graphhop.io import atomic_write_text

__all__ = ["FORMAT_VERSION", "MANIFEST", "sha256_file", "source_digests", "manifest_digest", "write_manifest", "read_manifest", "verify_checksums", "check_index_fields"]

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


def source_digests(sources: list[str]) -> dict[str, str]:
    """sha256 of every source that is a readable file (what an index was built from), by its path as given."""
    digests = {}
    for source in sources:
        try:
            if Path(source).is_file():
                digests[source] = sha256_file(Path(source))
        except OSError:
            continue
    return digests


def _tracked_files(root: Path) -> list[Path]:
    files = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name not in _IGNORED and not path.name.startswith(_IGNORED_PREFIXES):
            files.append(path)
    return files


def write_manifest(root: Path, info: dict[str, Any]) -> dict[str, Any]:
    """Write ``manifest.json`` with ``info`` plus the format version and every file's checksum."""
    manifest = {"format_version": FORMAT_VERSION, **info}
    manifest["files"] = {
        str(p.relative_to(root)): {"sha256": sha256_file(p), "bytes": p.stat().st_size} for p in _tracked_files(root)
    }
    manifest["digest"] = manifest_digest(manifest)
    atomic_write_text(root / MANIFEST, json.dumps(manifest, indent=2, sort_keys=True))
    return manifest


def manifest_digest(manifest: dict[str, Any]) -> str:
    """SHA-256 of the manifest's fields other than ``digest`` (canonical JSON)."""
    body = {k: v for k, v in manifest.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


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
    if manifest.get("digest") != manifest_digest(manifest):
        what = "has no digest (written by an older graphhop)" if "digest" not in manifest else "digest mismatch: a field was edited"
        raise InputError(f"{path}: {what}; the index cannot be trusted — rebuild it")
    return manifest


def verify_checksums(root: str | Path, manifest: dict[str, Any]) -> None:
    """Check every file listed in the manifest exists with the recorded size and SHA-256."""
    root = Path(root)
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        raise InputError(f"{root}/{MANIFEST}: field 'files' is empty or not an object; rebuild the index")
    unlisted = sorted(set(str(p.relative_to(root)) for p in _tracked_files(root)) - set(files))
    if unlisted:
        raise InputError(f"{root}: file {unlisted[0]} is not listed in the manifest ({len(unlisted)} unlisted); rebuild the index")
    for rel, meta in files.items():
        if not isinstance(meta, dict):
            raise InputError(f"{root}/{MANIFEST}: entry for {rel!r} is not an object; rebuild the index")
        path = root / rel
        if not path.is_file():
            raise InputError(f"{root}: file {rel} listed in the manifest is missing; the index is incomplete")
        if path.stat().st_size != meta.get("bytes") or sha256_file(path) != meta.get("sha256"):
            raise InputError(f"{path}: checksum mismatch; the index is corrupted — rebuild it")


def _field_error(root: Path, field: str, problem: str) -> InputError:
    return InputError(f"{root}/{MANIFEST}: field {field!r} {problem}; rebuild the index")


def check_index_fields(root: str | Path, manifest: dict[str, Any]) -> None:
    """Check the type of every field of a knowledge-index manifest and that the files it implies are listed."""
    root = Path(root)
    count = manifest.get("count")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise _field_error(root, "count", f"must be a positive integer, got {count!r}")
    if manifest.get("doc_type") not in ("facts", "passages"):
        raise _field_error(root, "doc_type", f"must be 'facts' or 'passages', got {manifest.get('doc_type')!r}")
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        raise _field_error(root, "files", "is empty or not an object")
    needed = ["docs.jsonl"]
    sparse, dense = manifest.get("sparse"), manifest.get("dense")
    if sparse is not None:
        if not isinstance(sparse, dict) or not isinstance(sparse.get("options"), dict):
            raise _field_error(root, "sparse", "must be null or an object with 'options'")
        if not any(f.startswith("sparse/") for f in files):
            raise _field_error(root, "files", "lists no file of the BM25 index (sparse/)")
    if dense is not None:
        if not isinstance(dense, dict) or not isinstance(dense.get("options"), dict):
            raise _field_error(root, "dense", "must be null or an object with 'options', 'model' and 'dim'")
        if not isinstance(dense.get("model"), str) or not dense["model"]:
            raise _field_error(root, "dense.model", f"must be a model name, got {dense.get('model')!r}")
        if not isinstance(dense.get("dim"), int) or dense["dim"] < 1:
            raise _field_error(root, "dense.dim", f"must be a positive integer, got {dense.get('dim')!r}")
        needed.append("dense.faiss")
    if sparse is None and dense is None:
        raise _field_error(root, "sparse/dense", "are both null: the index has nothing to search")
    missing = [f for f in needed if f not in files]
    if missing:
        raise _field_error(root, "files", f"does not list {missing[0]}")
