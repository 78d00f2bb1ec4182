"""Fine-tuning the MiniLM bi-encoder on EntailmentBank train trees (hypothesis + question -> its leaves).

The frozen MiniLM puts only about half of a tree's leaves in the dense top 10 of the hypothesis: many
leaves are general facts ("a constellation contains stars") that share little with the hypothesis. This
module fine-tunes the encoder itself on the fit part of the train trees (the selection carve of
:func:`graphhop.train.leaves.carve` is held out):

- a batch is ``batch`` trees; its documents are the gold leaves of those trees plus ``hard`` hard
  negatives per tree (non-gold sentences from the frozen encoder's dense top ``hard_depth`` of the query,
  drawn with a seeded generator);
- the loss is the multiple-negatives ranking loss (in-batch negatives, scale 20) with several positives:
  each (query, gold leaf) pair is scored against the query's non-gold documents only, so a tree's other
  leaves are never negatives of it (nor is a sentence gold for two trees in the batch);
- AdamW, linear warm-up then decay, a seeded order (the shared loop of :mod:`graphhop.train.common`);
  deterministic on one thread.

The result is a sentence-transformers directory (about 90 MB: too large to track). :func:`ensure_leaf_encoder`
trains it once at setup and caches it under ``$GRAPHHOP_CACHE/encoders/eb-leaves-<key>``, where the key
hashes the recipe and the training file, so a changed recipe never reuses a stale model.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.core import InputError

__all__ = ["EncoderRecipe", "fine_tune_leaf_encoder", "leaf_encoder_dir", "ensure_leaf_encoder", "batch_documents", "recipe_cache_dir"]


@dataclass(frozen=True)
class EncoderRecipe:
    """What the fine-tuning does (hashed into the cache key)."""

    epochs: int = 2
    batch: int = 32
    hard: int = 1
    hard_depth: int = 30
    lr: float = 5e-5
    train_layers: int = 2
    warmup: float = 0.1
    scale: float = 20.0
    max_seq_length: int = 64
    seed: int = 13
    every: int = 10
    #: 2: :mod:`graphhop.train.common`'s loop (session 5: weight decay 0.01 but none on biases and LayerNorm,
    #: a ``random.Random`` order). 1: session 4's own loop, which can no longer be trained; the field was not
    #: hashed then, so loop 1's key is the session-4 key and only its cached model can be found.
    loop: int = 2


def batch_documents(trees: Sequence[int], golds: Sequence[Sequence[int]], negatives: Sequence[Sequence[int]], hard: int,
                    rng: np.random.Generator) -> list[int]:
    """A batch's document rows: its trees' gold rows, then ``hard`` negatives per tree (never a batch document)."""
    docs = list(dict.fromkeys(r for i in trees for r in golds[i]))
    for i in trees:
        pool = [r for r in negatives[i] if r not in docs]
        if pool and hard:
            docs.extend(int(r) for r in rng.choice(pool, size=min(hard, len(pool)), replace=False))
    return docs


def _loss(qv: Any, dv: Any, gold_mask: Any, scale: float) -> Any:
    """Multiple-negatives ranking loss with several positives (see the module doc)."""
    import torch

    scores = scale * qv @ dv.T
    neg = torch.logsumexp(scores.masked_fill(gold_mask, float("-inf")), dim=1, keepdim=True)
    pos_lp = scores - torch.logaddexp(scores, neg)
    return -(pos_lp[gold_mask]).mean()


def fine_tune_leaf_encoder(queries: Sequence[str], golds: Sequence[Sequence[int]], corpus: Sequence[str],
                           negatives: Sequence[Sequence[int]], out: str | Path, recipe: EncoderRecipe = EncoderRecipe(),
                           base: str | None = None, progress: bool = True) -> dict[str, Any]:
    """Fine-tune ``base`` (default MiniLM) so ``queries[i]`` retrieves ``corpus[golds[i]]``; save to ``out``.

    The loop is :func:`graphhop.train.common.run_epoch` over the trees with a leaf gold (``batch`` trees a step,
    a seeded order), AdamW with warm-up from :func:`~graphhop.train.common.adamw_with_warmup` (weight decay 0.01,
    none on biases and LayerNorm)."""
    import random

    import torch
    from sentence_transformers import SentenceTransformer
    from tqdm import tqdm

    from graphhop.models.encoder import _quiet_transformers, resolve_model
    from graphhop.train.common import adamw_with_warmup, freeze_lower_layers, run_epoch, save_model_dir

    t0 = time.perf_counter()
    torch.manual_seed(recipe.seed)
    rng = np.random.default_rng(recipe.seed)
    _quiet_transformers()
    model = SentenceTransformer(resolve_model(base), device="cpu")
    model.max_seq_length = recipe.max_seq_length
    bert = model[0].auto_model  # only the top layers trained: about half a step's cost, less drift on 1,200 trees
    bert.requires_grad_(False)
    freeze_lower_layers(bert, recipe.train_layers)
    usable = [i for i, g in enumerate(golds) if g]
    gold_sets = [set(g) for g in golds]

    def loss_fn(trees: list[int]) -> Any:
        docs = batch_documents(trees, golds, negatives, recipe.hard, rng)
        qv = model(model.preprocess([queries[i] for i in trees]))["sentence_embedding"]
        dv = model(model.preprocess([corpus[r] for r in docs]))["sentence_embedding"]
        qv, dv = torch.nn.functional.normalize(qv, dim=-1), torch.nn.functional.normalize(dv, dim=-1)
        mask = torch.tensor([[r in gold_sets[i] for r in docs] for i in trees])
        return _loss(qv, dv, mask, recipe.scale)

    total = recipe.epochs * ((len(usable) + recipe.batch - 1) // recipe.batch)
    opt, sched = adamw_with_warmup(model, recipe.lr, 0.01, recipe.warmup, total)
    order, steps, losses, shuffle = list(range(len(usable))), 0, [], random.Random(recipe.seed)
    bar = tqdm(total=total, desc="fine-tune leaf encoder", disable=not progress)
    for epoch in range(1, recipe.epochs + 1):
        steps, loss, _ = run_epoch(model, loss_fn, usable, order, recipe.batch, opt, sched, steps, total, shuffle, bar, epoch)
        losses.append(round(loss, 4))
    bar.close()
    card = {"recipe": asdict(recipe), "steps": steps, "trees": len(usable), "epoch_loss": losses,
            "loop": "train.common.run_epoch", "seconds": round(time.perf_counter() - t0, 1),
            "threads": torch.get_num_threads()}
    save_model_dir(lambda tmp: model.save(str(tmp)), out, card)
    return card


def recipe_cache_dir(data_root: str | Path, recipe: Any, prefix: str, fields: dict[str, Any] | None = None) -> Path:
    """``$GRAPHHOP_CACHE/encoders/<prefix>-<key>``: the key hashes the ``recipe`` (a dataclass; or its ``fields``
    as given) and the size of ``data_root``'s EntailmentBank train trees, so a changed recipe or file never reuses
    a stale model."""
    from graphhop.models.backends import cache_root

    train = Path(data_root) / "entailmentbank" / "angles" / "task_1" / "train.jsonl"
    if not train.exists():
        raise InputError(f"{train}: no such file (EntailmentBank train trees)")
    fields = dict(asdict(recipe) if fields is None else fields)
    if fields.get("loop") == 1:  # session 4's key had no loop field
        del fields["loop"]
    digest = hashlib.sha1(json.dumps(fields, sort_keys=True).encode())
    digest.update(str(train.stat().st_size).encode())
    return cache_root() / f"{prefix}-{digest.hexdigest()[:10]}"


def leaf_encoder_dir(data_root: str | Path, recipe: EncoderRecipe = EncoderRecipe()) -> Path:
    """The cache directory of the encoder this ``recipe`` trains on ``data_root``'s train trees."""
    return recipe_cache_dir(data_root, recipe, "eb-leaves")


