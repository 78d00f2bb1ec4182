"""A small extractive span head over the *frozen* bundled MiniLM: the reader that ships with graphhop.

A span model fine-tuned from MiniLM weighs ~90 MB (too big to ship). Here the encoder stays frozen
(the bundled ``all-MiniLM-L6-v2``, already a dependency) and only a small head is trained:

* input: ``[CLS] question [SEP] context [SEP]`` through MiniLM; the last hidden layer ``[T, 384]``;
* two per-token features: the segment (question or context) and *exact match* (the word piece also
  occurs in the question, DrQA's feature);
* a projection to ``dim`` and ``layers`` transformer-encoder layers (self-attention over the whole
  pair, so context tokens see the question), then start and end logits per token;
* position 0 (``[CLS]``) is the *null span* (SQuAD 2.0): "the context does not answer".

The head has ~0.7 M parameters; saved in float16 it is ~1.4 MB, small enough to ship inside the
package (``graphhop/weights/span-head/``). :class:`FrozenSpanReaderModel` predicts the n best spans
with character offsets and the null score; training is in :mod:`graphhop.train.span_head`.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import torch
from torch import nn

from graphhop.core import GraphhopError, InputError
from graphhop.models.span import SpanPrediction

__all__ = ["SpanHeadConfig", "SpanHead", "FrozenSpanReaderModel", "DEFAULT_HEAD", "HEAD_FILE", "HEAD_CARD"]

HEAD_FILE = "head.pt"
HEAD_CARD = "model_card.json"
#: The shipped head (trained by ``graphhop train span-head``; see docs/RESULTS.md, issue 13).
DEFAULT_HEAD = Path(__file__).resolve().parent.parent / "weights" / "span-head"
N_FEATURES = 2


@dataclass
class SpanHeadConfig:
    """Head size and input length (stored in the model card)."""

    input_dim: int = 384
    dim: int = 128
    layers: int = 1
    heads: int = 4
    ff: int = 256
    dropout: float = 0.1
    max_length: int = 256


class SpanHead(nn.Module):
    """Projection + transformer layers + start/end logits over frozen token states."""

    def __init__(self, cfg: SpanHeadConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.proj = nn.Sequential(nn.Linear(cfg.input_dim + N_FEATURES, cfg.dim), nn.LayerNorm(cfg.dim))
        layer = nn.TransformerEncoderLayer(cfg.dim, cfg.heads, cfg.ff, cfg.dropout, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        self.out = nn.Linear(cfg.dim, 2)

    def forward(self, hidden: torch.Tensor, feats: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``hidden`` ``[B, T, input_dim]``, ``feats`` ``[B, T, 2]``, ``mask`` ``[B, T]`` (True = a real
        token) -> start and end logits ``[B, T]`` (padding at ``-inf``)."""
        x = self.proj(torch.cat([hidden.float(), feats.float()], dim=-1))
        x = self.encoder(x, src_key_padding_mask=~mask)
        logits = self.out(x).masked_fill(~mask.unsqueeze(-1), float("-inf"))
        return logits[..., 0], logits[..., 1]


