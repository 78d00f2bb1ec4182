"""Encoder backends on a tiny random BERT: ONNX matches torch, int8 is close, static is a model2vec."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import InputError

TEXTS = ["ann was born in paris", "paris is located in france", "x", "the film was directed by a very long name " * 3]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path / "cache"))
    from graphhop.models import backends

    backends.load_backend.cache_clear()
    yield tmp_path / "cache"
    backends.load_backend.cache_clear()


def _unit(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_onnx_matches_torch_and_int8_is_close(tiny_model, cache):
    from graphhop.models.backends import load_backend

    ref = _unit(np.asarray(load_backend("torch", tiny_model).encode(TEXTS, batch_size=2), dtype=np.float32))
    onnx = load_backend("onnx", tiny_model).encode(TEXTS, batch_size=2)  # batches mix lengths: bucketing reorders
    assert onnx.shape == ref.shape and onnx.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(onnx, axis=1), 1.0, atol=1e-5)
    assert (onnx * ref).sum(1).min() > 0.9999  # same model, same pooling: same vectors in input order
    int8 = load_backend("onnx-int8", tiny_model).encode(TEXTS)
    cos = (int8 * ref).sum(1)
    assert cos.min() > 0.9 and not np.allclose(int8, onnx)  # quantized: close, not identical
    assert load_backend("onnx", tiny_model).encode("one text").shape == (ref.shape[1],)
    assert sorted(p.name for p in next((cache / "encoders").iterdir()).iterdir()) == ["onnx", "onnx-int8"]  # cached, published


def test_static_backend_and_max_length(tiny_model, cache):
    from graphhop.models.backends import fit_max_length, load_backend

    static = load_backend("static", tiny_model)
    v = static.encode(TEXTS[:2] + TEXTS[3:])
    assert v.shape == (3, static.get_embedding_dimension()) and v.shape[1] <= 32  # PCA dims capped by the model's
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert float(v[0] @ v[1]) < 0.999  # different texts, different vectors
    assert static.encode([]).shape == (0, v.shape[1])
    tok = load_backend("onnx", tiny_model).tokenizer
    assert fit_max_length(tok, ["short"] * 999 + ["word " * 100], quantile=0.5) < 10  # an outlier does not set it
    assert fit_max_length(tok, ["word " * 300], cap=64) == 64


def test_unknown_backend_is_one_line_error():
    from graphhop.models.backends import load_backend

    with pytest.raises(InputError, match="unknown encoder backend 'gpu'"):
        load_backend("gpu")


def test_onnx_tokenizes_like_transformers_without_importing_it(tiny_model, cache):
    """FastTokenizer (tokenizers only) gives the ids, types and masks of the Hugging Face tokenizer, and an
    exported encoder loads and encodes in a fresh process without importing transformers or torch."""
    import json
    import os
    import subprocess
    import sys

    from transformers import AutoTokenizer

    from graphhop.models.backends import FastTokenizer, backend_path, load_backend

    path = backend_path("onnx", tiny_model)
    fast, slow = FastTokenizer(path / "tokenizer.json", 16), AutoTokenizer.from_pretrained(str(path))
    want = slow(TEXTS, padding=True, truncation=True, max_length=16, return_tensors="np")
    got = fast(TEXTS, padding=True, truncation=True, max_length=16)
    for key in ("input_ids", "attention_mask", "token_type_ids"):
        np.testing.assert_array_equal(got[key], want[key])
    assert fast(TEXTS)["input_ids"] == slow(TEXTS, truncation=True, max_length=16)["input_ids"]
    with pytest.raises(ValueError, match="truncates at 16"):
        fast(TEXTS, max_length=32)
    code = ("import sys, json; from graphhop.models.backends import load_backend; "
            f"v = load_backend('onnx', {str(tiny_model)!r}).encode(['ann was born in paris']); "
            "print(json.dumps([float(v[0][0]), 'transformers' in sys.modules, 'torch' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ}, check=True)
    first, transformers_loaded, torch_loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert not transformers_loaded and not torch_loaded
    assert abs(first - float(load_backend("onnx", tiny_model).encode(["ann was born in paris"])[0][0])) < 1e-6
