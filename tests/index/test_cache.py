"""The derived index cache: stale entries (source gone, edited, relative) are listed and pruned; current
ones, foreign directories and entries another process is writing are never touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from graphhop.evaluation import dataset_index
from graphhop.index.cache import cache_entries, prune_cache
from graphhop.io import write_lock

GRAPHHOP = [sys.executable, "-c", "from graphhop.cli import main; main()"]


def _kb(path: Path, n: int = 3) -> Path:
    path.write_text("".join(f"e{i}\trel\te{i + 1}\n" for i in range(n)), encoding="utf-8")
    return path


def _build(kb: Path, root: Path) -> Path:
    return Path(dataset_index(kb, dense=None, root=root, progress=False).path)


def _age(entry: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(entry / "manifest.json", (t, t))


def test_current_entry_is_listed_with_its_absolute_source(tmp_path):
    kb = _kb(tmp_path / "kb.tsv")
    entry = _build(kb, tmp_path / "idx")
    [e] = cache_entries(tmp_path / "idx")
    assert e.path == entry and e.sources == (str(kb.resolve()),) and e.stale is None and e.bytes > 0
    assert prune_cache(tmp_path / "idx") == [] and entry.is_dir()


def test_edited_and_deleted_sources_are_pruned_dry_run_keeps_them(tmp_path):
    root = tmp_path / "idx"
    edited, gone = _kb(tmp_path / "a.tsv"), _kb(tmp_path / "b.tsv")
    e_edited, e_gone = _build(edited, root), _build(gone, root)
    _kb(edited, 5)  # other bytes
    later = time.time() + 60
    os.utime(edited, (later, later))
    gone.unlink()
    reasons = {e.path: e.stale for e in cache_entries(root)}
    assert reasons[e_edited].startswith("source changed") and reasons[e_gone].startswith("source is gone")
    assert {e.path for e in prune_cache(root, dry_run=True)} == {e_edited, e_gone}
    assert e_edited.is_dir() and e_gone.is_dir()
    assert [e.path for e in prune_cache(root, gone_only=True)] == [e_gone]
    assert not e_gone.exists() and e_edited.is_dir()
    assert [e.path for e in prune_cache(root)] == [e_edited] and not e_edited.exists()
    assert not [p for p in root.iterdir()]  # no temp or lock leftovers


def test_a_file_rewritten_with_the_same_bytes_keeps_its_index(tmp_path):
    """Shared data re-materialized each session (new mtime, same bytes) is neither stale nor rebuilt."""
    root, kb = tmp_path / "idx", _kb(tmp_path / "kb.tsv")
    entry = _build(kb, root)
    built = (entry / "manifest.json").stat().st_mtime_ns
    kb.unlink()
    _kb(kb)
    later = time.time() + 60
    os.utime(kb, (later, later))
    [e] = cache_entries(root)
    assert e.stale is None and prune_cache(root) == []
    assert _build(kb, root) == entry and (entry / "manifest.json").stat().st_mtime_ns == built
    _kb(kb, 4)  # now the bytes differ: a new entry, and the old one is stale
    os.utime(kb, (later, later))
    other = _build(kb, root)
    stale = {e.path: e.stale for e in cache_entries(root)}
    assert other != entry and stale[other] is None and stale[entry].startswith("source changed")


def test_foreign_directories_recent_and_locked_entries_are_left_alone(tmp_path):
    root = tmp_path / "idx"
    mine = _build(_kb(tmp_path / "kb.tsv"), root)
    (tmp_path / "kb.tsv").unlink()
    foreign = root / "notes"
    foreign.mkdir()
    (foreign / "manifest.json").write_text(json.dumps({"sources": ["/nonexistent"]}), encoding="utf-8")
    (root / "file.txt").write_text("x", encoding="utf-8")
    assert [e.path for e in cache_entries(root)] == [mine]
    assert prune_cache(root, min_age_s=600) == []  # built a moment ago
    with write_lock(mine):
        assert prune_cache(root) == [] and mine.is_dir()
    assert [e.path for e in prune_cache(root)] == [mine]
    assert foreign.is_dir() and (root / "file.txt").exists()


def test_a_new_dataset_index_prunes_old_entries_of_deleted_files(tmp_path):
    root = tmp_path / "idx"
    old = _build(_kb(tmp_path / "old.tsv"), root)
    (tmp_path / "old.tsv").unlink()
    _age(old, 3600)
    new = _build(_kb(tmp_path / "new.tsv", 4), root)
    assert not old.exists() and new.is_dir()


def test_cli_prune_and_list(tmp_path):
    root = tmp_path / "idx"
    entry = _build(_kb(tmp_path / "kb.tsv"), root)
    (tmp_path / "kb.tsv").unlink()
    listed = subprocess.run([*GRAPHHOP, "cache", "list", "--dir", str(root), "--json"], capture_output=True, text=True)
    assert listed.returncode == 0 and json.loads(listed.stdout)[0]["stale"].startswith("source is gone")
    out = subprocess.run([*GRAPHHOP, "cache", "prune", "--dir", str(root), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert [r["path"] for r in report["removed"]] == [str(entry)] and report["bytes"] > 0 and not entry.exists()
    bad = subprocess.run([*GRAPHHOP, "cache", "prune", "--dir", str(tmp_path / "idx2")], capture_output=True, text=True)
    assert bad.returncode == 0 and "removed 0 stale indexes" in bad.stdout
    (tmp_path / "f").write_text("x", encoding="utf-8")
    err = subprocess.run([*GRAPHHOP, "cache", "list", "--dir", str(tmp_path / "f")], capture_output=True, text=True)
    assert err.returncode == 2 and "Traceback" not in err.stderr and "is a file" in err.stderr


def test_forget_sources_removes_only_indexes_built_from_files_under_a_folder(tmp_path):
    from graphhop.index.cache import forget_sources

    root = tmp_path / "idx"
    (tmp_path / "a").mkdir()
    inside = _build(_kb(tmp_path / "a" / "kb.tsv"), root)
    outside = _build(_kb(tmp_path / "kb.tsv"), root)
    assert [e.path for e in forget_sources(root, tmp_path / "a")] == [inside]
    assert not inside.exists() and outside.is_dir()


def test_an_entry_rebuilt_after_it_was_listed_is_not_pruned(tmp_path, monkeypatch):
    import graphhop.index.cache as cache

    root = tmp_path / "idx"
    kb = _kb(tmp_path / "kb.tsv")
    entry = _build(kb, root)
    _kb(kb, 4)
    later = time.time() + 60
    os.utime(kb, (later, later))
    listed = cache.cache_entries(root)
    assert listed[0].stale.startswith("source changed")
    os.utime(entry / "manifest.json", (later + 5, later + 5))  # rebuilt meanwhile: newer than the source
    monkeypatch.setattr(cache, "cache_entries", lambda r: listed)
    assert cache.prune_cache(root) == [] and entry.is_dir()
