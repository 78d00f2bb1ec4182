"""Fine-tune the MiniLM encoder itself on question <-> relation-name pairs, for the walk reader's relation matching.

    python -m graphhop.train.relation_encoder --out runs/relation-encoder [--train bias|top1|top2] [--facts]

Session 6's map over *frozen* MiniLM vectors (:mod:`graphhop.train.text_relation`) learned the training
relations and lost to plain MiniLM on held-out ones. Here the encoder's own weights move: a copy of the bundled
all-MiniLM-L6-v2 with only some parameters trainable (``bias``: every bias and LayerNorm weight, BitFit;
``topN``: those plus the top N transformer layers), trained on the pairs of
:func:`graphhop.train.relation_paraphrase.name_pairs` (a question's relation words as the walk reads them <->
the names of its gold relations; ``--facts`` adds :func:`graphhop.train.text_relation.training_pairs`, the same
words <-> the verbalized builder sentence's words), with the loss of
:func:`graphhop.train.text_relation.batch_loss` (best word per label, softmax over the batch's labels and
negatives).

Selection: relations whose md5 is 0 mod 4 are held out (:func:`graphhop.train.text_relation.held_out`); the
encoder is trained on the other pairs and scored on the held-out ones after every epoch (``rank1``: gold names
above every negative; F1 at the best threshold); the epoch with the best rank1 (ties: F1, then earlier) and its
threshold are chosen there and that epoch's encoder is kept (``--retrain``: retrained on all pairs for that many
epochs instead). Plain MiniLM is
scored on the same carve for comparison. The result is a *delta*: the trained parameters only
(``encoder.npz``, float16) + ``card.json``, loaded over the bundled MiniLM by
:class:`graphhop.read.relation_matcher.RelationMatcher` (``--relation-matcher DIR`` of the text benchmark).
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.train.text_relation import Pair, batch_loss, carve_scores, held_out

__all__ = ["Recipe", "trainable_names", "carve_split", "capped", "fine_tune", "train_relation_encoder"]

TRAIN_PARTS = ("bias", "top1", "top2")


@dataclass(frozen=True)
class Recipe:
    """What the fine-tuning does (written into the card)."""

    epochs: int = 4
    lr: float = 2e-4
    batch: int = 32
    temperature: float = 0.05
    train: str = "bias"
    seed: int = 0
    facts: bool = False
    per_set: int = 1500
    cap: int = 1_000_000  # at most this many training pairs per relation name (a seeded sample)


def trainable_names(model: Any, train: str) -> list[str]:
    """The parameters ``train`` fine-tunes (module docstring); every other parameter of ``model`` is frozen."""
    if train not in TRAIN_PARTS:
        raise InputError(f"--train must be one of {', '.join(TRAIN_PARTS)}, got {train!r}")
    top = int(train[3:]) if train.startswith("top") else 0
    layers = 6
    names = []
    for name, param in model.named_parameters():
        layer = next((int(p) for a, p in zip(name.split("."), name.split(".")[1:]) if a == "layer" and p.isdigit()), -1)
        keep = name.endswith("bias") or "LayerNorm" in name or (top and layer >= layers - top)
        param.requires_grad = bool(keep)
        if keep:
            names.append(name)
    return names


def _embed(model: Any, texts: Sequence[str]) -> Any:
    """Unit sentence vectors of ``texts`` (a torch tensor, with gradients when the model is training)."""
    import torch

    features = model.preprocess(list(texts))
    out = model(features)["sentence_embedding"]
    return torch.nn.functional.normalize(out, dim=1)


def _vectors(model: Any, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Unit vectors of ``texts`` without gradients (the model in eval mode)."""
    import torch

    texts = list(dict.fromkeys(texts))
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(texts), 256):
            out.append(_embed(model, texts[i : i + 256]).numpy())
    return dict(zip(texts, np.concatenate(out) if out else np.zeros((0, 384), dtype=np.float32)))


def evaluate(model: Any, carve: Sequence[Pair]) -> dict[str, Any]:
    """:func:`graphhop.train.text_relation.carve_scores` of the model's own vectors (no map)."""
    vec = _vectors(model, [t for p in carve for t in (*p.words, *p.labels, *p.negatives)])
    return carve_scores(carve, vec, np.eye(next(iter(vec.values())).shape[0], dtype=np.float32))


