"""The walk's opt-in edge reader: an edge it accepts meets the question's relation; none ships with graphhop."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.read.edge_reader import EdgeReader
from graphhop.read.walk import WalkReader, word_key


def _walk_fakes():
    """The walk tests' passage and search fakes (``tests/read/test_walk.py``), loaded by path (importlib mode)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("_walk_fakes", Path(__file__).with_name("test_walk.py"))
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module._Doc, module._Search


_Doc, _Search = _walk_fakes()

DOCS = [
    _Doc("p1", "Hale Orwin", "Hale Orwin is a painter of harbour scenes. He came into the world in Dunmere in 1870. "
         "He spent forty years in Kestow, where he taught drawing."),
    _Doc("p2", "Dunmere", "Dunmere is a fishing village on the north coast of Kessia."),
]


class _FakeReader:
    """Stands in for a trained edge reader: accepts the sentences that contain ``accept``."""

    def __init__(self, accept: str) -> None:
        self.accept = accept
        self.calls: list[tuple[str, str]] = []

    def probabilities(self, question: str, pairs):
        self.calls += list(pairs)
        return np.array([0.95 if self.accept in sentence else 0.05 for _, sentence in pairs], dtype=np.float32)


def test_a_paraphrased_relation_is_walked_when_the_edge_reader_accepts_it_and_not_without():
    born = frozenset({word_key("born")})
    question = "Where was Hale Orwin born?"
    plain = WalkReader(_Search(DOCS), encoder=object())
    assert not any(s.entity == "Dunmere" for s in plain.walk(["Hale Orwin"], born, question=question))
    read = WalkReader(_Search(DOCS), encoder=object())
    read.edge_reader = _FakeReader("came into the world")
    best = read.walk(["Hale Orwin"], born, question=question)[0]
    assert best.entity == "Dunmere" and best.covered == born and best.path == ("p1",)
    assert not any(s.entity == "Kestow" for s in read.walk(["Hale Orwin"], born, question=question))
    assert read.edge_reader.calls  # the reader was consulted for the edges the lexical match left


def test_no_edge_reader_ships_and_a_missing_folder_is_one_line(tmp_path: Path):
    with pytest.raises(InputError, match="no edge reader ships"):
        EdgeReader.load("default")
    with pytest.raises(InputError, match="not a folder"):
        WalkReader(_Search(DOCS), encoder=object(), edge_reader=str(tmp_path / "missing"))
