"""Span selector: any Hugging Face encoder with a start/end head (extractive QA architecture).

Input is a pair ``(first, second)``; a span is a character range of ``second``, or the *null span*
(the ``[CLS]`` token, SQuAD 2.0 style) meaning "no span". GoldEn's query generator uses it with
``first = "hop N"`` and ``second`` = the hop's context; a span reader uses ``(question, passage)``.

Contexts longer than ``max_length`` word pieces are truncated (no document stride): a span past
the cut cannot be predicted, and a training example whose span is cut is skipped (counted).

A saved selector is a directory with the model, the tokenizer and ``model_card.json`` (base model,
task, data, steps, metrics), written atomically (temp dir + ``os.replace``).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import torch

from graphhop.core import GraphhopError, InputError
from graphhop.io import atomic_dir

__all__ = ["SpanExample", "SpanPrediction", "SpanSelector", "CARD_NAME"]

CARD_NAME = "model_card.json"


@dataclass(frozen=True, slots=True)
class SpanExample:
    """A training pair: the gold span ``second[start:end]``, or the null span when ``start`` is None."""

    first: str
    second: str
    start: int | None
    end: int | None
    id: str = ""

    @property
    def text(self) -> str:
        """The gold span text (empty for the null span)."""
        return "" if self.start is None or self.end is None else self.second[self.start : self.end]


@dataclass(frozen=True, slots=True)
class SpanPrediction:
    """The best span (char offsets in ``second``), its score (start + end logit), and the null score."""

    text: str
    start: int
    end: int
    score: float
    null_score: float

    @property
    def is_null(self) -> bool:
        """Whether the null span scores higher than the best real span."""
        return self.null_score > self.score


class SpanSelector:
    """An extractive start/end model with its tokenizer (CPU)."""

    def __init__(self, model: torch.nn.Module, tokenizer: Any, card: dict[str, Any] | None = None, max_length: int = 384) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise GraphhopError("the span selector needs a fast tokenizer (character offsets)")
        self.model = model
        self.tokenizer = tokenizer
        self.card: dict[str, Any] = dict(card or {})
        self.max_length = max_length

    @classmethod
    def from_pretrained(cls, name: str | None = None, max_length: int = 384) -> "SpanSelector":
        """Load an encoder by HF name or path (``None``: the bundled MiniLM) with a fresh start/end head,
        or a saved selector directory (its card is read too)."""
        from transformers import AutoModelForQuestionAnswering, AutoTokenizer
        from transformers.utils import logging as hf_logging

        from graphhop.models.encoder import canonical_model_name, resolve_model

        target = resolve_model(name)
        verbosity = hf_logging.get_verbosity()
        hf_logging.set_verbosity_error()
        try:
            model = AutoModelForQuestionAnswering.from_pretrained(target)
            tokenizer = AutoTokenizer.from_pretrained(target, use_fast=True)
        except OSError as exc:
            raise GraphhopError(f"cannot load span model {name!r}: {str(exc).splitlines()[0]}") from None
        finally:
            hf_logging.set_verbosity(verbosity)
        card_path = Path(target) / CARD_NAME
        card = json.loads(card_path.read_text(encoding="utf-8")) if card_path.exists() else {"base_model": canonical_model_name(name)}
        model.eval()
        return cls(model, tokenizer, card, int(card.get("max_length", max_length)))

    load = from_pretrained

    # --- features ---------------------------------------------------------------------------

    def _encode(self, pairs: Sequence[tuple[str, str]]) -> Any:
        return self.tokenizer(
            [p[0] for p in pairs],
            [p[1] for p in pairs],
            truncation="only_second",
            max_length=self.max_length,
            padding=True,
            return_offsets_mapping=True,
            return_tensors="pt",
        )

    def features(self, examples: Sequence[SpanExample]) -> tuple[dict[str, torch.Tensor], list[bool]]:
        """Tokenize examples; labels are token positions (0 = null). Returns (batch, usable flags):
        an example whose gold span is cut by truncation is flagged unusable."""
        enc = self._encode([(e.first, e.second) for e in examples])
        starts, ends, usable = [], [], []
        for b, ex in enumerate(examples):
            if ex.start is None or ex.end is None:
                starts.append(0)
                ends.append(0)
                usable.append(True)
                continue
            seq = enc.sequence_ids(b)
            offsets = enc["offset_mapping"][b].tolist()
            s_tok = e_tok = None
            for t, (sid, (a, z)) in enumerate(zip(seq, offsets)):
                if sid != 1 or z <= a:
                    continue
                if s_tok is None and z > ex.start:
                    s_tok = t
                if a < ex.end:
                    e_tok = t
            ok = s_tok is not None and e_tok is not None and e_tok >= s_tok and offsets[e_tok][1] >= ex.end
            starts.append(s_tok if ok else 0)
            ends.append(e_tok if ok else 0)
            usable.append(bool(ok))
        batch = {k: v for k, v in enc.items() if k != "offset_mapping"}
        batch["start_positions"] = torch.tensor(starts)
        batch["end_positions"] = torch.tensor(ends)
        return batch, usable

    def loss(self, examples: Sequence[SpanExample]) -> torch.Tensor:
        """Mean of the start and end cross-entropies over the usable examples (train mode is the caller's)."""
        batch, usable = self.features(examples)
        keep = torch.tensor(usable)
        if not bool(keep.any()):
            return torch.zeros((), requires_grad=True)
        batch = {k: v[keep] for k, v in batch.items()}
        return self.model(**batch).loss

    @torch.no_grad()
    def predict(
        self, pairs: Sequence[tuple[str, str]], max_answer_tokens: int = 30, batch_size: int = 16
    ) -> list[SpanPrediction]:
        """Best span per pair (``end - start < max_answer_tokens`` word pieces) and the null score."""
        was_training = self.model.training
        self.model.eval()
        out: list[SpanPrediction] = []
        try:
            for i in range(0, len(pairs), batch_size):
                chunk = pairs[i : i + batch_size]
                enc = self._encode(chunk)
                offsets = enc.pop("offset_mapping")
                logits = self.model(**enc)
                start_l, end_l = logits.start_logits, logits.end_logits
                for b, (_, second) in enumerate(chunk):
                    seq = enc.sequence_ids(b)
                    ctx = torch.tensor([sid == 1 for sid in seq])
                    if not bool(ctx.any()):
                        null = float(start_l[b, 0] + end_l[b, 0])
                        out.append(SpanPrediction("", 0, 0, float("-inf"), null))
                        continue
                    s = start_l[b].masked_fill(~ctx, float("-inf"))
                    e = end_l[b].masked_fill(~ctx, float("-inf"))
                    scores = s[:, None] + e[None, :]
                    n = scores.shape[0]
                    band = torch.ones(n, n, dtype=torch.bool).triu().tril(max_answer_tokens - 1)
                    scores = scores.masked_fill(~band, float("-inf"))
                    flat = int(torch.argmax(scores))
                    st, en = divmod(flat, n)
                    a, z = int(offsets[b, st, 0]), int(offsets[b, en, 1])
                    out.append(
                        SpanPrediction(second[a:z], a, z, float(scores[st, en]), float(start_l[b, 0] + end_l[b, 0]))
                    )
        finally:
            self.model.train(was_training)
        return out

    # --- persistence -------------------------------------------------------------------------

    def save(self, path: str | Path, card: dict[str, Any] | None = None) -> Path:
        """Write model, tokenizer and ``model_card.json`` to ``path`` atomically; returns ``path``."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and not path.is_dir():
            raise InputError(f"{path}: exists and is not a directory")
        self.card.update(card or {})
        self.card.setdefault("task", "span-selection")
        self.card["max_length"] = self.max_length
        self.card["saved_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with atomic_dir(path, overwrite=True, replace_if=(CARD_NAME,)) as tmp:
            self.model.save_pretrained(tmp)
            self.tokenizer.save_pretrained(tmp)
            (tmp / CARD_NAME).write_text(json.dumps(self.card, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        return path
