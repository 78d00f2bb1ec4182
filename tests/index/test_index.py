import json

import numpy as np
import pytest

from graphhop.core import InputError
from graphhop.index.dense import DenseIndex, DenseOptions
from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_facts
from graphhop.io import atomic_dir
from graphhop.index.sparse import SparseIndex, SparseOptions, bigrams

@pytest.fixture(scope="module")
def built(tmp_path_factory, encoder, toy_facts):
    out = tmp_path_factory.mktemp("idx") / "kb"
    build_index(documents_from_facts(toy_facts), out, dense=DenseOptions("flat"), progress=False)
    return out


def test_manifest_records_model_dim_counts_options_checksums(built):
    m = json.loads((built / "manifest.json").read_text())
    assert m["format_version"] == 1 and m["count"] == 9 and m["doc_type"] == "facts"
    assert m["dense"]["model"] == "sentence-transformers/all-MiniLM-L6-v2" and m["dense"]["dim"] == 384
    assert m["dense"]["options"]["kind"] == "flat" and m["sparse"]["options"]["title_boost"] == 1.25
    assert "docs.jsonl" in m["files"] and "dense.faiss" in m["files"]
    assert any(f.startswith("sparse/") for f in m["files"])
    assert all(len(v["sha256"]) == 64 for v in m["files"].values())


def test_round_trip_gives_identical_results(built, toy_facts):
    from graphhop.retrieve import make_retriever

    a = KnowledgeIndex.open(built)
    b = KnowledgeIndex.open(built)
    for method in ("bm25", "dense"):
        ra = make_retriever(a, method).search(["who painted the mona lisa"], 5)
        rb = make_retriever(b, method).search(["who painted the mona lisa"], 5)
        assert ra == rb and ra[0][0].id == "2"
    assert a.docs["2"].fact == toy_facts[2]


def test_corruption_is_detected(built, tmp_path, toy_facts):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(built, copy)
    with (copy / "dense.faiss").open("r+b") as fh:
        fh.seek(100)
        byte = fh.read(1)
        fh.seek(100)
        fh.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(InputError, match="dense.faiss: checksum mismatch"):
        KnowledgeIndex.open(copy)
    shutil.copy(built / "dense.faiss", copy / "dense.faiss")
    KnowledgeIndex.open(copy)  # restored: valid again
    (copy / "docs.jsonl").unlink()
    with pytest.raises(InputError, match="docs.jsonl listed in the manifest is missing"):
        KnowledgeIndex.open(copy)


