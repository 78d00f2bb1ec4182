"""Safe writes: atomic dirs/files, guarded --overwrite, writer locks, bad output paths."""

from __future__ import annotations

import os

import pytest

from graphhop.core import InputError
from graphhop.io import atomic_dir, atomic_file, atomic_write_text, check_out_path, write_lock


def _listing(path):
    return sorted(p.name for p in path.iterdir())


def test_overwrite_refuses_a_directory_that_is_not_a_graphhop_output(tmp_path):
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("x")
    with pytest.raises(InputError, match="not a graphhop output; refusing to replace it"):
        with atomic_dir(precious, overwrite=True) as tmp:
            (tmp / "manifest.json").write_text("{}")
    assert (precious / "thesis.txt").read_text() == "x"
    assert _listing(tmp_path) == ["precious"]


def test_overwrite_refuses_a_plain_file_and_leaves_nothing_behind(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("keep")
    with pytest.raises(InputError, match="is a file"):
        with atomic_dir(afile, overwrite=True):
            pass
    assert afile.read_text() == "keep" and _listing(tmp_path) == ["afile"]


def test_replace_swaps_in_one_step_and_leaves_no_temp_dirs(tmp_path):
    target = tmp_path / "idx"
    for version in ("1", "2"):
        with atomic_dir(target, overwrite=True) as tmp:
            (tmp / "manifest.json").write_text(version)
    assert (target / "manifest.json").read_text() == "2"
    assert _listing(tmp_path) == ["idx"]


def test_failure_or_interrupt_keeps_the_old_directory(tmp_path):
    target = tmp_path / "idx"
    with atomic_dir(target) as tmp:
        (tmp / "manifest.json").write_text("old")
    for exc in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(exc)):
            with atomic_dir(target, overwrite=True) as tmp:
                (tmp / "manifest.json").write_text("new")
                raise exc
        assert (target / "manifest.json").read_text() == "old"
        assert _listing(tmp_path) == ["idx"]


def test_leftovers_of_a_crashed_writer_are_removed_by_the_next_one(tmp_path):
    target = tmp_path / "idx"
    (tmp_path / ".idx.tmp-crashed").mkdir()
    (tmp_path / ".idx.old-123").mkdir()
    with atomic_dir(target) as tmp:
        (tmp / "manifest.json").write_text("x")
    assert _listing(tmp_path) == ["idx"]


def test_second_writer_fails_at_once(tmp_path):
    target = tmp_path / "idx"
    with write_lock(target):
        with pytest.raises(InputError, match="another graphhop process is writing it"):
            with atomic_dir(target):
                pass
    with atomic_dir(target) as tmp:  # released: the next writer goes ahead
        (tmp / "manifest.json").write_text("x")
    assert _listing(tmp_path) == ["idx"]


def test_existing_output_needs_overwrite(tmp_path):
    target = tmp_path / "idx"
    with atomic_dir(target) as tmp:
        (tmp / "manifest.json").write_text("x")
    with pytest.raises(InputError, match="already exists"):
        with atomic_dir(target):
            pass


@pytest.mark.parametrize("bad, message", [
    ("/proc/nope", "cannot"),
    ("kb.tsv/sub", "kb.tsv is a file"),
    (".", "cannot write here"),
])
def test_bad_output_paths_are_one_line(tmp_path, monkeypatch, bad, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kb.tsv").write_text("a\tb\tc\n")
    with pytest.raises(InputError, match=message) as info:
        with atomic_dir(bad, overwrite=True):
            pass
    assert "\n" not in str(info.value)
    assert _listing(tmp_path) == ["kb.tsv"]


def test_check_out_path_creates_parents(tmp_path):
    out = check_out_path(tmp_path / "a" / "b" / "idx")
    assert out.parent.is_dir() and not out.exists()


def test_atomic_file_replaces_whole_or_not_at_all(tmp_path):
    path = tmp_path / "card.json"
    atomic_write_text(path, "one")
    with pytest.raises(ValueError):
        with atomic_file(path) as fh:
            fh.write("half")
            raise ValueError("disk full")
    assert path.read_text() == "one"
    with atomic_file(path, "wb") as fh:
        fh.write(b"two")
    assert path.read_text() == "two" and _listing(tmp_path) == ["card.json"]


def test_lock_is_released_when_the_holder_dies(tmp_path):
    target = tmp_path / "idx"
    pid = os.fork()
    if pid == 0:  # child: take the lock and die without releasing it
        ctx = write_lock(target)
        ctx.__enter__()
        os._exit(0)
    os.waitpid(pid, 0)
    with write_lock(target):  # the kernel dropped the flock with the process
        pass