def ensure_leaf_encoder(index: Any, data_root: str | Path, recipe: EncoderRecipe = EncoderRecipe(),
                        progress: bool = True) -> Path:
    """The fine-tuned encoder's directory, training it first (train trees minus the carve) if not cached."""
    from graphhop.retrieve.leaves import LeafSearch
    from graphhop.train.leaves import carve

    out = leaf_encoder_dir(data_root, recipe)
    if (out / "graphhop_card.json").exists():
        return out
    if recipe.loop != 2:
        raise InputError(f"leaf encoder loop {recipe.loop}: only loop 2 (train.common's) can be trained; "
                         f"no cached model at {out}")
    fit, _ = carve(index, data_root, recipe.every)
    search = LeafSearch(index, recipe.hard_depth)
    queries = [ex.query for ex in fit]
    golds = [[search.pos[g] for g in ex.gold if g in search.pos] for ex in fit]
    qvecs = search.encode(queries)
    negatives = [[int(r) for r in np.argsort(-(search.vecs @ qv))[: recipe.hard_depth] if r not in set(g)]
                 for qv, g in zip(qvecs, golds)]
    corpus = [d.text for d in index.docs.docs]
    fine_tune_leaf_encoder(queries, golds, corpus, negatives, out, recipe, progress=progress)
    return out


