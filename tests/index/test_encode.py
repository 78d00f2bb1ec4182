"""Streaming dense builds: per-chunk checkpoints, --resume after a crash, BM25-only builds, backends."""

from __future__ import annotations

import json

import numpy as np
import pytest

from graphhop.core import Fact, InputError
from graphhop.index.dense import DenseOptions
from graphhop.index.directory import EncodingOptions, KnowledgeIndex, build_index, documents_from_facts
from graphhop.index.encode import Checkpoint, checkpoint_dir

FACTS = [Fact(f"e{i}", "linked_to", f"e{i + 1}", str(i)) for i in range(23)]


_REAL_ENCODER = EncodingOptions.encoder


class Boom(RuntimeError):
    pass


def _counting(monkeypatch, fail_after: int | None = None):
    """Wrap the encoder so calls are counted (and the build crashes after ``fail_after`` chunks)."""
    calls = []
    real = _REAL_ENCODER

    def encoder(self, model, batch_size):
        encode, dim = real(self, model, batch_size)

        def wrapped(texts):
            if fail_after is not None and len(calls) >= fail_after:
                raise Boom("killed")
            calls.append(len(texts))
            return encode(texts)

        return wrapped, dim

    monkeypatch.setattr(EncodingOptions, "encoder", encoder)
    return calls


def test_resume_reuses_checkpointed_chunks_and_matches_a_clean_build(tmp_path, tiny_model, monkeypatch):
    out = tmp_path / "kb"
    calls = _counting(monkeypatch, fail_after=2)
    with pytest.raises(Boom):
        build_index(documents_from_facts(FACTS), out, dense=DenseOptions("flat"), model=tiny_model, chunk=5, progress=False)
    assert not out.exists() and len(list(checkpoint_dir(out).glob("chunk-*.npy"))) == 2  # target untouched, 2 chunks kept
    calls = _counting(monkeypatch)
    index = build_index(documents_from_facts(FACTS), out, dense=DenseOptions("flat"), model=tiny_model, chunk=5,
                        progress=False, encoding=EncodingOptions(resume=True))
    assert calls == [5, 5, 3]  # chunks 0-1 came from the checkpoint; 2-4 were encoded
    assert not checkpoint_dir(out).exists()  # a finished build removes its checkpoint
    clean = build_index(documents_from_facts(FACTS), tmp_path / "clean", dense=DenseOptions("flat"), model=tiny_model,
                        chunk=5, progress=False)
    a = index.dense.index.reconstruct_n(0, len(FACTS))
    np.testing.assert_allclose(a, clean.dense.index.reconstruct_n(0, len(FACTS)), atol=1e-5)


def test_resume_refuses_a_checkpoint_of_other_documents(tmp_path, tiny_model, monkeypatch):
    out = tmp_path / "kb"
    _counting(monkeypatch, fail_after=1)
    with pytest.raises(Boom):
        build_index(documents_from_facts(FACTS), out, dense=DenseOptions("flat"), model=tiny_model, chunk=5, progress=False)
    with pytest.raises(InputError, match="differs in count, docs_sha256"):
        build_index(documents_from_facts(FACTS[:7]), out, dense=DenseOptions("flat"), model=tiny_model, chunk=5,
                    progress=False, encoding=EncodingOptions(resume=True))
    # without --resume the stale checkpoint is replaced and the build succeeds
    _counting(monkeypatch)
    assert len(build_index(documents_from_facts(FACTS[:7]), out, dense=DenseOptions("flat"), model=tiny_model, chunk=5,
                           progress=False).docs) == 7


def test_checkpoint_ignores_truncated_chunks(tmp_path):
    ck = Checkpoint.open(tmp_path / "x", {"a": 1}, resume=False)
    ck.save(0, np.ones((4, 3)))
    assert ck.load(0, 4).shape == (4, 3) and ck.load(0, 5) is None and ck.load(1, 4) is None
    (ck.root / "chunk-000001.npy").write_bytes(b"garbage")
    assert ck.load(1, 4) is None and ck.done() == 2


