"""Safe writes, used for every file and directory graphhop stores (indexes, models, datasets).

* :func:`atomic_dir` builds a directory in a hidden sibling and swaps it in with one atomic
  ``renameat2(RENAME_EXCHANGE)`` (two renames where the kernel lacks it): readers see the old
  directory or the new one, never a half-written one; a crash (even ``kill -9``) leaves the old
  one in place, and the next writer removes the leftover temp dirs.
* ``overwrite`` replaces only a directory that holds a graphhop artefact (one of ``replace_if``,
  by default an index's ``manifest.json``) or an empty one; nothing else is ever deleted.
* :func:`write_lock` takes a lock file next to the target: a second writer fails at once with one
  line instead of silently replacing the first one's work.
* :func:`atomic_file` / :func:`atomic_write_text` do the same for single files (temp + fsync +
  ``os.replace``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import glob
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Iterator, Sequence

from graphhop.core import InputError

__all__ = ["LockedError", "atomic_dir", "atomic_file", "atomic_write_text", "write_lock", "wait_for_writer",
           "check_out_path", "temp_prefix"]

class LockedError(InputError):
    """Another process holds the write lock of the output."""


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def temp_prefix(target: Path) -> str:
    """Name prefix of the hidden temp siblings of ``target`` (``.NAME.tmp-``)."""
    return f".{target.name}.tmp-"


def _lock_path(target: Path) -> Path:
    return target.parent / f".{target.name}.lock"


def _os_error(target: Path, action: str, exc: OSError) -> InputError:
    return InputError(f"{target}: cannot {action} ({exc.strerror or exc})")


def check_out_path(target: str | Path) -> Path:
    """Resolve an output path and create its parent; one-line :class:`InputError` when impossible.

    Catches ``--out .`` (an output cannot be the working directory or one of its parents),
    ``--out file.tsv/sub`` (a parent is a file) and unwritable places such as ``/proc/x``.
    """
    raw = Path(target)
    target = Path(os.path.abspath(raw))
    if target == Path(target.anchor) or Path.cwd() == target or target in Path.cwd().parents:
        raise InputError(f"{raw}: cannot write here (the output must be a new or graphhop-owned directory, not . or a parent)")
    for parent in target.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{raw}: cannot create it: {parent} is a file, not a directory")
            break
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _os_error(raw, "create its parent directory", exc) from None
    if not os.access(target.parent, os.W_OK):
        raise InputError(f"{raw}: cannot write into {target.parent} (permission denied)")
    return target


@contextmanager
def write_lock(target: str | Path) -> Iterator[Path]:
    """Hold ``.NAME.lock`` beside ``target`` for the block; a second holder fails at once.

    The lock is an ``flock`` (released by the kernel if the process dies, so a ``kill -9`` never
    leaves a stale lock); the file is removed on release.
    """
    target = Path(target)
    path = _lock_path(target)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise _os_error(target, "create its lock file", exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LockedError(
                f"{target}: another graphhop process is writing it (lock {path}); wait for it to finish"
            ) from None
        try:  # the previous holder may have unlinked the file between our open and flock
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        os.write(fd, f"{os.getpid()}\n".encode())
        yield path
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def wait_for_writer(target: str | Path) -> None:
    """Block until no process holds ``target``'s write lock (for caches that another process is building)."""
    path = _lock_path(Path(target))
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return  # released (the holder removes the file)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    finally:
        os.close(fd)


def _remove_leftovers(target: Path) -> None:
    """Remove temp siblings left by a crashed writer (call with the lock held)."""
    for pattern in (temp_prefix(target) + "*", f".{target.name}.old-*"):
        for p in target.parent.glob(glob.escape(pattern[:-1]) + "*"):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)


def _replaceable(target: Path, replace_if: Sequence[str]) -> bool:
    return target.is_dir() and not target.is_symlink() and (
        not any(target.iterdir()) or any((target / m).exists() for m in replace_if)
    )


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux ``renameat2``); False when unsupported here."""
    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    rc = fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), str(a))


def _fsync_tree(root: Path) -> None:
    for p in [*root.rglob("*"), root]:
        if p.is_file() or p.is_dir():
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


@contextmanager
def atomic_dir(
    target: str | Path, overwrite: bool = False, replace_if: Sequence[str] = ("manifest.json",)
) -> Iterator[Path]:
    """Yield a temp sibling directory; when the block succeeds it atomically replaces ``target``.

    An existing ``target`` is replaced only with ``overwrite`` and only when it is empty or holds
    one of the ``replace_if`` files (a graphhop artefact); anything else raises one line and is
    left untouched. If the block raises (or the process is killed), ``target`` is unchanged.
    """
    raw = Path(target)
    target = check_out_path(raw)
    with write_lock(target):
        if target.exists() or target.is_symlink():
            if not overwrite and not (target.is_dir() and not any(target.iterdir())):
                raise InputError(f"{raw}: already exists (use --overwrite to replace it)")
            if not _replaceable(target, replace_if):
                what = "a file" if not target.is_dir() else f"a directory without {' or '.join(replace_if)}"
                raise InputError(f"{raw}: is {what}, not a graphhop output; refusing to replace it (nothing was deleted)")
        _remove_leftovers(target)
        try:
            tmp = Path(tempfile.mkdtemp(prefix=temp_prefix(target), dir=target.parent))
        except OSError as exc:
            raise _os_error(raw, "create a temporary directory beside it", exc) from None
        try:
            yield tmp
            _fsync_tree(tmp)
            if target.exists() and _exchange(tmp, target):
                shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the old directory
            elif target.exists():
                old = Path(tempfile.mkdtemp(prefix=temp_prefix(target), dir=target.parent))
                os.rename(target, old / "old")
                os.rename(tmp, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise


@contextmanager
def atomic_file(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Write a file through a temp sibling + fsync + ``os.replace`` (readers never see half a file)."""
    raw = Path(path)
    path = check_out_path(raw)
    if path.is_dir():
        raise InputError(f"{raw}: is a directory, expected a file path")
    try:
        fd, name = tempfile.mkstemp(prefix=temp_prefix(path), dir=path.parent)
    except OSError as exc:
        raise _os_error(raw, "create a temporary file beside it", exc) from None
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Atomically write ``text`` (UTF-8) to ``path``; returns the path."""
    with atomic_file(path) as fh:
        fh.write(text)
    return Path(path)