def carve_split(pairs: Sequence[Pair]) -> tuple[list[Pair], list[Pair]]:
    """``(fit, carve)``: pairs with a held-out relation go to the carve, keeping only their held-out labels."""
    carve = [p for p in pairs if any(held_out(r) for r in p.relations)]
    fit = [p for p in pairs if not any(held_out(r) for r in p.relations)]
    carve = [Pair(p.words, [lab for lab, r in zip(p.labels, p.relations) if held_out(r)],
                  [r for r in p.relations if held_out(r)], p.negatives, p.source) for p in carve]
    return fit, carve


def fresh_model() -> Any:
    """A new copy of the bundled MiniLM (never the process's shared encoder: it is changed in place)."""
    from sentence_transformers import SentenceTransformer

    from graphhop.models.encoder import resolve_model

    return SentenceTransformer(resolve_model(None), device="cpu")


def fine_tune(model: Any, pairs: Sequence[Pair], recipe: Recipe, epochs: int, on_epoch: Any = None,
              log: Any = print) -> list[str]:
    """Train ``model``'s ``recipe.train`` part on ``pairs`` for ``epochs`` (AdamW, constant rate; a seeded
    order); ``on_epoch(epoch)`` after each. Returns the trained parameter names."""
    import torch

    torch.manual_seed(recipe.seed)
    names = trainable_names(model, recipe.train)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=recipe.lr, weight_decay=0.0)
    rng = random.Random(recipe.seed)
    order = list(range(len(pairs)))
    for epoch in range(1, epochs + 1):
        model.train()
        rng.shuffle(order)
        start, total = time.perf_counter(), 0.0
        for i in range(0, len(order), recipe.batch):
            chunk = [pairs[j] for j in order[i : i + recipe.batch]]
            texts = list(dict.fromkeys(t for p in chunk for t in (*p.words, *p.labels, *p.negatives)))
            table = _embed(model, texts)
            at = {t: k for k, t in enumerate(texts)}
            loss = batch_loss(chunk, lambda xs: table[[at[x] for x in xs]], recipe.temperature)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            total += loss.item() * len(chunk)
        log(f"epoch {epoch}: loss {total / max(1, len(pairs)):.4f}, {time.perf_counter() - start:.0f} s")
        if on_epoch is not None:
            on_epoch(epoch)
    model.eval()
    return names


def _pairs(root: str | Path | None, recipe: Recipe) -> list[Pair]:
    """The training pairs of ``recipe`` (name pairs, and the verbalized-fact pairs with ``facts``)."""
    from graphhop.train.relation_paraphrase import name_pairs
    from graphhop.train.text_relation import training_pairs

    pairs = name_pairs(root, per_set=recipe.per_set, seed=recipe.seed)
    if recipe.facts:
        pairs += training_pairs(root, per_set=recipe.per_set, seed=recipe.seed)
    if not pairs:
        raise InputError("no training pairs: the data has no usable questions")
    return pairs


def capped(pairs: Sequence[Pair], cap: int, seed: int = 0) -> list[Pair]:
    """At most ``cap`` pairs per first gold relation (a seeded sample, order kept): PQ's ``children`` and ``parents``
    alone are 2,176 of the 2,638 name pairs."""
    from collections import defaultdict

    by_relation: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(pairs):
        by_relation[p.relations[0] if p.relations else ""].append(i)
    rng = random.Random(seed)
    keep = {i for group in by_relation.values() for i in (rng.sample(group, cap) if len(group) > cap else group)}
    return [p for i, p in enumerate(pairs) if i in keep]


def save_delta(model: Any, names: Sequence[str], folder: str | Path, card: dict[str, Any]) -> None:
    """The trained parameters (``encoder.npz``, float16) and ``card.json`` in one atomic directory (an earlier
    matcher there is replaced, any other folder refused)."""
    import json

    from graphhop.io import atomic_dir

    state = dict(model.named_parameters())
    arrays = {n: state[n].detach().numpy().astype(np.float16) for n in names}
    with atomic_dir(folder, overwrite=True, replace_if=("card.json", "encoder.npz", "matcher.npz")) as tmp:
        np.savez_compressed(tmp / "encoder.npz", **arrays)
        (tmp / "card.json").write_text(json.dumps(card, indent=2), encoding="utf-8")


