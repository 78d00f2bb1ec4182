"""DiFaR training on CPU: the bi-encoder (supervised DiFaR) and the cross-encoder reranker (DiFaR²).

Retriever (:func:`train_retriever`)
    Contrastive loss of DiFaR eq. 3: for a batch of ``(question, gold fact)`` pairs, softmax over
    the batch's facts (in-batch negatives) plus optional mined hard negatives, with cosine
    similarity times ``scale``. A column whose text is a gold fact of the row's question (another
    path of the same question, or the same fact for another question) is masked out, so a gold
    fact is never a negative.
Reranker (:func:`train_reranker`)
    A sequence classifier (one logit) on ``(question, fact)``, initialized from MiniLM or any HF
    name, binary cross-entropy on the gold facts (label 1) and negatives (label 0): the mining
    retriever's top-``mine_k`` non-gold facts ("the most confusing ones"), re-mined every
    ``remine_every`` epochs by re-scoring that pool with the current reranker, plus random facts.

Both evaluate on a held-out part (Hits@1 / MRR) before training and after every epoch, keep the
best checkpoint in ``out`` (written atomically: temp dir + rename, via
:func:`graphhop.io.atomic_dir`), and keep a resumable checkpoint (model, optimizer,
scheduler, position in the epoch, mined negatives) in ``<out>.ckpt``: rerunning the same command
continues from it. ``max_minutes`` stops a run cleanly (checkpoint saved) so it can be resumed.

Large KBs (MetaQA's 129k facts) are not re-encoded each epoch: mining and evaluation rank inside a
*pool* per KB of at most ``pool_size`` facts: every gold fact of the run's questions, every fact
touching a topic or gold entity (capped per entity), then random facts. Smaller KBs are ranked whole.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.train.data import DocGroup, TrainData, TrainExample
from graphhop.train.difar_state import CARD_NAME, TrainingRun, _fmt, _save_best, fresh_state, read_card

__all__ = [
    "TrainConfig",
    "CARD_NAME",
    "mine_negatives",
    "candidate_pools",
    "rank_metrics",
    "train_retriever",
    "train_reranker",
    "read_card",
    "baseline_verdict",
]


@dataclass
class TrainConfig:
    """Options shared by both trainers (see the CLI ``--help`` for each)."""

    model: str | None = None
    epochs: int = 2
    batch_size: int = 32
    lr: float = 2e-5
    warmup: float = 0.1
    weight_decay: float = 0.01
    max_length: int = 64
    hard_negatives: int = 1
    random_negatives: int = 1
    mine_k: int = 20
    remine_every: int = 1
    scale: float = 20.0
    max_steps: int | None = None
    max_minutes: float | None = None
    save_every: int = 200
    seed: int = 0
    threads: int | None = 2
    pool_size: int = 20000
    val_limit: int | None = 300
    miner: str | None = None
    eval_k: int = 20

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ----------------------------------------------------------------------------------------------
# pools, mining, metrics


def candidate_pools(data: Sequence[TrainData], pool_size: int, seed: int = 0, per_entity: int = 200) -> dict[str, list[int]]:
    """Positions of the facts to rank per KB group: all of them when the KB has at most
    ``pool_size`` facts; otherwise gold facts, facts touching topic/gold entities (``per_entity``
    each), then random facts up to ``pool_size``. Deterministic for a given ``seed``."""
    pools: dict[str, list[int]] = {}
    groups: dict[str, DocGroup] = {}
    members: dict[str, list[TrainExample]] = {}
    for d in data:
        groups.update(d.groups)
        for ex in d.examples:
            members.setdefault(ex.group, []).append(ex)
    for name, group in groups.items():
        if len(group) <= pool_size:
            pools[name] = list(range(len(group)))
            continue
        chosen: dict[int, None] = {}
        exs = members.get(name, [])
        for ex in exs:
            for d in ex.positives:
                chosen[group.position(d)] = None
        if group.store is not None:
            entities: dict[str, None] = {}
            for ex in exs:
                for d in ex.positives:
                    h, _, t = _triple_of(group, d)
                    entities[h] = None
                    entities[t] = None
            prefix = group.name + ":"
            for e in entities:
                facts = group.store.out_edges(e)[:per_entity] + group.store.in_edges(e)[:per_entity]
                for f in facts:
                    pos = group.position(prefix + f.id)
                    chosen.setdefault(pos, None)
                if len(chosen) >= pool_size:
                    break
        rng = random.Random(seed)
        while len(chosen) < pool_size:
            chosen.setdefault(rng.randrange(len(group)), None)
        pools[name] = sorted(chosen)
    return pools


def _triple_of(group: DocGroup, doc_id: str) -> tuple[str, str, str]:
    """The ``(head, relation, tail)`` of a doc id of ``group`` (needs ``group.store``)."""
    return _fact_index(group)[doc_id.split(":", 1)[1]]


_FACT_CACHE: dict[int, dict[str, tuple[str, str, str]]] = {}


def _fact_index(group: DocGroup) -> dict[str, tuple[str, str, str]]:
    key = id(group)
    if key not in _FACT_CACHE:
        _FACT_CACHE[key] = {f.id: f.triple for fs in group.store._out.values() for f in fs}  # noqa: SLF001
    return _FACT_CACHE[key]


def _is_gold(data: TrainData, ex: TrainExample, doc_id: str, gold_texts: set[str]) -> bool:
    return doc_id in ex.positives or data.text(ex.group, doc_id) in gold_texts


def mine_negatives(data: TrainData, rankings: Sequence[Sequence[str]], n: int) -> list[list[str]]:
    """For each example, the first ``n`` ids of its ranking that are not gold.

    Not gold means: not one of the example's gold ids, and not a fact with the same text as a gold
    fact (a duplicate copy of a gold triple is not a negative either).
    """
    out = []
    for ex, ranking in zip(data.examples, rankings):
        gold_texts = data.gold_texts(ex)
        negs = [d for d in ranking if not _is_gold(data, ex, d, gold_texts)]
        out.append(negs[:n])
    return out


def rank_metrics(data: TrainData, rankings: Sequence[Sequence[str]]) -> dict[str, float]:
    """Hits@1, Hits@10 and MRR (within the given rankings) against each example's gold ids."""
    if not data.examples:
        return {"Hits@1": 0.0, "Hits@10": 0.0, "MRR": 0.0}
    h1 = h10 = rr = 0.0
    for ex, ranking in zip(data.examples, rankings):
        gold = set(ex.positives)
        for rank, d in enumerate(ranking, start=1):
            if d in gold:
                rr += 1.0 / rank
                h1 += rank == 1
                h10 += rank <= 10
                break
    n = len(data.examples)
    return {"Hits@1": h1 / n, "Hits@10": h10 / n, "MRR": rr / n}


