"""Encoder backends for fast CPU encoding: ``torch``, ``onnx``, ``onnx-int8`` and ``static``.

Every backend returns L2-normalized float32 sentence vectors through the same call shape as
sentence-transformers (``encode(texts, batch_size=...)``, ``get_embedding_dimension()``), so an index
and its retriever can use any of them.

* ``torch``: sentence-transformers as is (it already sorts a batch by length).
* ``onnx``: the same transformer, mean pooling and normalization exported once with
  ``torch.onnx.export`` and run with onnxruntime; texts are length-bucketed (sorted by token count,
  each batch padded only to its longest text).
* ``onnx-int8``: the ONNX model with onnxruntime's dynamic int8 quantization of its weights.
* ``static``: a model2vec static-embedding model distilled offline from the same encoder (one
  vector per token, averaged): no transformer at encoding time, so tens of times faster and less
  accurate — a first stage for huge KBs.

Derived models are cached under ``$GRAPHHOP_CACHE`` (default ``~/.cache/graphhop``) ``/encoders``,
keyed by the source model; nothing is downloaded. One thread setting (:func:`set_threads`) governs
torch, onnxruntime and FAISS.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.models.encoder import canonical_model_name, get_threads, load_encoder, resolve_model, set_threads

__all__ = ["BACKENDS", "load_backend", "set_threads", "get_threads", "fit_max_length", "length_profile", "load_tokenizer", "OnnxEncoder", "FastTokenizer", "StaticEncoder", "TruncatingEncoder"]

BACKENDS = ("torch", "onnx", "onnx-int8", "static")


def cache_root() -> Path:
    """Where derived encoders are kept."""
    return Path(os.environ.get("GRAPHHOP_CACHE") or Path.home() / ".cache" / "graphhop") / "encoders"


def _cache_dir(model: str | None, kind: str) -> Path:
    name = canonical_model_name(model)
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return cache_root() / f"{Path(name).name}-{digest}" / kind


def _publish(build, target: Path) -> Path:
    """Run ``build(tmp_dir)`` and move the result to ``target`` in one rename (concurrent-safe)."""
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    try:
        build(tmp)
        try:
            os.rename(tmp, target)
        except OSError:  # another process published it first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def length_profile(tokenizer: Any, texts: Sequence[str], quantile: float = 0.999, cap: int = 256,
                   sample: int = 5000) -> dict[str, Any]:
    """Token lengths of ``texts`` (an even-stride sample of at most ``sample``) and the max length they fit.

    ``max_length`` is the ``quantile`` of the sampled lengths (special tokens included), at least 8
    and at most ``cap``; the profile (p50, p99, the quantile, the longest) goes into the manifest.
    """
    texts = list(texts)
    if not texts:
        return {"max_length": cap, "quantile": quantile, "sampled": 0}
    step = max(1, -(-len(texts) // sample))
    lengths = np.array([len(ids) for ids in tokenizer(texts[::step], add_special_tokens=True)["input_ids"]])
    q = float(np.quantile(lengths, quantile))
    return {"max_length": int(min(cap, max(8, np.ceil(q)))), "quantile": quantile, "sampled": int(len(lengths)),
            "p50": float(np.median(lengths)), "p99": float(np.quantile(lengths, 0.99)), f"p{quantile * 100:g}": q,
            "longest": int(lengths.max()), "cap": cap}


def fit_max_length(tokenizer: Any, texts: Sequence[str], quantile: float = 0.999, cap: int = 256) -> int:
    """A max token length that covers ``quantile`` of ``texts`` (a stride sample), at most ``cap``."""
    return int(length_profile(tokenizer, texts, quantile, cap)["max_length"])


def load_tokenizer(model: str | None = None) -> Any:
    """The tokenizer of ``model`` (the bundled MiniLM when None) without loading its weights."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(resolve_model(model))


