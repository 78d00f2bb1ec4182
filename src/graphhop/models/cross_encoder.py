"""Cross-encoders (one-logit sequence classifiers): loading one, and scoring ``(query, text)`` pairs.

Used by the reranker stage (:class:`graphhop.retrieve.rerank.CrossEncoderReranker`), the fact
reader (:mod:`graphhop.read.facts`) and DiFaR² training (:mod:`graphhop.train.difar`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from graphhop.core import GraphhopError

__all__ = ["load_sequence_classifier", "score_pairs"]


def load_sequence_classifier(name: str | Path | None) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a one-logit sequence classifier, on the CPU, in eval mode.

    ``name`` is a directory written by ``graphhop train reranker`` (or any cross-encoder), a
    Hugging Face name, or ``None`` for the bundled MiniLM (which then gets an untrained head).
    """
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from graphhop.models.encoder import resolve_model

    target = resolve_model(None if name is None else str(name))
    try:
        tokenizer = AutoTokenizer.from_pretrained(target)
        model = AutoModelForSequenceClassification.from_pretrained(target, num_labels=1)
    except OSError as exc:
        raise GraphhopError(f"cannot load cross-encoder {name!r}: {str(exc).splitlines()[0]}") from None
    model.eval()
    return model, tokenizer


def score_pairs(model: Any, tokenizer: Any, queries: Sequence[str], texts: Sequence[str], batch_size: int = 64, max_length: int = 96) -> list[float]:
    """Cross-encoder logits for ``(queries[i], texts[i])``, in batches, without gradients."""
    import torch

    out: list[float] = []
    with torch.inference_mode():
        for i in range(0, len(queries), batch_size):
            enc = tokenizer(
                list(queries[i : i + batch_size]),
                list(texts[i : i + batch_size]),
                padding=True,
                truncation=True,
                max_length=max_length,
                return_tensors="pt",
            )
            logits = model(**enc).logits
            out.extend(logits[:, 0].float().tolist())
    return out
