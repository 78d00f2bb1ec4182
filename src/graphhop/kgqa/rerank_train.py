"""Training the chain reranker (:mod:`graphhop.kgqa.rerank`): one list per question, the gold chain among the scorer's best.

Lists (:func:`kb_lists`, :func:`benchmark_lists`): a question's masked text, the verbalized chains of the
pipeline's ``k`` best paths for the linked topic (what the reranker will see), and which of them is the gold
relation chain. Hand-written KBs (``kb.tsv`` + ``questions.jsonl``): every reading ``ask`` makes is recorded and
the first whose mention holds the gold chain's start is kept; the gold chain is the gold facts' relations in order
of first use, walked from that start (:func:`gold_chain`); when it is scored but not among the ``k`` best it
replaces the ``k``-th. Benchmark training questions (:data:`graphhop.kgqa.train.TRAIN_SETS`: train parts, the
fit half of MetaQA dev) give ``per_set`` questions each, by even stride.

Training (:func:`fit_reranker`): the bundled MiniLM cross-encoder, its lower layers frozen
(:func:`graphhop.train.leaf_reranker.freeze_below`), their outputs computed once per list and cached, so a step
runs only the top ``layers``; :func:`~graphhop.train.leaf_reranker.listwise_loss` per list; AdamW with warm-up.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kgqa.rerank import RERANK_K, RERANK_W, verbalize_chain

__all__ = ["gold_chain", "reading_gold", "gold_readings", "kb_lists", "benchmark_lists", "fit_reranker", "train_chain_reranker"]

Steps = tuple[tuple[int, bool], ...]


def gold_chain(store: KGStore, facts: Sequence[Sequence[str]], start: int) -> Steps | None:
    """The signed relation path the gold ``facts`` walk from entity ``start`` (relations in order of first use;
    a relation's facts fanning out from the same set are one step), or None when they do not chain from it."""
    names, rels = store.entities, []
    for _, r, _ in facts:
        if r not in rels:
            rels.append(r)
    cur, steps = {names[start]}, []
    for r in rels:
        rid = store.relation_id.get(r)
        fs = [f for f in facts if f[1] == r]
        fwd, bwd = {t for h, _, t in fs if h in cur}, {h for h, _, t in fs if t in cur}
        if rid is None or not (fwd or bwd):
            return None
        steps.append((rid, bool(fwd)))
        cur = fwd or bwd
    return tuple(steps) or None


def _list_of(kgqa: Any, reading: Any, steps: Steps, k: int) -> dict[str, Any] | None:
    """A training list from one reading: the ``k`` best paths' texts, gold index (gold swapped in when below ``k``)."""
    paths = reading.paths
    at = next((i for i, p in enumerate(paths) if p.steps == steps), None)
    if at is None or len(paths) < 2:
        return None
    top = list(paths[:k])
    if at >= k:
        top[-1], at = paths[at], len(top) - 1
    return {"text": reading.text, "chains": [verbalize_chain(kgqa.store, p) for p in top], "gold": at,
            "rank": int(next(i for i, p in enumerate(paths) if p.steps == steps)), "hops": len(steps)}


def kb_lists(folder: str | Path, k: int = 16) -> list[dict[str, Any]]:
    """Training lists of one hand-written KB folder (see the module docstring)."""
    from graphhop.kb.loaders import iter_triples
    from graphhop.kgqa.evaluate import load_regression
    from graphhop.kgqa.pipeline import KGQA

    kb, examples = load_regression(folder)
    kgqa = KGQA(KGStore.from_facts(iter_triples(kb)), abstain=False)
    out = []
    for ex, reading, steps in gold_readings(kgqa, examples):
        row = _list_of(kgqa, reading, steps, k)
        if row is not None:
            out.append({**row, "kb": Path(folder).name, "id": ex.id, "qtype": ex.qtype})
    return out


def gold_readings(kgqa: Any, examples: Sequence[Any]) -> Iterator[tuple[Any, Any, Steps]]:
    """Per example, ``(example, reading, gold steps)`` of the first reading ``kgqa.ask`` makes whose paths hold the
    gold chain (:func:`reading_gold`); examples with none are skipped."""
    seen: list[Any] = []
    plain_read = kgqa.read

    def recording(*args: Any, **kw: Any) -> Any:
        got = plain_read(*args, **kw)
        seen.append(got)
        return got

    kgqa.read = recording  # type: ignore[method-assign]
    try:
        for ex in examples:
            seen.clear()
            kgqa.ask(ex.question)
            for reading in list(seen):
                steps = reading_gold(kgqa.store, reading.mention.entities, ex.gold_facts)
                if steps and len(reading.paths) >= 2 and any(p.steps == steps for p in reading.paths):
                    yield ex, reading, steps
                    break
    finally:
        del kgqa.read


def reading_gold(store: KGStore, topic: Sequence[int], facts: Sequence[Sequence[str]]) -> Steps | None:
    """The gold chain (:func:`gold_chain`) from the first of a reading's ``topic`` entities that the first gold fact
    names, or None."""
    starts = [e for e in topic if any(store.entities[e] in (f[0], f[2]) for f in facts[:1])]
    return next((s for s in (gold_chain(store, facts, e) for e in starts) if s), None)


def benchmark_lists(sets: Sequence[tuple[str, str]] | None = None, per_set: int = 40, k: int = 16,
                    root: str | Path | None = None) -> list[dict[str, Any]]:
    """Training lists of ``per_set`` questions (even stride) of each benchmark training set (MetaQA: fit half)."""
    from graphhop.datasets.kgqa import DATASETS, kb_path, load_dataset
    from graphhop.kb.loaders import iter_triples
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.kgqa.train import TRAIN_SETS, _gold_chains, metaqa_part

    readers: dict[str, Any] = {}
    out = []
    for name, split in sets or TRAIN_SETS:
        spec = DATASETS[name]
        if spec.kb not in readers:
            readers[spec.kb] = KGQA(KGStore.from_facts(iter_triples(kb_path(name, root))), abstain=False)
        kgqa = readers[spec.kb]
        data = load_dataset(name, split, root)
        if spec.family == "metaqa":
            data = [ex for ex in data if metaqa_part(ex.question) == "fit"]
        stride = max(1.0, len(data) / per_set)
        for ex in [data[int(i * stride)] for i in range(min(per_set, len(data)))]:
            mentions = kgqa.linker.link(ex.question)
            for topic, steps in _gold_chains(ex, kgqa.store, spec.family)[:1]:
                tid = kgqa.store.entity_id.get(topic)
                mention = next((m for m in mentions if tid in m.entities), None)
                row = None if mention is None else _list_of(kgqa, kgqa.read(ex.question, mention), steps, k)
                if row is not None:
                    out.append({**row, "kb": name, "id": ex.id, "qtype": "benchmark"})
    return out


def _lower_outputs(model: Any, tokenizer: Any, rows: Sequence[dict[str, Any]], layers: int,
                   max_length: int) -> list[tuple[Any, Any]]:
    """Per list, the frozen part's output (hidden states after the lower layers, float16) and the attention mask."""
    import torch

    bert = model.base_model
    keep = bert.encoder.layer
    bert.encoder.layer = keep[: len(keep) - layers]
    out = []
    try:
        with torch.inference_mode():
            for row in rows:
                enc = tokenizer([row["text"]] * len(row["chains"]), row["chains"], padding=True, truncation=True,
                                max_length=max_length, return_tensors="pt")
                hidden = bert(**enc).last_hidden_state
                out.append((hidden.to(torch.float16), enc["attention_mask"]))
    finally:
        bert.encoder.layer = keep
    return out


def _top_logits(model: Any, hidden: Any, mask: Any, layers: int) -> Any:
    """Logits of cached lower-layer outputs through the trained top ``layers``, the pooler and the classifier."""
    bert = model.base_model
    hidden = hidden.float()
    attn = bert._create_attention_masks(mask, None, hidden, None, None)[0]
    for layer in bert.encoder.layer[len(bert.encoder.layer) - layers:]:
        hidden = layer(hidden, attn)
    return model.classifier(model.dropout(bert.pooler(hidden)))[:, 0]


def fit_reranker(rows: Sequence[dict[str, Any]], out: str | Path, epochs: int = 2, lr: float = 1e-4, layers: int = 2,
                 max_length: int = 64, batch: int = 8, seed: int = 0, k: int = RERANK_K, w: float = RERANK_W,
                 log: Callable[[str], None] | None = None, every_epoch: bool = False) -> dict[str, Any]:
    """Fine-tune the bundled MiniLM cross-encoder on ``rows`` (lists) and save its top layers to ``out`` (with
    ``every_epoch``, also each epoch's to ``out/epoch<n>``, for choosing the epoch count)."""
    import torch

    from graphhop.models.cross_encoder import load_sequence_classifier
    from graphhop.models.top_layers import save_top_layers
    from graphhop.train.common import adamw_with_warmup
    from graphhop.train.leaf_reranker import freeze_below, listwise_loss

    torch.manual_seed(seed)
    t0 = time.perf_counter()
    model, tokenizer = load_sequence_classifier(None)
    freeze_below(model, layers)
    cached = _lower_outputs(model, tokenizer, rows, layers, max_length)
    t_cache = time.perf_counter() - t0
    order = list(range(len(rows)))
    steps = epochs * ((len(order) + batch - 1) // batch)
    optim, sched = adamw_with_warmup(model, lr, 0.01, 0.1, steps)
    model.train()
    history, rng = [], random.Random(seed)
    for epoch in range(epochs):
        rng.shuffle(order)
        total = 0.0
        for i in range(0, len(order), batch):
            part = order[i:i + batch]
            logits = torch.cat([_top_logits(model, *cached[j], layers) for j in part])
            labels = torch.cat([torch.as_tensor(np.isin(np.arange(len(rows[j]["chains"])), rows[j]["gold"]),
                                                dtype=torch.float32) for j in part])  # gold: one index or several
            loss = listwise_loss(logits, labels, [len(rows[j]["chains"]) for j in part], bce_weight=0.5)
            optim.zero_grad()
            loss.backward()
            optim.step()
            sched.step()
            total += loss.item() * len(part)
        history.append(round(total / max(1, len(order)), 4))
        if log:
            log(f"epoch {epoch + 1}: loss {history[-1]} ({time.perf_counter() - t0:.0f}s)")
        if every_epoch:
            save_top_layers(model, Path(out) / f"epoch{epoch + 1}", layers, {"k": k, "w": w, "max_length": max_length})
    model.eval()
    card = {"k": k, "w": w, "max_length": max_length, "epochs": epochs, "lr": lr, "lists": len(rows),
            "pairs": sum(len(r["chains"]) for r in rows), "loss": history, "seed": seed,
            "cache_s": round(t_cache, 1), "train_s": round(time.perf_counter() - t0, 1)}
    save_top_layers(model, out, layers, card)
    return card


def train_chain_reranker(out: str | Path, folders: Sequence[str | Path], per_set: int = 40, list_k: int = 16,
                         root: str | Path | None = None, log: Callable[[str], None] | None = None,
                         **fit: Any) -> dict[str, Any]:
    """Collect the lists of the hand-written KB ``folders`` and ``per_set`` benchmark training questions per set, and
    :func:`fit_reranker` on them (``graphhop train kgqa-reranker``)."""
    rows = [r for f in folders for r in kb_lists(f, list_k)]
    if per_set > 0:
        rows += benchmark_lists(None, per_set, list_k, root)
    if log:
        log(f"{len(rows)} lists, {sum(len(r['chains']) for r in rows)} pairs")
    return fit_reranker(rows, out, log=log, **fit)