def _export_onnx(model: str | None, out: Path) -> None:
    """Transformer + mean pooling + normalization as one ONNX graph (dynamic batch and length)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    source = resolve_model(model)
    tokenizer = AutoTokenizer.from_pretrained(source)
    net = AutoModel.from_pretrained(source).eval()

    class Pooled(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: D401 - torch signature
            h = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(h.dtype)
            v = (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(v, dim=-1)

    sample = tokenizer(["a sample fact", "another one"], return_tensors="pt", padding=True)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "length"} for n in names} | {"embedding": {0: "batch"}}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Pooled(net), tuple(sample[n] for n in names), str(out / "model.onnx"), input_names=names,
                          output_names=["embedding"], dynamic_axes=axes, opset_version=17, dynamo=False)
    tokenizer.save_pretrained(str(out))


def _quantize_int8(src: Path, out: Path) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(max(logging.getLogger().level, logging.ERROR))  # a pre-processing hint per call
    quantize_dynamic(str(src / "model.onnx"), str(out / "model.onnx"), weight_type=QuantType.QInt8, per_channel=True)
    for f in src.iterdir():
        if f.name != "model.onnx":
            shutil.copy(f, out / f.name)


class FastTokenizer:
    """An exported ``tokenizer.json`` run by the ``tokenizers`` library itself: the part of a Hugging Face
    tokenizer's call that :class:`OnnxEncoder` uses (truncation at ``max_length``, padding with numpy),
    without importing transformers (and through it torch), so an ONNX encoder starts in about a second.
    Its state is fixed at construction: calls from several threads are safe."""

    def __init__(self, path: Path, max_length: int) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length)
        self.max_length = max_length
        pad = self.tokenizer.token_to_id("[PAD]")
        self.pad_id = 0 if pad is None else int(pad)

    def __call__(self, texts: Sequence[str], padding: bool = False, truncation: bool = True, max_length: int | None = None,
                 return_tensors: str | None = None, add_special_tokens: bool = True) -> dict[str, Any]:
        """``input_ids`` / ``attention_mask`` / ``token_type_ids``: lists, or (``padding``) int64 arrays."""
        if not truncation or (max_length or self.max_length) != self.max_length:
            raise ValueError(f"FastTokenizer truncates at {self.max_length} tokens, always")
        encs = self.tokenizer.encode_batch(list(texts), add_special_tokens=add_special_tokens)
        if not padding:
            return {"input_ids": [e.ids for e in encs], "token_type_ids": [e.type_ids for e in encs]}
        width = max((len(e.ids) for e in encs), default=0)
        out = {k: np.zeros((len(encs), width), dtype=np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
        out["input_ids"][:] = self.pad_id
        for i, e in enumerate(encs):
            n = len(e.ids)
            out["input_ids"][i, :n], out["token_type_ids"][i, :n], out["attention_mask"][i, :n] = e.ids, e.type_ids, 1
        return out


class _Encoder(ABC):
    """What the index and retrievers use of a sentence-transformers encoder: ``encode`` (one text ->
    a vector, a list -> a matrix of normalized float32 rows) and the dimension. Subclasses set
    ``_dim`` and implement ``_vectors`` for a non-empty list."""

    _dim: int
    default_batch_size = 128

    def get_embedding_dimension(self) -> int:
        return self._dim

    get_sentence_embedding_dimension = get_embedding_dimension

    def encode(self, texts: Sequence[str] | str, batch_size: int | None = None, **_: Any) -> np.ndarray:
        """Vectors of ``texts`` (one vector for a single string)."""
        single = isinstance(texts, str)
        texts = [texts] if single else list(texts)
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        out = self._vectors(texts, batch_size or self.default_batch_size)
        return out[0] if single else out

    @abstractmethod
    def _vectors(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Vectors of a non-empty list of texts, ``batch_size`` at a time (each backend's own)."""


