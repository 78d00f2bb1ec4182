"""Fine-tuning the sentence encoder for BGR (the paper trains it; the default here keeps it frozen):
InfoNCE on the teacher-forced forward prefixes' MDR queries against their gold children."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Sequence

import torch

from graphhop.core import InputError
from graphhop.train.bgr import forward_targets
from graphhop.train.bgr_data import BGRExample

__all__ = ["encoder_triples", "finetune_encoder"]


def encoder_triples(examples: Sequence[BGRExample], negatives: int = 3, path_limit: int = 16,
                    seed: int = 13) -> list[tuple[str, str, list[str]]]:
    """``(query, positive, hard negatives)`` for fine-tuning the encoder: one per child of every
    teacher-forced forward prefix (query = ``question [SEP] path evidence…``, the MDR query), negatives
    drawn from the same pool outside the prefix's targets (seeded)."""
    rng = random.Random(seed)
    out = []
    for ex in examples:
        text = dict(zip(ex.pool.ids, ex.pool.texts))
        for prefix, targets in forward_targets(ex.gold, path_limit):
            query = " [SEP] ".join([ex.query] + [text[n] for n in prefix if n in text])
            others = [i for i in ex.pool.ids if i not in targets and i not in prefix]
            for t in sorted(targets):
                if t in text:
                    out.append((query, text[t], [text[i] for i in rng.sample(others, min(negatives, len(others)))]))
    return out


def finetune_encoder(
    examples: Sequence[BGRExample],
    out: str | Path,
    model: str | None = None,
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 3e-5,
    scale: float = 20.0,
    negatives: int = 3,
    max_minutes: float = 10.0,
    seed: int = 13,
    progress: bool = True,
) -> dict[str, Any]:
    """Fine-tune the sentence encoder on :func:`encoder_triples` (InfoNCE: each query against the
    batch's positives and hard negatives; copies of its own positive masked) — the paper trains the
    encoder, the frozen default does not. Saved atomically to ``out``; returns its card."""
    import torch.nn.functional as F
    from sentence_transformers import SentenceTransformer
    from tqdm.auto import tqdm

    from graphhop.models.encoder import canonical_model_name, resolve_model
    from graphhop.train.common import adamw_with_warmup, run_epoch, save_model_dir

    triples = encoder_triples(examples, negatives, seed=seed)
    if not triples:
        raise InputError("no encoder training pairs (gold graphs without evidence?)")
    torch.manual_seed(seed)
    enc = SentenceTransformer(resolve_model(model), device="cpu")
    enc.max_seq_length = 128

    def loss_fn(batch: list[tuple[str, str, list[str]]]) -> torch.Tensor:
        docs = [b[1] for b in batch] + [n for b in batch for n in b[2]]
        q = F.normalize(enc(enc.preprocess([b[0] for b in batch]))["sentence_embedding"], dim=-1)
        d = F.normalize(enc(enc.preprocess(docs))["sentence_embedding"], dim=-1)
        sim = scale * q @ d.T
        mask = torch.tensor([[j != i and docs[j] == b[1] for j in range(len(docs))] for i, b in enumerate(batch)])
        return F.cross_entropy(sim.masked_fill(mask, float("-inf")), torch.arange(len(batch)))

    total = epochs * ((len(triples) + batch_size - 1) // batch_size)
    opt, sched = adamw_with_warmup(enc, lr, 0.01, 0.1, total)
    rng, order, steps, losses = random.Random(seed), list(range(len(triples))), 0, []
    t0 = time.perf_counter()
    deadline = t0 + 60 * max_minutes
    bar = tqdm(total=total, desc="fine-tune encoder", unit="step", disable=not progress)
    for epoch in range(1, epochs + 1):
        steps, loss, stopped = run_epoch(enc, loss_fn, triples, order, batch_size, opt, sched, steps, total, rng, bar,
                                         epoch, deadline)
        losses.append(round(loss, 4))
        if stopped:
            break
    bar.close()
    enc.eval()
    card = {"task": "BGR encoder fine-tuning", "base_model": canonical_model_name(model), "pairs": len(triples),
            "steps": steps, "total_steps": total, "epoch_loss": losses, "negatives": negatives, "lr": lr,
            "batch_size": batch_size, "train_seconds": round(time.perf_counter() - t0, 1)}
    save_model_dir(lambda tmp: enc.save(str(tmp)), out, card)
    return card