def test_bad_manifest_messages(built, tmp_path):
    import shutil

    with pytest.raises(InputError, match="not a graphhop index"):
        KnowledgeIndex.open(tmp_path)
    copy = tmp_path / "v"
    shutil.copytree(built, copy)
    m = json.loads((copy / "manifest.json").read_text())
    m["format_version"] = 99
    (copy / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(InputError, match="format version 99"):
        KnowledgeIndex.open(copy)
    (copy / "manifest.json").write_text("{not json")
    with pytest.raises(InputError, match="corrupted manifest"):
        KnowledgeIndex.open(copy)


def test_mismatched_model_or_dimension(built, tmp_path):
    import shutil

    from graphhop.core import GraphhopError
    from graphhop.retrieve.dense import DenseRetriever

    with pytest.raises(GraphhopError, match="built with model 'sentence-transformers/all-MiniLM-L6-v2'"):
        DenseRetriever(KnowledgeIndex.open(built), model="some-org/other-model")
    copy = tmp_path / "d"
    shutil.copytree(built, copy)
    m = json.loads((copy / "manifest.json").read_text())
    m["dense"]["dim"] = 768
    (copy / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(InputError, match="digest mismatch: a field was edited"):
        KnowledgeIndex.open(copy)
    from graphhop.index.manifest import manifest_digest

    m["digest"] = manifest_digest(m)  # a consistent manifest that still disagrees with dense.faiss
    (copy / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(InputError, match="dimension 384, manifest says 9 of dimension 768"):
        KnowledgeIndex.open(copy).dense


def test_failed_build_keeps_existing_index(built, tmp_path, toy_facts):
    import shutil

    target = tmp_path / "keep"
    shutil.copytree(built, target)
    before = (target / "manifest.json").read_text()

    def broken():
        yield from documents_from_facts(toy_facts[:2])
        raise InputError("kb.tsv:3: boom")

    with pytest.raises(InputError, match="boom"):
        build_index(broken(), target, dense=None, overwrite=True, progress=False)
    assert (target / "manifest.json").read_text() == before
    KnowledgeIndex.open(target)  # still valid
    assert not [p for p in tmp_path.iterdir() if ".tmp-" in p.name]
    with pytest.raises(InputError, match="already exists"):
        build_index(documents_from_facts(toy_facts), target, dense=None, progress=False)


def test_atomic_dir_replaces_on_success(tmp_path):
    target = tmp_path / "t"
    target.mkdir()
    (target / "old").write_text("x")
    (target / "manifest.json").write_text("{}")
    with atomic_dir(target, overwrite=True) as tmp:
        (tmp / "new").write_text("y")
    assert (target / "new").exists() and not (target / "old").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t"]  # no temp, old or lock leftovers


def test_sparse_best_field_title_boost_and_ties(tmp_path):
    docs = [("", "alpha beta"), ("alpha", "gamma"), ("", "alpha beta")]
    idx = SparseIndex.build(tmp_path / "s", docs, SparseOptions(bigrams=False))
    hits = idx.search(["alpha"], 3)[0]
    # doc 1 matches "alpha" in its (boosted) title field; docs 0 and 2 tie and keep KB order
    assert [p for p, _ in hits][1:] == [0, 2]
    assert hits[1][1] == hits[2][1]
    plain = SparseIndex.build(tmp_path / "p", docs, SparseOptions(title_boost=1.0, bigrams=False))
    t_boost = dict(idx.search(["alpha"], 3)[0])[1]
    t_plain = dict(plain.search(["alpha"], 3)[0])[1]
    assert t_boost == pytest.approx(1.25 * t_plain, rel=1e-5)
    # best field + tie_breaker x the other fields (tie 0: the best field alone, GoldEn's best_fields)
    for tie in (0.0, 0.7):
        opts = SparseOptions(title_boost=1.0, bigrams=False, tie_breaker=tie)
        both = SparseIndex.build(tmp_path / f"b{tie}", [("alpha", "alpha")], opts)
        only_title = SparseIndex.build(tmp_path / f"o{tie}", [("alpha", "zeta")], opts)
        only_text = SparseIndex.build(tmp_path / f"x{tie}", [("zeta", "alpha")], opts)
        title, text = (ix.search(["alpha"], 1)[0][0][1] for ix in (only_title, only_text))
        expected = max(title, text) + tie * min(title, text)
        assert both.search(["alpha"], 1)[0][0][1] == pytest.approx(expected, rel=1e-5)


def test_sparse_stop_words_ascii_folding_bigrams(tmp_path):
    idx = SparseIndex.build(tmp_path / "s", [("", "Café Zürich"), ("", "the of and")], SparseOptions(bigrams=True))
    assert [p for p, _ in idx.search(["cafe zurich"], 5)[0]] == [0]
    assert idx.search(["the and"], 5)[0] == []  # stop words only in text: nothing matches
    assert bigrams("The Big Apple") == ["the_big", "big_apple"]


def test_hnsw_sq_matches_flat_on_small_set():
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(500, 32)).astype("float32")
    flat = DenseIndex.create(32, DenseOptions("flat"))
    flat.add(vecs)
    hnsw = DenseIndex.create(32, DenseOptions("hnsw-sq", m=16, ef_construction=100, ef_search=200))
    hnsw.add(vecs)
    _, pf = flat.search(vecs[:50], 1)
    _, ph = hnsw.search(vecs[:50], 1)
    assert (pf[:, 0] == np.arange(50)).all()
    assert (ph[:, 0] == pf[:, 0]).mean() >= 0.95
    _, deep = hnsw.search(vecs[:2], 300)  # k above ef_search still returns k results
    assert (deep >= 0).sum(axis=1).min() == 300


def test_manifest_must_list_every_file_and_every_field_is_checked(built, tmp_path):
    import shutil

    from graphhop.index.manifest import manifest_digest

    def variant(name, edit, sign=True):
        copy = tmp_path / name
        shutil.copytree(built, copy)
        m = json.loads((copy / "manifest.json").read_text())
        edit(m, copy)
        if sign:
            m["digest"] = manifest_digest(m)
        (copy / "manifest.json").write_text(json.dumps(m))
        return copy

    def empty_files_truncated_faiss(m, copy):
        m["files"] = {}
        (copy / "dense.faiss").write_bytes((copy / "dense.faiss").read_bytes()[:100])

    cases = [
        (variant("a", empty_files_truncated_faiss), "field 'files' is empty"),
        (variant("b", lambda m, c: m["files"].pop("dense.faiss")), "does not list dense.faiss"),
        (variant("c", lambda m, c: m.update(doc_type="passages"), sign=False), "digest mismatch"),
        (variant("d", lambda m, c: m["dense"].update(model="other/model"), sign=False), "digest mismatch"),
        (variant("e", lambda m, c: m.update(doc_type="passages")), "do not match the manifest's doc_type 'passages'"),
        (variant("f", lambda m, c: m.update(count="5")), "field 'count' must be a positive integer"),
        (variant("g", lambda m, c: m.pop("digest"), sign=False), "has no digest"),
    ]
    (tmp_path / "h").mkdir()
    shutil.copytree(built, tmp_path / "h" / "idx")
    (tmp_path / "h" / "idx" / "extra.bin").write_bytes(b"x")
    cases.append((tmp_path / "h" / "idx", "extra.bin is not listed"))
    for path, message in cases:
        with pytest.raises(InputError, match=message):
            KnowledgeIndex.open(path)