def test_bm25_only_index_loads_no_encoder(tmp_path, monkeypatch):
    import graphhop.models.encoder as encmod
    import graphhop.retrieve.dense as densemod
    from graphhop.retrieve import make_retriever

    for module in (encmod, densemod):  # patched where it is looked up, restored after the test
        monkeypatch.setattr(module, "load_encoder", lambda *a, **k: pytest.fail("BM25-only must not load an encoder"))
    index = build_index(documents_from_facts(FACTS), tmp_path / "kb", dense=None, progress=False)
    assert index.manifest["dense"] is None and not (tmp_path / "kb" / "dense.faiss").exists()
    assert make_retriever(index, "bm25").search(["e3 linked to"], 1)[0][0].id in {"2", "3"}
    with pytest.raises(Exception, match="built without a dense index"):
        make_retriever(index, "dense")


def test_backend_is_recorded_and_used_for_queries(tmp_path, tiny_model, monkeypatch):
    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    from graphhop.retrieve.dense import DenseRetriever

    index = build_index(documents_from_facts(FACTS), tmp_path / "kb", dense=DenseOptions("flat"), model=tiny_model,
                        progress=False, sparse=None, encoding=EncodingOptions(backend="onnx"))
    meta = json.loads((tmp_path / "kb" / "manifest.json").read_text())["dense"]
    assert meta["backend"] == "onnx" and meta["engine"] == "local"
    retriever = DenseRetriever(KnowledgeIndex.open(tmp_path / "kb"))
    assert type(retriever.encoder).__name__ == "OnnxEncoder"
    text = retriever.index.docs["5"].text
    top = retriever.search_vectors(retriever.encoder.encode([text]), 3)[0]
    assert top[0].score == pytest.approx(1.0, abs=1e-4)  # the documents were encoded by the same ONNX model


def test_unknown_backend_or_engine_is_refused_before_writing(tmp_path):
    for opts, msg in ((EncodingOptions(backend="gpu"), "encoder backend"), (EncodingOptions(engine="spark"), "engine")):
        with pytest.raises(InputError, match=msg):
            build_index(documents_from_facts(FACTS), tmp_path / "kb", dense=DenseOptions("flat"), encoding=opts)
        assert not (tmp_path / "kb").exists()


def test_max_length_is_fitted_to_the_documents_and_recorded(tmp_path, tiny_model):
    from graphhop.models.backends import load_tokenizer
    from graphhop.models.encoder import load_encoder

    long_tail = "word " * 300  # one outlier among 2,000 short facts does not set the length
    facts = [Fact(f"e{i}", "linked_to", f"e{i + 1}", str(i)) for i in range(2000)] + [Fact("x", "says", long_tail, "x")]
    before = load_encoder(tiny_model).max_seq_length
    index = build_index(documents_from_facts(facts), tmp_path / "kb", dense=DenseOptions("flat"), sparse=None,
                        model=tiny_model, progress=False)
    meta = index.manifest["dense"]
    tok = load_tokenizer(tiny_model)
    lengths = [len(tok(d.text)["input_ids"]) for d in index.docs.docs]
    assert meta["max_length"] == int(np.ceil(np.quantile(lengths, 0.999))) < 20 < max(lengths)
    fit = meta["max_length_fit"]
    assert fit["quantile"] == 0.999 and fit["sampled"] == len(facts) and fit["longest"] == max(lengths)
    assert load_encoder(tiny_model).max_seq_length == before  # the shared encoder (questions) is not cut
    explicit = build_index(documents_from_facts(facts[:50]), tmp_path / "kb2", dense=DenseOptions("flat"), sparse=None,
                           model=tiny_model, progress=False, encoding=EncodingOptions(max_length=64))
    assert explicit.manifest["dense"]["max_length"] == 64 and "max_length_fit" not in explicit.manifest["dense"]


def test_truncated_documents_match_truncated_encoding(tmp_path, tiny_model):
    from graphhop.models.backends import load_backend

    facts = [Fact(f"e{i}", "linked_to", " ".join(f"w{j}" for j in range(i)), str(i)) for i in range(40)]
    index = build_index(documents_from_facts(facts), tmp_path / "kb", dense=DenseOptions("flat"), sparse=None,
                        model=tiny_model, progress=False, encoding=EncodingOptions(max_length=12))
    cut = load_backend("torch", tiny_model, 12).encode([index.docs.docs[-1].text], normalize_embeddings=True)
    full = load_backend("torch", tiny_model).encode([index.docs.docs[-1].text], normalize_embeddings=True)
    stored = index.dense.index.reconstruct(39)
    assert float(stored @ cut[0]) == pytest.approx(1.0, abs=1e-4) and float(stored @ full[0]) < 0.999
