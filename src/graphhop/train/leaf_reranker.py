"""A cross-encoder reranker of EntailmentBank leaves: MiniLM reads (hypothesis + question, sentence) together.

The bi-encoder and the leaf head score a sentence from its vector and word overlaps; a cross-encoder reads
the query and the sentence in one pass, so it can tell "a constellation contains stars" (a leaf of a tree
about Leo) from "a galaxy contains stars". It is trained here from the bundled MiniLM on the fit part of
the train trees (the selection carve of :func:`graphhop.train.leaves.carve` is held out):

- items: per tree, up to ``positives`` of its mapped leaves (label 1), ``negatives`` hard negatives
  (label 0): non-gold sentences of the **frozen** MiniLM's dense top ``depth`` and BM25 top ``depth`` of
  the query (the frozen index, so the reranker does not depend on which leaf encoder is cached), and
  ``random_negatives`` random corpus sentences (easy: with hard negatives only, a first run's loss stayed at
  0.693 for 134 steps), drawn with a seeded generator;
- binary cross-entropy on the logit, ``epochs`` seeded passes of ``batch`` items, AdamW with warm-up
  (:func:`graphhop.train.common.adamw_with_warmup` / :func:`~graphhop.train.common.run_epoch`); the word
  embeddings stay frozen (a third of the parameters, and cheaper steps on one CPU thread).

The model (about 90 MB) is not tracked: :func:`ensure_leaf_reranker` trains it once and caches it under
``$GRAPHHOP_CACHE/encoders/eb-rerank-<key>`` (the key hashes the recipe and the train file), like the leaf
encoder. :func:`choose_set` picks the leaf-set rule (candidates reranked, the cross-encoder's share of the
score beside the first stage's cosine, threshold, cap) on the carve; :class:`graphhop.retrieve.leaves_rerank.LeafReranker` applies it.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.retrieve.leaves_rerank import cut_set

__all__ = ["RerankerRecipe", "reranker_items", "train_leaf_reranker", "leaf_reranker_dir", "ensure_leaf_reranker",
           "choose_set", "choose_rule", "DEPTHS", "MIXES", "THRESHOLDS", "CAPS"]


@dataclass(frozen=True)
class RerankerRecipe:
    """What the training does (hashed into the cache key)."""

    epochs: int = 1
    batch: int = 16
    positives: int = 2
    negatives: int = 1
    random_negatives: int = 1
    depth: int = 30
    lr: float = 7e-5
    warmup: float = 0.1
    max_length: int = 96
    seed: int = 13
    every: int = 10


def reranker_items(golds: Sequence[Sequence[str]], candidates: Sequence[Sequence[str]], recipe: RerankerRecipe,
                   rng: np.random.Generator, corpus_ids: Sequence[str] = ()) -> list[tuple[int, str, float]]:
    """``(tree position, sentence id, label)`` items: up to ``recipe.positives`` gold leaves, ``recipe.negatives``
    non-gold ``candidates`` (hard) and ``recipe.random_negatives`` non-gold ``corpus_ids`` (easy) per tree (trees
    without a mapped leaf are skipped)."""
    items = []
    for i, (gold, cands) in enumerate(zip(golds, candidates)):
        if not gold:
            continue
        pos = list(gold) if len(gold) <= recipe.positives else rng.choice(list(gold), recipe.positives, replace=False).tolist()
        pool = [c for c in dict.fromkeys(cands) if c not in set(gold)]
        neg = rng.choice(pool, min(recipe.negatives, len(pool)), replace=False).tolist() if pool else []
        easy = [corpus_ids[int(j)] for j in rng.integers(0, len(corpus_ids), recipe.random_negatives)] if corpus_ids else []
        neg += [d for d in easy if d not in set(gold) and d not in neg]
        items += [(i, str(d), 1.0) for d in pos] + [(i, str(d), 0.0) for d in neg]
    return items


def train_leaf_reranker(queries: Sequence[str], items: Sequence[tuple[int, str, float]], text: Any, out: str | Path,
                        recipe: RerankerRecipe = RerankerRecipe(), progress: bool = True) -> dict[str, Any]:
    """Fine-tune a MiniLM cross-encoder on ``items`` (``text``: sentence id -> text); save it to ``out``; the card."""
    import torch
    from tqdm.auto import tqdm

    from graphhop.models.cross_encoder import load_sequence_classifier
    from graphhop.models.encoder import _quiet_transformers
    from graphhop.train.common import adamw_with_warmup, run_epoch, save_model_dir

    if not items:
        raise InputError("no reranker training items (no train tree has a leaf in the corpus?)")
    t0 = time.perf_counter()
    torch.manual_seed(recipe.seed)
    _quiet_transformers()
    model, tokenizer = load_sequence_classifier(None)
    for p in model.base_model.embeddings.word_embeddings.parameters():
        p.requires_grad = False
    bce = torch.nn.BCEWithLogitsLoss()

    def loss_fn(batch: list[tuple[int, str, float]]) -> Any:
        enc = tokenizer([queries[i] for i, _, _ in batch], [text(d) for _, d, _ in batch], padding=True,
                        truncation=True, max_length=recipe.max_length, return_tensors="pt")
        return bce(model(**enc).logits[:, 0], torch.tensor([y for _, _, y in batch]))

    total = recipe.epochs * ((len(items) + recipe.batch - 1) // recipe.batch)
    opt, sched = adamw_with_warmup(model, recipe.lr, 0.01, recipe.warmup, total)
    rng, order, steps, losses = random.Random(recipe.seed), list(range(len(items))), 0, []
    bar = tqdm(total=total, desc="train leaf reranker", unit="step", disable=not progress)
    for epoch in range(1, recipe.epochs + 1):
        steps, loss, _ = run_epoch(model, loss_fn, items, order, recipe.batch, opt, sched, steps, total, rng, bar, epoch)
        losses.append(round(loss, 4))
    bar.close()
    card = {"task": "EntailmentBank leaf reranker (cross-encoder)", "recipe": asdict(recipe), "items": len(items),
            "positives": int(sum(y for _, _, y in items)), "steps": steps, "epoch_loss": losses,
            "seconds": round(time.perf_counter() - t0, 1), "threads": torch.get_num_threads()}

    def save(path: Path) -> None:
        model.save_pretrained(str(path))
        tokenizer.save_pretrained(str(path))

    save_model_dir(save, out, card)
    return card


def leaf_reranker_dir(data_root: str | Path, recipe: RerankerRecipe = RerankerRecipe()) -> Path:
    """The cache directory of the reranker this ``recipe`` trains on ``data_root``'s train trees."""
    from graphhop.train.leaf_encoder import recipe_cache_dir

    return recipe_cache_dir(data_root, recipe, "eb-rerank")