class OnnxEncoder(_Encoder):
    """An exported encoder run by onnxruntime with length-bucketed batches (tokenized by
    :class:`FastTokenizer` when the export has a ``tokenizer.json``, else by transformers)."""

    def __init__(self, path: Path, name: str, max_length: int = 256, threads: int | None = None) -> None:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or get_threads()
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(path / "model.onnx"), opts, providers=["CPUExecutionProvider"])
        if (path / "tokenizer.json").is_file():
            self.tokenizer: Any = FastTokenizer(path / "tokenizer.json", max_length)
        else:
            from transformers import AutoTokenizer

            self.tokenizer = AutoTokenizer.from_pretrained(str(path))
        self.name = name
        self.max_length = max_length
        self._dim = int(self.session.run(None, dict(self._tokens(["x"])))[0].shape[1])

    def _tokens(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        enc = self.tokenizer(list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="np")
        return {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}

    def _vectors(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Normalized float32 vectors, in input order (batches formed by sorted token length)."""
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        lengths = [len(ids) for ids in self.tokenizer(texts, add_special_tokens=True, truncation=True,
                                                       max_length=self.max_length)["input_ids"]]
        order = np.argsort(lengths, kind="stable")
        for i in range(0, len(order), batch_size):
            idx = order[i : i + batch_size]
            out[idx] = self.session.run(None, self._tokens([texts[j] for j in idx]))[0]
        return out


class StaticEncoder(_Encoder):
    """A model2vec static-embedding model (vectors normalized here)."""

    default_batch_size = 1024

    def __init__(self, path: Path, name: str, max_length: int | None = None) -> None:
        from model2vec import StaticModel

        self.model = StaticModel.from_pretrained(str(path))
        self.name = name
        self.max_length = max_length or 512
        self._dim = int(self.model.dim)

    def _vectors(self, texts: list[str], batch_size: int) -> np.ndarray:
        """Normalized float32 vectors (mean of token vectors)."""
        v = np.asarray(self.model.encode(texts, batch_size=max(batch_size, 1024), show_progress_bar=False,
                                        max_length=self.max_length), dtype=np.float32)
        norms = np.linalg.norm(v, axis=1, keepdims=True)
        v /= np.where(norms == 0, 1.0, norms)
        return v


class TruncatingEncoder:
    """A shared sentence-transformers encoder run with its own ``max_seq_length`` for each call.

    The encoder object is cached per process and also encodes questions, so its own limit is set
    only for the duration of one ``encode`` and restored after.
    """

    def __init__(self, encoder: Any, max_length: int) -> None:
        self.encoder = encoder
        self.max_length = max_length

    def get_embedding_dimension(self) -> int:
        dim = getattr(self.encoder, "get_embedding_dimension", None) or self.encoder.get_sentence_embedding_dimension
        return int(dim())

    get_sentence_embedding_dimension = get_embedding_dimension

    def encode(self, texts: Any, **kwargs: Any) -> Any:
        """``SentenceTransformer.encode`` with texts cut at ``max_length`` tokens."""
        before = self.encoder.max_seq_length
        self.encoder.max_seq_length = self.max_length
        try:
            return self.encoder.encode(texts, **kwargs)
        finally:
            self.encoder.max_seq_length = before


def _distill_static(model: str | None, out: Path, pca_dims: int) -> None:
    import json

    from model2vec.distill import distill

    source = resolve_model(model)
    hidden = json.loads((Path(source) / "config.json").read_text()).get("hidden_size", pca_dims) if Path(source, "config.json").exists() else pca_dims
    distill(source, pca_dims=min(pca_dims, int(hidden)), device="cpu").save_pretrained(str(out))


def backend_path(backend: str, model: str | None = None, pca_dims: int = 256) -> Path:
    """The cached artefact directory of a derived backend, built on first use."""
    if backend == "onnx":
        return _publish(lambda tmp: _export_onnx(model, tmp), _cache_dir(model, "onnx"))
    if backend == "onnx-int8":
        src = backend_path("onnx", model)
        return _publish(lambda tmp: _quantize_int8(src, tmp), _cache_dir(model, "onnx-int8"))
    if backend == "static":
        return _publish(lambda tmp: _distill_static(model, tmp, pca_dims), _cache_dir(model, f"static-pca{pca_dims}"))
    raise InputError(f"unknown encoder backend {backend!r}; choose one of {', '.join(BACKENDS)}")


@lru_cache(maxsize=8)
def load_backend(backend: str = "torch", model: str | None = None, max_length: int | None = None) -> Any:
    """Load (once per process) ``model`` with ``backend``; the bundled MiniLM when ``model`` is None.

    ``max_length`` truncates longer texts (default: the model's own limit, 256 for MiniLM).
    """
    if backend not in BACKENDS:
        raise InputError(f"unknown encoder backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "torch":
        encoder = load_encoder(model)
        return TruncatingEncoder(encoder, max_length) if max_length else encoder
    path = backend_path(backend, model)
    name = canonical_model_name(model)
    if backend == "static":
        return StaticEncoder(path, name, max_length)
    return OnnxEncoder(path, name, max_length or 256)
