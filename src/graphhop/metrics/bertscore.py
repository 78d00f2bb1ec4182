"""BERTScore (Zhang et al. 2020) with the bundled MiniLM, offline: greedy matching of token embeddings.

Each text is embedded token by token (contextual embeddings from one layer of the encoder, the
special ``[CLS]``/``[SEP]`` tokens left out, each vector L2-normalized). With ``sim[i, j]`` the cosine
of candidate token ``i`` and reference token ``j``:

* precision ``P = sum_i w_i max_j sim[i, j] / sum_i w_i`` (each candidate token matched to its most
  similar reference token),
* recall ``R = sum_j w_j max_i sim[i, j] / sum_j w_j``,
* ``F1 = 2 P R / (P + R)`` (0 when ``P + R`` is 0).

Weights ``w`` are 1 (the ``bert-score`` package's default) or, with ``idf``, ``log((M + 1) / (df + 1))``
over the ``M`` reference texts given to :meth:`BERTScorer.fit_idf`. No baseline rescaling. The
default layer is the encoder's last (all-MiniLM-L6-v2 has 6); ``bert-score`` has no tuned layer for it.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Callable, NamedTuple, Sequence

import numpy as np

__all__ = ["PRF", "greedy_match", "BERTScorer"]


class PRF(NamedTuple):
    """Precision, recall and F1 of one candidate against one reference."""

    precision: float
    recall: float
    f1: float


def greedy_match(cand: np.ndarray, ref: np.ndarray, cand_w: np.ndarray | None = None,
                 ref_w: np.ndarray | None = None) -> PRF:
    """BERTScore of token matrices ``cand [n, d]`` and ``ref [m, d]`` (rows already L2-normalized)."""
    if len(cand) == 0 or len(ref) == 0:
        return PRF(0.0, 0.0, 0.0)
    sim = np.asarray(cand, dtype=np.float64) @ np.asarray(ref, dtype=np.float64).T
    cw = np.ones(len(cand)) if cand_w is None else np.asarray(cand_w, dtype=np.float64)
    rw = np.ones(len(ref)) if ref_w is None else np.asarray(ref_w, dtype=np.float64)
    p = float((cw * sim.max(axis=1)).sum() / cw.sum()) if cw.sum() > 0 else 0.0
    r = float((rw * sim.max(axis=0)).sum() / rw.sum()) if rw.sum() > 0 else 0.0
    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return PRF(p, r, f)


TokenEmbedder = Callable[[Sequence[str]], list[tuple[list[str], np.ndarray]]]


class BERTScorer:
    """BERTScore with a Hugging Face encoder (default: the bundled all-MiniLM-L6-v2, loaded lazily).

    ``embed`` replaces the model: ``texts -> [(tokens, vectors [n, d])]`` (tests use hand vectors).
    """

    def __init__(self, model: str | None = None, layer: int | None = None, idf: bool = False,
                 batch_size: int = 32, embed: TokenEmbedder | None = None) -> None:
        self.model_name = model
        self.layer = layer
        self.idf = idf
        self.batch_size = batch_size
        self._embed = embed
        self._tok = None
        self._model = None
        self._idf: dict[str, float] = {}
        self._idf_default = 0.0

    def _load(self) -> None:
        if self._model is not None:
            return
        from transformers import AutoModel, AutoTokenizer

        from graphhop.models.encoder import resolve_model

        path = resolve_model(self.model_name)
        self._tok = AutoTokenizer.from_pretrained(path)
        self._model = AutoModel.from_pretrained(path).eval()

    def embed(self, texts: Sequence[str]) -> list[tuple[list[str], np.ndarray]]:
        """Tokens (special tokens left out) and their L2-normalized embeddings, per text."""
        if self._embed is not None:
            return self._embed(texts)
        import torch

        self._load()
        out = []
        for i in range(0, len(texts), self.batch_size):
            batch = list(texts[i : i + self.batch_size])
            enc = self._tok(batch, return_tensors="pt", padding=True, truncation=True, max_length=256)
            with torch.no_grad():
                hidden = self._model(**enc, output_hidden_states=True).hidden_states
            layer = hidden[self.layer if self.layer is not None else -1]
            special = set(self._tok.all_special_ids)
            for row, ids, mask in zip(layer, enc["input_ids"], enc["attention_mask"]):
                keep = [k for k, (t, m) in enumerate(zip(ids.tolist(), mask.tolist())) if m and t not in special]
                vecs = torch.nn.functional.normalize(row[keep], dim=-1).numpy()
                out.append((self._tok.convert_ids_to_tokens([ids[k] for k in keep]), vecs))
        return out

    def fit_idf(self, references: Sequence[str]) -> None:
        """IDF weights from ``references`` (used when ``idf`` is on)."""
        df: Counter[str] = Counter()
        for tokens, _ in self.embed(references):
            df.update(set(tokens))
        m = len(references)
        self._idf = {t: math.log((m + 1) / (c + 1)) for t, c in df.items()}
        self._idf_default = math.log(m + 1)

    def _weights(self, tokens: list[str]) -> np.ndarray | None:
        if not self.idf:
            return None
        return np.array([self._idf.get(t, self._idf_default) for t in tokens])

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> list[PRF]:
        """BERTScore of each candidate against the reference at the same position."""
        if len(candidates) != len(references):
            raise ValueError(f"{len(candidates)} candidates but {len(references)} references")
        unique = list(dict.fromkeys([*candidates, *references]))  # each distinct text embedded once
        emb = dict(zip(unique, self.embed(unique)))
        out = []
        for c, r in zip(candidates, references):
            (ct, cv), (rt, rv) = emb[c], emb[r]
            out.append(greedy_match(cv, rv, self._weights(ct), self._weights(rt)))
        return out
