"""Training and held-out evaluation of the type head (:mod:`graphhop.kgqa.type_head`).

Data: entities of the training KBs with the type nouns of their relation roles
(:func:`~graphhop.kgqa.answer_types.entity_nouns`: the tail of ``nationality`` is a country) and the
entities of the hand-written schemas (:mod:`graphhop.kgqa.schemas`: every entity's type is known), each
with positives (its nouns) and negatives (nouns of other roles of the same KB). Three groups by KB, so that
the chosen epoch and the reported figure are both on relations and nouns the head never trained on:

* ``train``: PathQuestion's and PQL's KBs (people, places, Freebase music and film types) and the
  ``kitchens``, ``expeditions``, ``airlines`` schemas;
* ``select`` (chooses the epoch): WorldCup2014's KB (players, clubs) and the ``perfumery`` schema;
* ``report`` (never chooses): MetaQA's KB (films, directors, genres) and the ``vineyards`` schema.

The measure is the one :func:`~graphhop.kgqa.end_type.retype` needs: for a noun, an entity of that type
against one that is not (same KB), is the type's entity fit higher? (pairwise accuracy; ties count half.)
The zero-shot :meth:`~graphhop.kgqa.end_type.EndTyper.entity_fit` is measured on the same pairs.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kgqa.type_head import MAX_RELATIONS, TypeHead, KBTypeFit, entity_relations, relation_text

__all__ = ["GROUPS", "TypeKB", "load_groups", "pairs", "pair_accuracy", "head_accuracy", "cosine_accuracy", "train_type_head"]

#: KB (a dataset of :data:`graphhop.datasets.kgqa.DATASETS` or ``schema:<name>``) -> group.
GROUPS: dict[str, str] = {
    "pq-2h": "train", "pq-3h": "train", "pql-2h": "train", "pql-3h": "train",
    "schema:kitchens": "train", "schema:expeditions": "train", "schema:airlines": "train",
    "wc-p1": "select", "schema:perfumery": "select",
    "metaqa-1h": "report", "schema:vineyards": "report",
}


@dataclass
class TypeKB:
    """One KB's typed entities: ``items`` = (entity id, its nouns), ``inventory`` = every noun of the KB."""

    name: str
    store: KGStore
    items: list[tuple[int, frozenset[str]]]
    inventory: list[str] = field(default_factory=list)


def _is_literal(name: str) -> bool:
    from graphhop.read.numbers import is_number

    return is_number(name.replace("_", " "))


def _schema_kb(name: str, seed: int = 0) -> TypeKB:
    """A random KB of one hand-written schema; each entity's noun is its schema type."""
    from graphhop.kgqa.schemas import SCHEMAS, schema_store

    schema = next(s for s in SCHEMAS if s.name == name)
    store = schema_store(schema, seed)
    types: dict[int, set[str]] = {}
    rel_ids = {r: i for i, r in enumerate(store.relations)}
    for rel in schema.rels:
        rid = rel_ids.get(rel.name)
        if rid is None:
            continue
        edges = np.nonzero(store.rels == rid)[0]
        for h in store.heads[edges].tolist():
            types.setdefault(h, set()).add(rel.head)
        for t in store.tails[edges].tolist():
            types.setdefault(t, set()).add(rel.tail)
    items = [(e, frozenset(ns)) for e, ns in sorted(types.items()) if not _is_literal(store.entities[e])]
    return TypeKB(f"schema:{name}" + (f"#{seed}" if seed else ""), store, items)


