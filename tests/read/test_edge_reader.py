"""The walk's edge reader: shipped weights load over the bundled MiniLM, and a paraphrased relation is walked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphhop.read.edge_reader import DEFAULT_EDGE_READER, EdgeReader
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


@pytest.fixture(scope="module")
def edge_reader() -> EdgeReader:
    return EdgeReader.load()


def test_the_shipped_edge_reader_is_small_and_loads_over_the_bundled_minilm(edge_reader):
    files = sorted(DEFAULT_EDGE_READER.iterdir())
    assert {f.name for f in files} >= {"config.json", "top-0.npz"}
    assert all(f.stat().st_size < 5 * 2**20 for f in files)
    probs = edge_reader.probabilities("Where was Hale Orwin born?", [
        ("Hale Orwin", "He came into the world in Dunmere in 1870."),
        ("Hale Orwin", "He spent forty years in Kestow, where he taught drawing.")])
    assert probs.shape == (2,) and probs[0] > 0.5 > probs[1]
    assert len(edge_reader._cache) == 2  # one call per (source, sentence) and question


def test_a_paraphrased_relation_is_walked_with_the_edge_reader_and_not_without():
    born = frozenset({word_key("born")})
    question = "Where was Hale Orwin born?"
    plain = WalkReader(_Search(DOCS), encoder=object())
    assert not any(s.entity == "Dunmere" for s in plain.walk(["Hale Orwin"], born, question=question))
    read = WalkReader(_Search(DOCS), encoder=object(), edge_reader="default")
    best = read.walk(["Hale Orwin"], born, question=question)[0]
    assert best.entity == "Dunmere" and best.covered == born and best.path == ("p1",)
    assert not any(s.entity == "Kestow" for s in read.walk(["Hale Orwin"], born, question=question))


def test_top_layers_round_trip_float16(tmp_path: Path):
    from graphhop.models.cross_encoder import load_sequence_classifier
    from graphhop.models.top_layers_text import load_top_layers, save_top_layers

    model, _ = load_sequence_classifier(None)
    names = ["classifier.weight", "classifier.bias", "bert.pooler.dense.weight", "bert.pooler.dense.bias"]
    files = save_top_layers(model, tmp_path / "m", {"max_length": 32}, names, shard_mb=0.2)
    # the head; the pooler's weight (0.28 MB, over a shard: one of its own); its bias
    assert len([f for f in files if f.suffix == ".npz"]) == 3
    loaded, _, config = load_top_layers(tmp_path / "m")
    assert config["max_length"] == 32
    want = model.state_dict()["classifier.weight"].numpy()  # a fresh head: drawn anew on each load unless saved
    got = loaded.state_dict()["classifier.weight"].numpy()
    assert np.allclose(want, got, atol=1e-3) and np.abs(want).sum() > 0
