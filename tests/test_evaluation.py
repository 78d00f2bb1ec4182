"""Dataset indexes: built once, cached, and an interrupted encoding resumes from its checkpoint."""

from __future__ import annotations

import graphhop.evaluation as ev
from graphhop.core import InputError


def test_dataset_index_resumes_a_checkpoint_and_starts_over_when_it_is_foreign(tmp_path, monkeypatch) -> None:
    kb = tmp_path / "kb.txt"
    kb.write_text("a\tr\tb\n", encoding="utf-8")
    calls: list[bool] = []

    def fake_build(docs, path, **kw):
        calls.append(kw["encoding"].resume)
        if len(calls) == 1 and kw["encoding"].resume and "foreign" in str(path.name) + str(kw.get("sources")):
            raise InputError(f"{path}: the checkpoint belongs to another build (differs in backend); drop --resume")
        return "index"

    monkeypatch.setattr(ev, "build_index", fake_build)
    monkeypatch.setattr("graphhop.index.cache.open_or_build", lambda path, build: build())
    assert ev.dataset_index(kb, None, root=tmp_path) == "index" and calls == [True]  # resumes by default
    calls.clear()
    foreign = tmp_path / "foreign.txt"
    foreign.write_text("a\tr\tb\n", encoding="utf-8")
    assert ev.dataset_index(foreign, None, root=tmp_path) == "index" and calls == [True, False]


def test_cache_key_of_a_kind_ignores_options_it_does_not_read(tmp_path, monkeypatch) -> None:
    """A flat index's cache path is the same whatever ivf-pq's options say (and as before they existed)."""
    from graphhop.index.dense import DenseOptions

    assert DenseOptions("flat").cache_key() == {"kind": "flat", "m": 32, "ef_construction": 80, "ef_search": 128}
    assert DenseOptions("ivf-pq", nprobe=8).cache_key()["nprobe"] == 8
    kb = tmp_path / "kb.txt"
    kb.write_text("a\tr\tb\n", encoding="utf-8")
    paths: list[str] = []
    monkeypatch.setattr(ev, "build_index", lambda docs, path, **kw: paths.append(path.name) or "index")
    monkeypatch.setattr("graphhop.index.cache.open_or_build", lambda path, build: build())
    for options in (DenseOptions("flat"), DenseOptions("flat", nprobe=8, nlist=16), DenseOptions("ivf-pq"),
                    DenseOptions("ivf-pq", nprobe=8)):
        ev.dataset_index(kb, options, root=tmp_path)
    assert paths[0] == paths[1] and len({paths[0], paths[2], paths[3]}) == 3