def ensure_leaf_reranker(base_index: Any, data_root: str | Path, recipe: RerankerRecipe = RerankerRecipe(),
                         progress: bool = True) -> Path:
    """The trained reranker's directory, training it first (on the fit trees; negatives from ``base_index``,
    the frozen MiniLM's WorldTree index) when it is not cached."""
    from graphhop.retrieve import make_retriever
    from graphhop.train.leaves import carve

    out = leaf_reranker_dir(data_root, recipe)
    if (out / "graphhop_card.json").exists():
        return out
    fit, _ = carve(base_index, data_root, recipe.every)
    queries = [ex.query for ex in fit]
    dense = make_retriever(base_index, "dense").search(queries, recipe.depth)
    bm25 = make_retriever(base_index, "bm25").search(queries, recipe.depth)
    cands = [[h.id for h in d] + [h.id for h in b] for d, b in zip(dense, bm25)]
    docs = base_index.docs
    items = reranker_items([ex.gold for ex in fit], cands, recipe, np.random.default_rng(recipe.seed),
                           [d.id for d in docs.docs])
    train_leaf_reranker(queries, items, lambda d: docs[d].text, out, recipe, progress)
    return out


#: The selection grid of :func:`choose_set`: candidates reranked (first-stage depth), the cross-encoder's share of the
#: score (the rest: the first stage's cosine), thresholds of that score, caps.
DEPTHS = (10, 20, 30)
MIXES = (1.0, 0.75, 0.5, 0.25)
THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
CAPS = (2, 3, 4, 5, 6, 8)


def choose_set(scored: Sequence[Sequence[tuple[str, float, int, float]]],
               examples: Sequence[Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The (depth, mix, threshold, cap) of :func:`~graphhop.retrieve.leaves_rerank.cut_set` with the best mean
    leaf-set F1 on ``examples`` (the carve; ties: the smaller depth and cap, the larger mix and threshold); also
    the whole grid."""
    from graphhop.train.leaves import leaf_f1

    grid = []
    for depth in DEPTHS:
        for mix in MIXES:
            for cap in CAPS:
                for t in THRESHOLDS:
                    f1 = [leaf_f1(cut_set(s, depth, t, cap, mix), ex) for s, ex in zip(scored, examples)]
                    grid.append({"depth": depth, "mix": mix, "threshold": t, "max_leaves": cap, "f1": float(np.mean(f1))})
    best = max(grid, key=lambda g: (round(g["f1"], 12), -g["depth"], -g["max_leaves"], g["mix"], g["threshold"]))
    return dict(best), grid


def choose_rule(reranker: Any, examples: Sequence[Any]) -> dict[str, Any]:
    """Score the carve ``examples`` once at the deepest depth of :data:`DEPTHS`, choose the rule with
    :func:`choose_set`, apply it to ``reranker`` and store it beside its model for its index's encoder."""
    from graphhop.io import atomic_write_text
    from graphhop.retrieve.leaves_rerank import selection_path

    scored = reranker.score([ex.query for ex in examples], max(DEPTHS))
    best, grid = choose_set(scored, examples)
    by_mix = {str(m): round(max(g["f1"] for g in grid if g["mix"] == m), 4) for m in MIXES}
    rule = {**best, "chosen_on": f"EntailmentBank train carve ({len(examples)} trees)", "encoder": str(reranker.index.model),
            "best_f1_by_mix": by_mix}
    atomic_write_text(selection_path(reranker.model_dir, reranker.index), json.dumps(rule, indent=1) + "\n")
    reranker.rule = rule
    reranker.depth, reranker.threshold, reranker.max_leaves = rule["depth"], rule["threshold"], rule["max_leaves"]
    reranker.mix = rule["mix"]
    return rule
