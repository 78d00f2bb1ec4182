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

That is the session-5 recipe (``pointwise``). The session-6 recipe :data:`LISTWISE` (the default) mines the hard
negatives from the fine-tuned leaf encoder's dense top 10 (the index it reranks), makes one list per tree and
scores each gold pair against its list's non-gold pairs (:func:`listwise_loss`, plus the pointwise BCE), and
trains only the top layers (:func:`freeze_below`).

The model (about 90 MB) is not tracked: :func:`ensure_leaf_reranker` trains it once and caches it under
``$GRAPHHOP_CACHE/encoders/eb-rerank-<key>`` (the key hashes the recipe and the train file), like the leaf
encoder. :func:`choose_set` picks the leaf-set rule (candidates reranked, the cross-encoder's share of the
score beside the first stage's cosine, threshold, cap) on the carve; :class:`graphhop.retrieve.leaves_rerank.LeafReranker` applies it.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError
from graphhop.retrieve.leaves_rerank import cut_set

__all__ = ["RerankerRecipe", "LISTWISE", "LISTWISE_MORE", "RECIPES", "DEFAULT_RECIPE", "line_log", "recipe_key_fields", "reranker_items", "listwise_loss", "freeze_below", "train_leaf_reranker", "leaf_reranker_dir", "ensure_leaf_reranker",
           "choose_set", "choose_rule", "choose_fusion", "FUSION_DEPTHS", "FUSION_MIXES", "DEPTHS", "MIXES", "THRESHOLDS", "CAPS", "RELATIVE"]


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
    #: Fields added in session 6 (hashed only where they differ from the session-5 value of :data:`_LATER`, so
    #: the session-5 model keeps its cache key). ``loss``: ``bce`` (pointwise, ``batch`` items a step) or
    #: ``listwise`` (``batch`` trees a step, each tree's list scored together; see :func:`listwise_loss`).
    loss: str = "bce"
    #: Where the hard negatives come from: ``frozen`` (the frozen MiniLM's dense ∪ BM25 top ``depth``) or
    #: ``fine-tuned`` (the dense top ``depth`` of the index passed as ``negative_index``: the one it reranks).
    negatives_from: str = "frozen"
    #: Transformer layers trained from the top (6: all, embeddings but the word embeddings trained too; fewer:
    #: every embedding and the lower layers frozen, a cheaper step on one CPU thread).
    train_layers: int = 6
    #: In ``listwise``: the weight of the pointwise BCE term beside the listwise one (it keeps sigmoid(logit) a
    #: probability, which the leaf-set rule thresholds).
    bce_weight: float = 1.0
    #: Session 7: a name of :data:`RECIPES` whose cached model the training starts from ("" = the bundled MiniLM with
    #: a fresh head), and whether the non-gold sentences of each list are drawn again every epoch (seed + epoch).
    start_from: str = ""
    redraw: bool = False


#: Session-5 values of the later fields, left out of the cache key when equal (see :func:`recipe_key_fields`).
_LATER = {"loss": "bce", "negatives_from": "frozen", "train_layers": 6, "bce_weight": 1.0, "start_from": "",
          "redraw": False}

#: The session-6 recipe (chosen before any carve figure was seen, sized to ~25 CPU minutes on one thread): hard
#: negatives from the fine-tuned leaf encoder's dense top 10, lists of 2 gold + 5 hard + 1 random sentences,
#: 4 trees (32 pairs) a step, listwise + pointwise loss, top 4 layers trained, 1 epoch (294 steps), lr 1e-4.
LISTWISE = RerankerRecipe(epochs=1, batch=4, positives=2, negatives=5, random_negatives=1, depth=10, lr=1e-4,
                          loss="listwise", negatives_from="fine-tuned", train_layers=4)


#: Session 7: the session-6 listwise model trained 1 more epoch (same lists, negatives drawn again with seed
#: 14, a fresh warm-up and decay; one epoch for lack of CPU): its loss was still falling after its one epoch.
LISTWISE_MORE = replace(LISTWISE, epochs=1, seed=14, start_from="listwise", redraw=True)

#: The recipes ``graphhop train leaf-reranker --recipe`` offers.
RECIPES = {"pointwise": RerankerRecipe(), "listwise": LISTWISE, "listwise-more": LISTWISE_MORE}
#: The recipe ``graphhop train leaf-reranker`` trains and the benchmark's ``--reranker auto`` finds (listwise: its
#: carve F1 0.365 beats the pointwise model's 0.344, though not the leaf head's 0.374; docs/RESULTS.md).
DEFAULT_RECIPE = "listwise"


def line_log(path: str | Path | None) -> Any:
    """A callable appending a timestamped line to ``path`` (flushed at once), or None without a path."""
    if path is None:
        return None

    def write(line: str) -> None:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(f"{time.strftime('%H:%M:%S')} {line}\n")

    return write


def recipe_key_fields(recipe: RerankerRecipe) -> dict[str, Any]:
    """The recipe's fields as hashed into its cache key (session-6 fields only where not at their session-5 value)."""
    return {k: v for k, v in asdict(recipe).items() if not (k in _LATER and _LATER[k] == v)}


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


def listwise_loss(logits: Any, labels: Any, groups: Sequence[int], bce_weight: float = 1.0) -> Any:
    """Mean over the lists (``groups``: the list sizes, in order) of each gold pair's softmax loss against its
    list's non-gold pairs (a list's other gold pairs are never its negatives; a list without a gold or a
    negative adds nothing), plus ``bce_weight`` times the pointwise BCE over every pair."""
    import torch

    parts, at = [], 0
    for n in groups:
        z, y = logits[at:at + n], labels[at:at + n] > 0.5
        at += n
        if y.any() and (~y).any():
            neg = torch.logsumexp(z[~y], dim=0)
            parts.append(-(z[y] - torch.logaddexp(z[y], neg)).mean())
    loss = torch.stack(parts).mean() if parts else logits.sum() * 0.0
    if bce_weight:
        loss = loss + bce_weight * torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
    return loss


def freeze_below(model: Any, train_layers: int) -> None:
    """Freeze what is not trained: with 6 (all) layers only the word embeddings (session 5); with fewer, every
    embedding and the lower layers (:func:`~graphhop.train.common.freeze_lower_layers`; the pooler and the
    one-logit head are always trained)."""
    from graphhop.train.common import freeze_lower_layers

    bert = model.base_model
    if train_layers >= len(bert.encoder.layer):
        for p in bert.embeddings.word_embeddings.parameters():
            p.requires_grad = False
        return
    freeze_lower_layers(bert, train_layers)


def _training_units(items: Sequence[tuple[int, str, float]], recipe: RerankerRecipe) -> list[Any]:
    """What a step draws ``batch`` of: the items (``bce``) or the trees' lists of items (``listwise``)."""
    if recipe.loss == "bce":
        return list(items)
    if recipe.loss != "listwise":
        raise InputError(f"reranker loss {recipe.loss!r}: use bce or listwise")
    lists: dict[int, list[tuple[int, str, float]]] = {}
    for it in items:
        lists.setdefault(it[0], []).append(it)
    return list(lists.values())


def train_leaf_reranker(queries: Sequence[str], items: Sequence[tuple[int, str, float]], text: Any, out: str | Path,
                        recipe: RerankerRecipe = RerankerRecipe(), progress: bool = True, log: Any = None,
                        init: str | Path | None = None, epoch_items: Any = None) -> dict[str, Any]:
    """Fine-tune a MiniLM cross-encoder on ``items`` (``text``: sentence id -> text); save it to ``out``; the card.
    ``log``: called with a progress line every 20 steps (for a log file on long runs); ``init``: a cross-encoder
    directory to start from (default: the bundled MiniLM with a fresh head); ``epoch_items``: epoch (2, 3, ...) ->
    that epoch's items (negatives drawn again), else ``items`` every epoch."""
    import torch
    from tqdm.auto import tqdm

    from graphhop.models.cross_encoder import load_sequence_classifier
    from graphhop.models.encoder import _quiet_transformers
    from graphhop.train.common import adamw_with_warmup, run_epoch, save_model_dir

    if not items:
        raise InputError("no reranker training items (no train tree has a leaf in the corpus?)")
    units = _training_units(items, recipe)
    t0 = time.perf_counter()
    torch.manual_seed(recipe.seed)
    _quiet_transformers()
    model, tokenizer = load_sequence_classifier(init)
    freeze_below(model, recipe.train_layers)
    seen: list[float] = []

    def loss_fn(batch: list[Any]) -> Any:
        lists = batch if recipe.loss == "listwise" else [batch]
        flat = [it for group in lists for it in group]
        enc = tokenizer([queries[i] for i, _, _ in flat], [text(d) for _, d, _ in flat], padding=True,
                        truncation=True, max_length=recipe.max_length, return_tensors="pt")
        logits, labels = model(**enc).logits[:, 0], torch.tensor([y for _, _, y in flat])
        loss = (listwise_loss(logits, labels, [len(g) for g in lists], recipe.bce_weight) if recipe.loss == "listwise"
                else torch.nn.functional.binary_cross_entropy_with_logits(logits, labels))
        seen.append(float(loss.detach()))
        if log is not None and len(seen) % 20 == 0:
            log(f"step {len(seen)}/{total} loss(last 20) {np.mean(seen[-20:]):.4f} {time.perf_counter() - t0:.0f}s")
        return loss

    total = recipe.epochs * ((len(units) + recipe.batch - 1) // recipe.batch)
    opt, sched = adamw_with_warmup(model, recipe.lr, 0.01, recipe.warmup, total)
    rng, order, steps, losses = random.Random(recipe.seed), list(range(len(units))), 0, []
    bar = tqdm(total=total, desc="train leaf reranker", unit="step", disable=not progress)
    for epoch in range(1, recipe.epochs + 1):
        if epoch > 1 and epoch_items is not None:
            units = _training_units(epoch_items(epoch), recipe)
            order = list(range(len(units)))
        steps, loss, _ = run_epoch(model, loss_fn, units, order, recipe.batch, opt, sched, steps, total, rng, bar, epoch)
        losses.append(round(loss, 4))
    bar.close()
    card = {"task": "EntailmentBank leaf reranker (cross-encoder)", "recipe": asdict(recipe), "items": len(items),
            "init": str(init or "bundled MiniLM"),
            "positives": int(sum(y for _, _, y in items)), "steps": steps, "epoch_loss": losses,
            "loss_first_last_20": [round(float(np.mean(seen[:20])), 4), round(float(np.mean(seen[-20:])), 4)],
            "seconds": round(time.perf_counter() - t0, 1), "threads": torch.get_num_threads()}

    def save(path: Path) -> None:
        model.save_pretrained(str(path))
        tokenizer.save_pretrained(str(path))

    save_model_dir(save, out, card)
    return card


def leaf_reranker_dir(data_root: str | Path, recipe: RerankerRecipe = RerankerRecipe(), negative_index: Any = None) -> Path:
    """The cache directory of the reranker this ``recipe`` trains on ``data_root``'s train trees; where its hard
    negatives come from the fine-tuned index, that index's encoder (``negative_index.model``) is in the key too."""
    from graphhop.train.leaf_encoder import recipe_cache_dir

    fields = recipe_key_fields(recipe)
    if recipe.negatives_from == "fine-tuned":
        fields["negative_encoder"] = Path(str(getattr(negative_index, "model", None) or "base")).name
    if recipe.start_from:
        fields["start_dir"] = _start_dir(data_root, recipe, negative_index).name
    return recipe_cache_dir(data_root, recipe, "eb-rerank", fields)


def _start_dir(data_root: str | Path, recipe: RerankerRecipe, negative_index: Any) -> Path:
    """The cached model ``recipe.start_from`` names (a recipe of :data:`RECIPES`)."""
    if recipe.start_from not in RECIPES:
        raise InputError(f"reranker start_from {recipe.start_from!r}: use one of {', '.join(RECIPES)}")
    return leaf_reranker_dir(data_root, RECIPES[recipe.start_from], negative_index)


def ensure_leaf_reranker(base_index: Any, data_root: str | Path, recipe: RerankerRecipe = RerankerRecipe(),
                         progress: bool = True, negative_index: Any = None, log: Any = None) -> Path:
    """The trained reranker's directory, training it first (on the fit trees) when it is not cached. Hard
    negatives: the frozen MiniLM's WorldTree index ``base_index`` (dense ∪ BM25), or with
    ``recipe.negatives_from == "fine-tuned"`` the dense top ``recipe.depth`` of ``negative_index`` (the fine-tuned
    leaf encoder's index, the one the reranker reorders)."""
    from graphhop.retrieve import make_retriever
    from graphhop.train.leaves import carve

    out = leaf_reranker_dir(data_root, recipe, negative_index)
    if (out / "graphhop_card.json").exists():
        return out
    if recipe.negatives_from == "fine-tuned" and (
            negative_index is None or not Path(str(negative_index.model or "base")).name.startswith("eb-leaves")):
        raise InputError("the reranker recipe mines negatives from the fine-tuned leaf encoder's index, and none "
                         "is cached (run `graphhop train leaf-encoder` first)")
    init = _start_dir(data_root, recipe, negative_index) if recipe.start_from else None
    if init is not None and not (init / "graphhop_card.json").exists():
        raise InputError(f"the reranker recipe starts from {recipe.start_from!r}, which is not trained ({init}): "
                         f"run `graphhop train leaf-reranker --recipe {recipe.start_from}` first")
    fit, _ = carve(base_index, data_root, recipe.every)
    queries = [ex.query for ex in fit]
    if recipe.negatives_from == "fine-tuned":
        cands = [[h.id for h in r] for r in make_retriever(negative_index, "dense").search(queries, recipe.depth)]
    elif recipe.negatives_from == "frozen":
        dense = make_retriever(base_index, "dense").search(queries, recipe.depth)
        bm25 = make_retriever(base_index, "bm25").search(queries, recipe.depth)
        cands = [[h.id for h in d] + [h.id for h in b] for d, b in zip(dense, bm25)]
    else:
        raise InputError(f"reranker negatives_from {recipe.negatives_from!r}: use frozen or fine-tuned")
    docs = base_index.docs
    golds, corpus_ids = [ex.gold for ex in fit], [d.id for d in docs.docs]

    def draw(epoch: int) -> list[tuple[int, str, float]]:
        return reranker_items(golds, cands, recipe, np.random.default_rng(recipe.seed + epoch - 1), corpus_ids)

    train_leaf_reranker(queries, draw(1), lambda d: docs[d].text, out, recipe, progress, log, init,
                        draw if recipe.redraw else None)
    return out


#: The selection grid of :func:`choose_set`: candidates reranked (first-stage depth), the cross-encoder's share of the
#: score (the rest: the first stage's cosine), thresholds of that score, caps.
DEPTHS = (10, 20, 30)
MIXES = (1.0, 0.75, 0.5, 0.25)
THRESHOLDS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
CAPS = (2, 3, 4, 5, 6, 8)
#: Whether the threshold is on the score itself or on its distance below the best leaf's score.
RELATIVE = (False, True)


def choose_set(scored: Sequence[Sequence[tuple[str, float, int, float]]], examples: Sequence[Any],
               depths: Sequence[int] = DEPTHS) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The (depth, mix, threshold, cap, relative) of :func:`~graphhop.retrieve.leaves_rerank.cut_set` with the best
    mean leaf-set F1 on ``examples`` (the carve; ties: the smaller depth and cap, the larger mix, an absolute
    threshold before a relative one, the larger threshold); also the whole grid."""
    from graphhop.train.leaves import leaf_f1

    grid = []
    for depth in depths:
        for mix in MIXES:
            for cap in CAPS:
                for t in THRESHOLDS:
                    for rel in RELATIVE:
                        f1 = [leaf_f1(cut_set(s, depth, t, cap, mix, rel), ex) for s, ex in zip(scored, examples)]
                        grid.append({"depth": depth, "mix": mix, "threshold": t, "max_leaves": cap, "relative": rel,
                                     "f1": float(np.mean(f1))})
    best = max(grid, key=lambda g: (round(g["f1"], 12), -g["depth"], -g["max_leaves"], g["mix"], not g["relative"],
                                    g["threshold"]))
    return dict(best), grid


def choose_rule(reranker: Any, examples: Sequence[Any]) -> dict[str, Any]:
    """Score the carve ``examples`` once at the deepest depth of :data:`DEPTHS`, choose the rule with
    :func:`choose_set`, apply it to ``reranker`` and store it beside its model for its index's encoder."""
    from graphhop.io import atomic_write_text
    from graphhop.retrieve.leaves_rerank import selection_path

    scored = reranker.score([ex.query for ex in examples], max(DEPTHS))
    best, grid = choose_set(scored, examples)
    by_mix = {str(m): round(max(g["f1"] for g in grid if g["mix"] == m), 4) for m in MIXES}
    by_kind = {k: round(max(g["f1"] for g in grid if g["relative"] == (k == "relative")), 4)
               for k in ("absolute", "relative")}
    rule = {**best, "chosen_on": f"EntailmentBank train carve ({len(examples)} trees)", "encoder": str(reranker.index.model),
            "best_f1_by_mix": by_mix, "best_f1_by_threshold_kind": by_kind}
    atomic_write_text(selection_path(reranker.model_dir, reranker.index), json.dumps(rule, indent=1) + "\n")
    reranker.rule = rule
    reranker.depth, reranker.threshold, reranker.max_leaves = rule["depth"], rule["threshold"], rule["max_leaves"]
    reranker.mix, reranker.relative = rule["mix"], rule["relative"]
    return rule


#: The fusion grid of :func:`choose_fusion`: the head's top candidates rescored each step, the cross-encoder's share.
FUSION_DEPTHS = (5, 10)
FUSION_MIXES = (0.0, 0.25, 0.5, 0.75, 1.0)


def choose_fusion(retriever: Any, examples: Sequence[Any], caps: Sequence[int] = (2, 3, 4, 5, 6, 8)) -> dict[str, Any]:
    """The (depth, mix, threshold, cap) of a :class:`~graphhop.retrieve.leaves_fused.FusedLeafRetriever` with the
    best mean leaf-set F1 on ``examples`` (the carve); one greedy run per (depth, mix) never stopped early gives every
    threshold and cap (the stop only cuts the same sequence). Ties: the smaller mix (mix 0: the head alone), depth
    and cap. Applied to ``retriever`` and stored beside its cross-encoder for its index's encoder."""
    from graphhop.io import atomic_write_text
    from graphhop.retrieve.leaves_fused import fusion_path
    from graphhop.train.leaves import THRESHOLDS as STOPS
    from graphhop.train.leaves import _cut, leaf_f1

    queries, grid = [ex.query for ex in examples], []
    retriever.threshold, retriever.max_leaves = -1.0, max(caps)
    for mix in FUSION_MIXES:
        for depth in FUSION_DEPTHS[:1] if mix == 0.0 else FUSION_DEPTHS:
            retriever.depth, retriever.mix = depth, mix
            runs = retriever.select(queries)
            for cap in caps:
                for t in STOPS:
                    f1 = [leaf_f1(_cut(hits, cap, t), ex) for (hits, _), ex in zip(runs, examples)]
                    grid.append({"depth": depth, "mix": mix, "threshold": float(t), "max_leaves": cap,
                                 "f1": float(np.mean(f1))})
    best = max(grid, key=lambda g: (round(g["f1"], 12), -g["mix"], -g["depth"], -g["max_leaves"], g["threshold"]))
    by_mix = {str(m): max((g for g in grid if g["mix"] == m), key=lambda g: g["f1"]) for m in FUSION_MIXES}
    rule = {**best, "chosen_on": f"EntailmentBank train carve ({len(examples)} trees)",
            "encoder": str(retriever.search_engine.index.model), "head": str(retriever.head.card.get("encoder", "")),
            "best_f1_by_mix": {m: round(g["f1"], 4) for m, g in by_mix.items()}, "best_rule_by_mix": by_mix,
            "pairs_scored": len(retriever.cache)}
    atomic_write_text(fusion_path(retriever.model_dir, retriever.search_engine.index), json.dumps(rule, indent=1) + "\n")
    retriever.rule = rule
    retriever.depth, retriever.mix, retriever.threshold, retriever.max_leaves = (
        rule["depth"], rule["mix"], rule["threshold"], rule["max_leaves"])
    return rule
