"""Crash safety: ``kill -9`` at random points of an index build never damages the old index."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts
from graphhop.core import Fact

_BUILD = """
import sys
from graphhop.core import Fact
from graphhop.index.directory import build_index, documents_from_facts
n = int(sys.argv[2])
facts = (Fact(f"entity {i}", "related to", f"thing {i % 97} of kind {i % 13}", str(i)) for i in range(n))
build_index(documents_from_facts(facts), sys.argv[1], dense=None, overwrite=True, progress=False)
print("done", flush=True)
"""


def _facts(n: int):
    return documents_from_facts(Fact(f"old {i}", "is", f"value {i}", str(i)) for i in range(n))


@pytest.mark.slow
def test_kill_9_during_build_keeps_the_old_index(tmp_path):
    target = tmp_path / "idx"
    build_index(_facts(50), target, dense=None, progress=False)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    rng = random.Random(16)
    outcomes = []
    for _ in range(4):  # bounded: a few random kill points from import to the final rename
        proc = subprocess.Popen([sys.executable, "-c", _BUILD, str(target), "60000"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.5, 6.0))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        outcomes.append(b"done" in out)
        index = KnowledgeIndex.open(target)  # verifies every checksum
        assert len(index.docs) in (50, 60000)
        if len(index.docs) == 60000:  # the new one made it: go back to a small old one
            build_index(_facts(50), target, dense=None, overwrite=True, progress=False)
    build_index(_facts(50), target, dense=None, overwrite=True, progress=False)  # the next run
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idx"], "temp dirs or locks left behind"
    assert not all(outcomes), "no build was killed mid-way: raise the size or shorten the delays"


def test_a_cache_being_built_elsewhere_is_waited_for_then_opened(tmp_path):
    import threading

    from graphhop.index.cache import open_or_build
    from graphhop.io import write_lock

    target = tmp_path / "cache"
    built = []

    def build():
        index = build_index(_facts(5), target, dense=None, overwrite=True, progress=False)
        built.append(1)
        return index

    lock = write_lock(target)
    lock.__enter__()  # "another process" is writing the cache: it builds elsewhere, moves it in, unlocks

    def other_writer():
        time.sleep(0.5)
        build_index(_facts(7), tmp_path / "elsewhere", dense=None, progress=False)
        os.rename(tmp_path / "elsewhere", target)
        lock.__exit__(None, None, None)

    thread = threading.Thread(target=other_writer)
    thread.start()
    index = open_or_build(target, build)  # the lock stops our build at once; we wait, then open theirs
    thread.join()
    assert len(index.docs) == 7 and built == []
    (target / "manifest.json").write_text("{}")  # a damaged cache is rebuilt, not trusted
    assert len(open_or_build(target, build).docs) == 5 and built == [1]