def _snapshot(model: Any, names: Sequence[str]) -> dict[str, Any]:
    state = dict(model.named_parameters())
    return {n: state[n].detach().clone() for n in names}


def _restore(model: Any, snapshot: dict[str, Any]) -> None:
    import torch

    state = dict(model.named_parameters())
    with torch.no_grad():
        for name, value in snapshot.items():
            state[name].copy_(value)


def train_relation_encoder(out: str | Path, root: str | Path | None = None, recipe: Recipe = Recipe(),
                           retrain: bool = False, log: Any = print) -> dict[str, Any]:
    """Choose the epoch and threshold on the held-out-relation carve and save that epoch's delta to ``out``
    (``retrain``: retrain on all pairs for that many epochs first)."""
    if recipe.epochs < 1 or recipe.cap < 1:
        raise InputError(f"--epochs and --cap must be >= 1, got {recipe.epochs} and {recipe.cap}")
    started = time.perf_counter()
    pairs = _pairs(root, recipe)
    fit, carve = carve_split(pairs)
    fit = capped(fit, recipe.cap, recipe.seed)  # the carve is never capped: every run is scored on the same pairs
    log(f"pairs: {len(pairs)} ({len(fit)} fit after the cap, {len(carve)} carve)")
    model = fresh_model()
    identity = evaluate(model, carve)
    log(f"plain MiniLM on the carve: {identity}")
    by_epoch: dict[int, dict[str, Any]] = {}
    kept: dict[int, dict[str, Any]] = {}
    names = trainable_names(model, recipe.train)

    def record(epoch: int) -> None:
        by_epoch[epoch] = evaluate(model, carve)
        kept[epoch] = _snapshot(model, names)
        log(f"epoch {epoch}: carve {by_epoch[epoch]}")

    fine_tune(model, fit, recipe, recipe.epochs, on_epoch=record, log=log)
    best = max(by_epoch, key=lambda e: (by_epoch[e]["rank1"], by_epoch[e]["f1"], -e))
    if retrain:
        model = fresh_model()
        fine_tune(model, capped(pairs, recipe.cap, recipe.seed), recipe, best, log=log)
    else:
        _restore(model, kept[best])
    card = {"kind": "encoder", "recipe": asdict(recipe), "epoch": best, "threshold": by_epoch[best]["threshold"],
            "pairs": len(pairs), "retrained_on_all": retrain, "carve": "relations with md5 % 4 == 0 held out",
            "carve_identity": identity, "carve_by_epoch": by_epoch, "parameters": len(names),
            "train_seconds": round(time.perf_counter() - started),
            "command": " ".join(["python -m graphhop.train.relation_encoder", *sys.argv[1:]])}
    save_delta(model, names, out, card)
    log(f"chose epoch {best}, threshold {card['threshold']}; saved to {out} ({card['train_seconds']} s in all)")
    return card


def main() -> None:
    """Command line: ``python -m graphhop.train.relation_encoder --out DIR``."""
    from graphhop.eval.script import benchmark_parser, parse_benchmark_args

    ap = benchmark_parser(__doc__, seed=0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--epochs", type=int, default=Recipe.epochs)
    ap.add_argument("--lr", type=float, default=Recipe.lr)
    ap.add_argument("--batch", type=int, default=Recipe.batch)
    ap.add_argument("--train", choices=TRAIN_PARTS, default=Recipe.train)
    ap.add_argument("--facts", action="store_true", help="add the verbalized-fact pairs of graphhop.train.text_relation")
    ap.add_argument("--cap", type=int, default=Recipe.cap, help="at most this many pairs per relation (default: all)")
    ap.add_argument("--retrain", action="store_true", help="retrain on all pairs for the chosen epochs (default: keep "
                    "the chosen epoch of the run on the fit part)")
    args = parse_benchmark_args(ap)
    recipe = Recipe(epochs=args.epochs, lr=args.lr, batch=args.batch, train=args.train, seed=args.seed, facts=args.facts,
                    cap=args.cap)
    train_relation_encoder(args.out, args.data, recipe, retrain=args.retrain)


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