def _dataset_kb(name: str, limit: int, root: str | Path | None = None) -> TypeKB:
    """A training KB with up to ``limit`` entities (even stride) typed by their relation roles."""
    from graphhop.datasets.kgqa import kb_path
    from graphhop.kb.loaders import iter_triples
    from graphhop.kgqa.answer_types import entity_nouns

    store = KGStore.from_facts(iter_triples(kb_path(name, root)))
    items = []
    for e in range(len(store.entities)):
        if _is_literal(store.entities[e]):
            continue
        nouns = frozenset(n for n in entity_nouns(store, e) if n.isalpha())
        if nouns:
            items.append((e, nouns))
    stride = max(1, len(items) // limit)
    return TypeKB(name, store, items[::stride][:limit])


def load_groups(limit: int = 1500, root: str | Path | None = None, kbs: dict[str, str] | None = None,
                schema_seeds: int = 4) -> dict[str, list[TypeKB]]:
    """Every KB of :data:`GROUPS` (or ``kbs``), by group, with its noun inventory (nouns of 3+ entities);
    a training schema is drawn ``schema_seeds`` times (other names and facts, the same relations)."""
    out: dict[str, list[TypeKB]] = {}
    for name, group in (kbs or GROUPS).items():
        for seed in range(schema_seeds if group == "train" and name.startswith("schema:") else 1):
            out.setdefault(group, []).append(_typed_kb(name, limit, root, seed))
    return out


def _typed_kb(name: str, limit: int, root: str | Path | None, seed: int) -> TypeKB:
    """One KB of :func:`load_groups`, its inventory and items restricted to nouns of 3+ entities."""
    kb = _schema_kb(name.split(":", 1)[1], seed) if name.startswith("schema:") else _dataset_kb(name, limit, root)
    counts: dict[str, int] = {}
    for _, nouns in kb.items:
        for n in nouns:
            counts[n] = counts.get(n, 0) + 1
    kb.inventory = sorted(n for n, c in counts.items() if c >= 3)
    keep = set(kb.inventory)
    kb.items = [(e, ns & keep) for e, ns in kb.items if ns & keep]
    return kb


def pairs(kb: TypeKB, n: int, seed: int = 0) -> list[tuple[str, int, int]]:
    """``n`` (noun, entity of that type, entity not of it) triples of one KB, nouns taken in turn."""
    rng = random.Random(f"{kb.name}:{seed}")
    by_noun = {noun: ([e for e, ns in kb.items if noun in ns], [e for e, ns in kb.items if noun not in ns])
               for noun in kb.inventory}
    nouns = [noun for noun, (pos, neg) in by_noun.items() if pos and neg]
    out = []
    for i in range(n if nouns else 0):
        noun = nouns[i % len(nouns)]
        pos, neg = by_noun[noun]
        out.append((noun, rng.choice(pos), rng.choice(neg)))
    return out


def pair_accuracy(score: Callable[[str, int], float], triples: Sequence[tuple[str, int, int]]) -> float:
    """Share of (noun, pos, neg) triples where ``score(noun, pos) > score(noun, neg)`` (ties count half)."""
    if not triples:
        return 0.0
    wins = 0.0
    for noun, pos, neg in triples:
        a, b = score(noun, pos), score(noun, neg)
        wins += 1.0 if a > b + 1e-9 else 0.5 if abs(a - b) <= 1e-9 else 0.0
    return wins / len(triples)


class _Tensors:
    """Training examples as arrays: noun vectors, relation vectors (padded), name vectors, labels."""

    def __init__(self, kbs: Sequence[TypeKB], encode: Callable[[Sequence[str]], np.ndarray], rng: random.Random,
                 per_entity: int = 3) -> None:
        rows: list[tuple[str, list[tuple[str, bool]], str, float]] = []
        for kb in kbs:
            for e, nouns in kb.items:
                rels = [(relation_text(kb.store.relations[r]), f) for r, f in entity_relations(kb.store, e)]
                name = kb.store.entities[e].replace("_", " ")
                others = [n for n in kb.inventory if n not in nouns]
                for n in rng.sample(sorted(nouns), min(per_entity, len(nouns))):
                    rows.append((n, rels, name, 1.0))
                for n in rng.sample(others, min(per_entity, len(others))):
                    rows.append((n, rels, name, 0.0))
        texts = sorted({r[0] for r in rows} | {t for r in rows for t, _ in r[1]} | {r[2] for r in rows})
        vecs = encode(texts)
        at = {t: i for i, t in enumerate(texts)}
        self.table = vecs.astype(np.float32)
        self.noun = np.asarray([at[r[0]] for r in rows], dtype=np.int64)
        self.name = np.asarray([at[r[2]] for r in rows], dtype=np.int64)
        self.rels = np.zeros((len(rows), MAX_RELATIONS), dtype=np.int64)
        self.fwd = np.zeros((len(rows), MAX_RELATIONS), dtype=np.float32)
        self.mask = np.zeros((len(rows), MAX_RELATIONS), dtype=np.float32)
        for i, (_, rels, _, _) in enumerate(rows):
            for j, (t, f) in enumerate(rels[:MAX_RELATIONS]):
                self.rels[i, j], self.fwd[i, j], self.mask[i, j] = at[t], float(f), 1.0
        self.label = np.asarray([r[3] for r in rows], dtype=np.float32)


def _model(dim: int, width: int, act: str = "relu") -> Any:
    """The torch mirror of :class:`~graphhop.kgqa.type_head.TypeHead` (same parameter names)."""
    import torch
    from torch import nn

    class Head(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            for name, shape in (("w_n", (width, dim)), ("w_r", (width, dim)), ("w_m", (width, dim))):
                self.register_parameter(name, nn.Parameter(torch.randn(*shape) / dim ** 0.5))
            for name in ("b_n", "b_r", "b_m", "w_d"):
                self.register_parameter(name, nn.Parameter(torch.zeros(width)))
            self.w_o = nn.Parameter(torch.randn(width) / width ** 0.5)
            self.w_name = nn.Parameter(torch.randn(width) / width ** 0.5)
            self.w_cos = nn.Parameter(torch.zeros(3))
            self.a = nn.Parameter(torch.tensor([1.0, 0.5]))
            self.c = nn.Parameter(torch.zeros(1))

        def forward(self, noun, rels, fwd, mask, name, drop: float = 0.0):
            f = torch.relu if act == "relu" else (lambda x: x)
            v = f(noun @ self.w_n.T + self.b_n)
            u = f(rels @ self.w_r.T + fwd.unsqueeze(-1) * self.w_d + self.b_r)
            v = nn.functional.dropout(v, drop, self.training)
            cos = (rels * noun.unsqueeze(1)).sum(-1)
            s = (u * v.unsqueeze(1)) @ self.w_o + cos * (self.w_cos[0] * fwd + self.w_cos[1] * (1 - fwd))
            big = torch.where(mask > 0, s, torch.full_like(s, -1e4)).max(1).values
            any_rel = (mask.sum(1) > 0).float()
            mean = (s * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            m = f(name @ self.w_m.T + self.b_m)
            name_cos = self.w_cos[2] * (name * noun).sum(-1)
            return any_rel * (self.a[0] * big + self.a[1] * mean) + (m * v) @ self.w_name + name_cos + self.c

    return Head()


def _head_of(model: Any, config: dict[str, Any]) -> TypeHead:
    return TypeHead({k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}, config)


def head_accuracy(head: TypeHead, kbs: Sequence[TypeKB], encode: Callable[[Sequence[str]], np.ndarray],
                  n: int, seed: int = 0) -> dict[str, float]:
    """Pairwise accuracy of ``head`` on ``n`` pairs of each KB (:func:`pairs`), by KB and pooled."""
    out, total, wins = {}, 0, 0.0
    for kb in kbs:
        triples = pairs(kb, n, seed)
        fit = KBTypeFit(head, kb.store, encode)
        acc = pair_accuracy(fit.fit, triples)
        out[kb.name] = acc
        total, wins = total + len(triples), wins + acc * len(triples)
    out["pooled"] = wins / total if total else 0.0
    return out


def cosine_accuracy(kbs: Sequence[TypeKB], scorer: Any, n: int, seed: int = 0) -> dict[str, dict[str, float]]:
    """Pairwise accuracy of the zero-shot fit on the same pairs as :func:`head_accuracy`: ``full`` is
    :meth:`~graphhop.kgqa.end_type.EndTyper.entity_fit` (cosines + schema analogy), ``cosine`` without the
    schema-analogy term."""
    from graphhop.kgqa.end_type import SCHEMA_WEIGHT, EndTyper

    out: dict[str, dict[str, float]] = {"full": {}, "cosine": {}}
    sizes: dict[str, int] = {}
    for kb in kbs:
        triples = pairs(kb, n, seed)
        typer = EndTyper(scorer, kb.store)
        sizes[kb.name] = len(triples)
        out["full"][kb.name] = pair_accuracy(typer.entity_fit, triples)
        out["cosine"][kb.name] = pair_accuracy(
            lambda noun, e: typer.entity_fit(noun, e) - SCHEMA_WEIGHT * typer.schema.fit(noun, e), triples)
    total = sum(sizes.values())
    for got in out.values():
        got["pooled"] = sum(got[k] * sizes[k] for k in sizes) / total if total else 0.0
    return out


def _epoch(model: Any, opt: Any, data: _Tensors, rng: np.random.Generator, batch: int, drop: float) -> float:
    import torch

    model.train()
    order = rng.permutation(len(data.label))
    table = torch.from_numpy(data.table)
    loss_sum = 0.0
    for i in range(0, len(order), batch):
        idx = order[i : i + batch]
        out = model(table[data.noun[idx]], table[data.rels[idx]], torch.from_numpy(data.fwd[idx]),
                    torch.from_numpy(data.mask[idx]), table[data.name[idx]], drop)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(out, torch.from_numpy(data.label[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        loss_sum += float(loss.detach()) * len(idx)
    model.eval()
    return loss_sum / len(order)


def train_type_head(out: str | Path, epochs: int = 10, width: int = 96, act: str = "relu", lr: float = 2e-3,
                    weight_decay: float = 1e-4, dropout: float = 0.2, batch: int = 256, limit: int = 1500,
                    eval_pairs: int = 400, seed: int = 0, root: str | Path | None = None,
                    progress: bool = True) -> dict[str, Any]:
    """Train on the ``train`` group, keep the epoch best on the ``select`` group's pairwise accuracy, write
    ``head.npz`` + ``config.json`` into ``out`` (atomically) and return the card (figures of every group)."""
    import torch

    from graphhop.io import atomic_dir
    from graphhop.kgqa.scorer import PathScorer

    torch.manual_seed(seed)
    t0 = time.perf_counter()
    encode = PathScorer.load().word_vectors
    groups = load_groups(limit, root)
    data = _Tensors(groups["train"], encode, random.Random(seed))
    config = {"dim": int(data.table.shape[1]), "width": width, "act": act, "max_relations": MAX_RELATIONS}
    model = _model(config["dim"], width, act)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    rng = np.random.default_rng(seed)
    best, best_acc, history = None, -1.0, []
    for ep in range(1, epochs + 1):
        loss = _epoch(model, opt, data, rng, batch, dropout)
        acc = head_accuracy(_head_of(model, config), groups["select"], encode, eval_pairs, seed)
        history.append({"epoch": ep, "loss": round(loss, 4), "select": {k: round(v, 4) for k, v in acc.items()}})
        if progress:
            print(f"epoch {ep}: loss {loss:.4f} select {acc['pooled']:.4f} {acc}", flush=True)
        if acc["pooled"] > best_acc:
            best, best_acc = _head_of(model, config), acc["pooled"]
    assert best is not None
    card = {**config, "epochs": epochs, "chosen_epoch": max(history, key=lambda h: h["select"]["pooled"])["epoch"],
            "lr": lr, "weight_decay": weight_decay, "dropout": dropout, "seed": seed, "limit": limit,
            "train_examples": int(len(data.label)), "groups": {g: [kb.name for kb in kbs] for g, kbs in groups.items()},
            "history": history, "train_seconds": round(time.perf_counter() - t0, 1)}
    with atomic_dir(out, overwrite=True, replace_if=("config.json",)) as tmp:
        np.savez(Path(tmp) / "head.npz", **best.p)
        (Path(tmp) / "config.json").write_text(json.dumps(card, indent=2), encoding="utf-8")
    return card