def _bi_rankings(encoder: Any, data: TrainData, pools: dict[str, list[int]], k: int, batch_size: int = 128) -> list[list[str]]:
    """Top-``k`` ids per example by cosine with ``encoder`` over the example's group pool."""
    import torch

    encoder.eval()
    out: list[list[str]] = [[] for _ in data.examples]
    by_group: dict[str, list[int]] = {}
    for i, ex in enumerate(data.examples):
        by_group.setdefault(ex.group, []).append(i)
    with torch.inference_mode():
        for name, idxs in by_group.items():
            group = data.groups[name]
            pool = pools[name]
            docs = encoder.encode([group.texts[p] for p in pool], batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
            qs = encoder.encode([data.examples[i].query for i in idxs], batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
            scores = qs @ docs.T
            kk = min(k, len(pool))
            top = np.argpartition(-scores, kk - 1, axis=1)[:, :kk]
            for row, i in enumerate(idxs):
                cand = top[row]
                # ties: higher score first, then KB order
                order = sorted(cand, key=lambda c: (-scores[row, c], pool[c]))
                out[i] = [group.ids[pool[c]] for c in order]
    return out


# ----------------------------------------------------------------------------------------------
# checkpoints




# ----------------------------------------------------------------------------------------------
# retriever


def _pair_list(data: TrainData, epoch: int, seed: int) -> list[tuple[int, str]]:
    pairs = [(i, d) for i, ex in enumerate(data.examples) for d in ex.train_positives]
    random.Random(seed * 1000 + epoch).shuffle(pairs)
    return pairs


def train_retriever(
    train: TrainData,
    val: TrainData,
    out: str | Path,
    cfg: TrainConfig = TrainConfig(),
    datasets: Sequence[str] | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Fine-tune a bi-encoder (DiFaR eq. 3); returns the model card (also written to ``out``)."""
    import torch
    import torch.nn.functional as F
    from sentence_transformers import SentenceTransformer

    from graphhop.models.encoder import resolve_model

    run = TrainingRun("retriever", train, val, out, cfg, datasets, progress, log)
    val = run.val
    model = SentenceTransformer(str(run.resumed[0]) if run.resumed else resolve_model(cfg.model), device="cpu")
    model.max_seq_length = cfg.max_length
    pools = candidate_pools([train, val], cfg.pool_size, cfg.seed)
    resumed = run.prepare(model, lambda path: model.save(str(path), create_model_card=False),
                          math.ceil(train.pairs() / cfg.batch_size))

    def evaluate(mine: bool) -> tuple[dict[str, float], list[list[str]] | None]:
        both = TrainData(train.groups, val.examples + (train.examples if mine else []))
        rankings = _bi_rankings(model, both, pools, max(cfg.eval_k, cfg.mine_k))
        metrics = rank_metrics(val, rankings[: len(val.examples)])
        negs = mine_negatives(train, rankings[len(val.examples) :], cfg.mine_k) if mine else None
        return metrics, negs

    if resumed:
        state, negatives = resumed
    else:
        metrics, negatives = evaluate(mine=cfg.hard_negatives > 0)
        negatives = negatives or [[] for _ in train.examples]
        state = fresh_state(metrics)
        log(f"epoch 0 (before training): val {_fmt(metrics)}")
        _save_best(run.out, run.save_model, run.card(state))

    def batches_of(epoch: int, rng: random.Random) -> list[list[tuple[int, str]]]:
        pairs = _pair_list(train, epoch, cfg.seed)
        return [pairs[i : i + cfg.batch_size] for i in range(0, len(pairs), cfg.batch_size)]

    def loss_of(batch: list[tuple[int, str]], rng: random.Random) -> Any:
        exs = [train.examples[i] for i, _ in batch]
        texts = [train.text(ex.group, d) for ex, (_, d) in zip(exs, batch)]
        for (i, _), ex in zip(batch, exs):
            pool = negatives[i]
            if pool and cfg.hard_negatives:
                texts += [train.text(ex.group, d) for d in rng.sample(pool, min(cfg.hard_negatives, len(pool)))]
        return _contrastive_loss(model, [ex.query for ex in exs], texts, [train.gold_texts(ex) for ex in exs], cfg.scale, F, torch)

    def end_of_epoch(due: bool) -> tuple[dict[str, float], bool]:
        nonlocal negatives
        metrics, mined = evaluate(mine=due and cfg.hard_negatives > 0)
        if mined is not None:
            negatives = mined
        return metrics, mined is not None

    return run.loop(state, batches_of, loss_of, end_of_epoch, lambda: negatives)


def _contrastive_loss(model: Any, queries: list[str], texts: list[str], gold: list[set[str]], scale: float, F: Any, torch: Any) -> Any:
    """InfoNCE over the batch's facts; row i's positive is column i; gold texts of row i masked."""
    q = model(model.preprocess(queries))["sentence_embedding"]
    d = model(model.preprocess(texts))["sentence_embedding"]
    q = F.normalize(q, dim=-1)
    d = F.normalize(d, dim=-1)
    sim = scale * q @ d.T
    mask = torch.zeros_like(sim, dtype=torch.bool)
    for i, g in enumerate(gold):
        for j, t in enumerate(texts):
            if j != i and t in g:
                mask[i, j] = True
    sim = sim.masked_fill(mask, float("-inf"))
    return F.cross_entropy(sim, torch.arange(len(queries)))


# ----------------------------------------------------------------------------------------------
# reranker


def _rerank_lists(model: Any, tokenizer: Any, data: TrainData, candidates: Sequence[Sequence[str]], cfg: TrainConfig) -> list[list[str]]:
    from graphhop.models.cross_encoder import score_pairs

    model.eval()
    qs, texts = [], []
    for ex, cands in zip(data.examples, candidates):
        for d in cands:
            qs.append(ex.query)
            texts.append(data.text(ex.group, d))
    scores = score_pairs(model, tokenizer, qs, texts, batch_size=128, max_length=cfg.max_length)
    out: list[list[str]] = []
    pos = 0
    for cands in candidates:
        s = scores[pos : pos + len(cands)]
        pos += len(cands)
        order = sorted(range(len(cands)), key=lambda j: (-s[j], j))
        out.append([cands[j] for j in order])
    return out


def _reranker_items(train: TrainData, negatives: Sequence[Sequence[str]], n_random: int,
                    rng: random.Random) -> list[tuple[int, str, float]]:
    """One epoch's ``(example, doc id, label)`` items: gold facts (1), the hard ``negatives`` and up to
    ``n_random`` random non-gold facts of the example's KB (0), shuffled."""
    items: list[tuple[int, str, float]] = []
    for i, ex in enumerate(train.examples):
        items += [(i, d, 1.0) for d in ex.train_positives]
        items += [(i, d, 0.0) for d in negatives[i]]
        gold_texts = train.gold_texts(ex)
        group = train.groups[ex.group]
        tries = picked = 0
        while picked < n_random and tries < 20:
            tries += 1
            d = group.ids[rng.randrange(len(group))]
            if not _is_gold(train, ex, d, gold_texts):
                items.append((i, d, 0.0))
                picked += 1
    rng.shuffle(items)
    return items


def _miner_candidates(train: TrainData, val: TrainData, cfg: TrainConfig) -> tuple[list[list[str]], list[list[str]]]:
    """With the miner bi-encoder: each validation question's top-``eval_k`` candidates, and each
    training question's top-``mine_k`` non-gold facts (the pool hard negatives come from)."""
    from graphhop.models.encoder import load_encoder

    pools = candidate_pools([train, val], cfg.pool_size, cfg.seed)
    both = TrainData(train.groups, val.examples + train.examples)
    rankings = _bi_rankings(load_encoder(cfg.miner), both, pools, max(cfg.mine_k, cfg.eval_k))
    return [r[: cfg.eval_k] for r in rankings[: len(val.examples)]], mine_negatives(train, rankings[len(val.examples) :], cfg.mine_k)


def train_reranker(
    train: TrainData,
    val: TrainData,
    out: str | Path,
    cfg: TrainConfig = TrainConfig(lr=3e-5),
    datasets: Sequence[str] | None = None,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train a cross-encoder reranker (DiFaR²); returns the model card (also written to ``out``).

    ``cfg.miner`` is the bi-encoder whose top-``mine_k`` supplies the candidates (None = MiniLM,
    or a ``train retriever`` output). Validation reranks each held-out question's top-``eval_k``
    candidates; epoch 0 is the miner's own order.
    """
    import torch

    from graphhop.models.encoder import canonical_model_name
    from graphhop.models.cross_encoder import load_sequence_classifier

    run = TrainingRun("reranker", train, val, out, cfg, datasets, progress, log)
    val = run.val
    model, tokenizer = load_sequence_classifier(run.resumed[0] if run.resumed else cfg.model)
    total_per_epoch = sum(len(ex.train_positives) + cfg.hard_negatives + cfg.random_negatives for ex in train.examples)

    def save_model(path: Path) -> None:
        model.save_pretrained(str(path))
        tokenizer.save_pretrained(str(path))

    resumed = run.prepare(model, save_model, math.ceil(total_per_epoch / cfg.batch_size))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    if resumed:
        state, saved = resumed
        pool_lists, val_cands, negatives = saved["pool"], saved["val"], saved["negatives"]
    else:
        val_cands, pool_lists = _miner_candidates(train, val, cfg)
        negatives = [p[: cfg.hard_negatives] for p in pool_lists]
        miner_metrics = rank_metrics(val, val_cands)
        # a reranker is kept only if it beats the miner's own order
        state = fresh_state(miner_metrics, {"ranker": "miner (first stage only)"}, miner=canonical_model_name(cfg.miner))
        log(f"epoch 0 (miner's order, top-{cfg.eval_k}): val {_fmt(miner_metrics)}")

    def batches_of(epoch: int, rng: random.Random) -> list[list[tuple[int, str, float]]]:
        items = _reranker_items(train, negatives, cfg.random_negatives, rng)
        return [items[j : j + cfg.batch_size] for j in range(0, len(items), cfg.batch_size)]

    def loss_of(batch: list[tuple[int, str, float]], rng: random.Random) -> Any:
        enc = tokenizer([train.examples[i].query for i, _, _ in batch],
                        [train.text(train.examples[i].group, d) for i, d, _ in batch],
                        padding=True, truncation=True, max_length=cfg.max_length, return_tensors="pt")
        return loss_fn(model(**enc).logits[:, 0], torch.tensor([y for _, _, y in batch]))

    def end_of_epoch(due: bool) -> tuple[dict[str, float], bool]:
        nonlocal negatives
        metrics = rank_metrics(val, _rerank_lists(model, tokenizer, val, val_cands, cfg))
        if not (due and cfg.hard_negatives):
            return metrics, False
        # re-mine: the current reranker's highest-scored non-gold facts of the miner's pool
        negatives = [r[: cfg.hard_negatives] for r in _rerank_lists(model, tokenizer, train, pool_lists, cfg)]
        return metrics, True

    return run.loop(state, batches_of, loss_of, end_of_epoch,
                    lambda: {"pool": pool_lists, "val": val_cands, "negatives": negatives})


def baseline_verdict(card: dict[str, Any], out: str | Path) -> str | None:
    """``None`` when training beat the untrained pipeline on validation Hits@1, else one line saying
    so, with the validation figures before and after (and what ``out`` holds)."""
    history = card.get("history") or []
    if not history or card.get("best_epoch") not in (0, None):
        return None
    before = history[0].get("Hits@1", 0.0)
    trained = [h.get("Hits@1", 0.0) for h in history[1:]]
    after = f"best after training {max(trained):.3f}" if trained else "no epoch finished"
    kept = ("no reranker was saved: keep the first stage alone" if card["kind"].endswith("reranker")
            else f"{out} holds the untrained model")
    return (f"training did not beat the untrained pipeline on the validation split (Hits@1 {before:.3f} before, "
            f"{after}); {kept}")