def open_leaf_index(data_root: str | Path, index_dir: str | Path, fine_tuned: bool = True, train: bool = False,
                    recipe: EncoderRecipe = EncoderRecipe(), progress: bool = False) -> Any:
    """The WorldTree index to retrieve leaves from (its leaf head: :func:`graphhop.retrieve.leaves.default_head`).

    With ``fine_tuned``: the index encoded by the fine-tuned encoder (built once under ``index_dir``); the
    encoder is trained first when ``train`` is set and it is not cached. Without a cached encoder (and no
    ``train``) it warns and uses the cached session-4 encoder (``loop=1``) if there is one, else the frozen
    MiniLM's index (whose head is the shipped ``eb-leaves``), so nothing breaks where setup did not train it."""
    import warnings

    from graphhop.datasets.textqa import iter_worldtree
    from graphhop.eval.golden import open_or_build_index
    from graphhop.index.cache import open_or_build
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import build_index, documents_from_passages

    corpus = Path(data_root) / "entailmentbank" / "worldtree_corpus_sentences_extended.json"
    base = open_or_build_index("entailmentbank", corpus, Path(index_dir), progress=progress)
    if not fine_tuned:
        return base
    enc = leaf_encoder_dir(data_root, recipe)
    older = leaf_encoder_dir(data_root, replace(recipe, loop=1))
    if not train and not (enc / "graphhop_card.json").exists() and (older / "graphhop_card.json").exists():
        warnings.warn(f"no leaf encoder for the current recipe at {enc}: using the cached session-4 encoder {older} "
                      "(`graphhop train leaf-encoder` trains the current one)", stacklevel=2)
        enc = older
    if not (enc / "graphhop_card.json").exists():
        if not train:
            warnings.warn(f"no fine-tuned leaf encoder at {enc} (run `graphhop train leaf-encoder` or `make eb-encoder`, "
                          "a few CPU minutes): using the frozen MiniLM and the shipped leaf head", stacklevel=2)
            return base
        ensure_leaf_encoder(base, data_root, recipe, progress)
    path = Path(index_dir) / f"entailmentbank-{enc.name}"

    def build() -> Any:
        return build_index(documents_from_passages(iter_worldtree(corpus)), path, dense=DenseOptions("flat"),
                           model=str(enc), overwrite=True, progress=progress, sources=[str(corpus)])

    return open_or_build(path, build, accept=lambda index: index.has_sparse and index.has_dense)