def token_features(input_ids: torch.Tensor, token_type: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``[B, T, 2]``: segment (1 = context) and exact match (a context word piece that also occurs in
    the question; 0 for question tokens and special tokens)."""
    feats = torch.zeros(*input_ids.shape, N_FEATURES)
    feats[..., 0] = token_type.float()
    for b in range(input_ids.shape[0]):
        q_ids = set(input_ids[b][(token_type[b] == 0) & mask[b]].tolist())
        ctx = (token_type[b] == 1) & mask[b]
        feats[b, :, 1] = torch.tensor([int(t) in q_ids for t in input_ids[b].tolist()], dtype=torch.float) * ctx.float()
    return feats


class FrozenSpanReaderModel:
    """Frozen MiniLM + a trained :class:`SpanHead`; ``predict`` gives the n best spans per pair."""

    def __init__(self, head: SpanHead, card: dict[str, Any] | None = None, encoder_name: str | None = None) -> None:
        from transformers import AutoModel, AutoTokenizer

        from graphhop.models.encoder import _quiet_transformers, resolve_model

        _quiet_transformers()
        target = resolve_model(encoder_name)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(target, use_fast=True)
            self.encoder = AutoModel.from_pretrained(target)
        except OSError as exc:
            raise GraphhopError(f"cannot load the span reader's encoder {encoder_name!r}: {str(exc).splitlines()[0]}") from None
        self.encoder.eval()
        for p in self.encoder.parameters():
            p.requires_grad_(False)
        self.head = head
        self.card = dict(card or {})
        self.max_length = head.cfg.max_length

    # --- encoding --------------------------------------------------------------------------
    def encode(self, pairs: Sequence[tuple[str, str]]) -> dict[str, torch.Tensor]:
        """Tokenize pairs (context truncated to ``max_length``) and run the frozen encoder."""
        enc = self.tokenizer([p[0] for p in pairs], [p[1] for p in pairs], truncation="only_second",
                             max_length=self.max_length, padding=True, return_offsets_mapping=True,
                             return_tensors="pt")
        mask = enc["attention_mask"].bool()
        token_type = torch.tensor([[1 if s == 1 else 0 for s in enc.sequence_ids(b)] for b in range(len(pairs))])
        with torch.no_grad():
            hidden = self.encoder(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                                  token_type_ids=enc.get("token_type_ids")).last_hidden_state
        return {"hidden": hidden, "feats": token_features(enc["input_ids"], token_type, mask), "mask": mask,
                "context": token_type.bool() & mask, "offsets": enc["offset_mapping"]}

    # --- prediction ------------------------------------------------------------------------
    @torch.no_grad()
    def predict(self, pairs: Sequence[tuple[str, str]], n_best: int = 5, max_answer_tokens: int = 16,
                batch_size: int = 16) -> list[list[SpanPrediction]]:
        """The ``n_best`` spans per pair, best first (each with the pair's null score)."""
        self.head.eval()
        out: list[list[SpanPrediction]] = []
        for i in range(0, len(pairs), batch_size):
            chunk = list(pairs[i : i + batch_size])
            batch = self.encode(chunk)
            start, end = self.head(batch["hidden"], batch["feats"], batch["mask"])
            for b, (_, second) in enumerate(chunk):
                out.append(_best_spans(start[b], end[b], batch["context"][b], batch["offsets"][b], second,
                                       n_best, max_answer_tokens))
        return out

    # --- persistence -----------------------------------------------------------------------
    def save(self, path: str | Path, card: dict[str, Any] | None = None) -> Path:
        """Write ``head.pt`` (float16) and ``model_card.json`` atomically."""
        from graphhop.io import atomic_dir

        path = Path(path)
        self.card.update(card or {})
        self.card.update({"kind": "graphhop-span-head", "config": asdict(self.head.cfg)})
        with atomic_dir(path, overwrite=True, replace_if=(HEAD_CARD,)) as tmp:
            torch.save({k: v.half() for k, v in self.head.state_dict().items()}, tmp / HEAD_FILE)
            (tmp / HEAD_CARD).write_text(json.dumps(self.card, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path | None = None) -> "FrozenSpanReaderModel":
        """Load a saved head (default: the shipped one) over the bundled MiniLM."""
        path = Path(path) if path is not None else DEFAULT_HEAD
        card_path = path / HEAD_CARD
        if not card_path.exists() or not (path / HEAD_FILE).exists():
            raise InputError(f"{path}: not a span-head directory (needs {HEAD_FILE} and {HEAD_CARD})")
        card = json.loads(card_path.read_text(encoding="utf-8"))
        if card.get("kind") != "graphhop-span-head":
            raise InputError(f"{card_path}: not a span-head card (kind={card.get('kind')!r})")
        head = SpanHead(SpanHeadConfig(**card.get("config", {})))
        state = torch.load(path / HEAD_FILE, map_location="cpu", weights_only=True)
        head.load_state_dict({k: v.float() for k, v in state.items()})
        head.eval()
        return cls(head, card, card.get("encoder"))


def _best_spans(start: torch.Tensor, end: torch.Tensor, context: torch.Tensor, offsets: torch.Tensor, second: str,
                n_best: int, max_answer_tokens: int) -> list[SpanPrediction]:
    """The ``n_best`` non-overlapping-by-start spans of one pair from its logits."""
    null = float(start[0] + end[0])
    if not bool(context.any()):
        return [SpanPrediction("", 0, 0, float("-inf"), null)]
    s = start.masked_fill(~context, float("-inf"))
    e = end.masked_fill(~context, float("-inf"))
    n = s.shape[0]
    scores = s[:, None] + e[None, :]
    band = torch.ones(n, n, dtype=torch.bool).triu().tril(max_answer_tokens - 1)
    scores = scores.masked_fill(~band, float("-inf")).flatten()
    k = min(n_best * 4, int(torch.isfinite(scores).sum()))
    out: list[SpanPrediction] = []
    seen: set[tuple[int, int]] = set()
    for flat in torch.topk(scores, max(k, 1)).indices.tolist():
        st, en = divmod(flat, n)
        a, z = _whole_words(second, int(offsets[st, 0]), int(offsets[en, 1]))
        if (a, z) in seen or z <= a:
            continue
        seen.add((a, z))
        out.append(SpanPrediction(second[a:z], a, z, float(scores[flat]), null))
        if len(out) >= n_best:
            break
    return out or [SpanPrediction("", 0, 0, float("-inf"), null)]


def _whole_words(text: str, a: int, z: int) -> tuple[int, int]:
    """Widen ``[a, z)`` to whole words (a span predicted from word pieces may cut one)."""
    while a > 0 and text[a - 1].isalnum():
        a -= 1
    while z < len(text) and text[z].isalnum():
        z += 1
    return a, z
