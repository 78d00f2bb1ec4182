"""Training the walk's chain reranker (:mod:`graphhop.read.chain_rerank`) on the walk's own candidate lists.

:func:`collect_set` asks every question of a passage set (``passages.jsonl`` + ``questions.jsonl`` with ``answers``
and ``gold_passages``: the selection sets ``tests/pipeline/data/*``, never the regression suites) with the default
walk and records each read's readings and chain texts (:func:`~graphhop.read.chain_rerank.chain_text`).
:func:`training_lists`: per plain or list question, its own read's ``size`` best readings by the walk's margin; a
reading is gold when its answer is a gold answer (a list: a gold item) and its support holds every gold passage (a
list item: one); the other readings of the same read, which share its entities but state other relations, are the
hard negatives; a gold reading ranked below ``size`` replaces the last. :func:`train_text_reranker` fits the
cross-encoder with the KG chain reranker's loop (:func:`graphhop.kgqa.rerank_train.fit_reranker`: lower layers
frozen and cached, listwise loss, AdamW with warm-up) and saves its top layers (float16 deltas).
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any, Callable, Sequence

__all__ = ["TEXT_RECIPE", "collect_set", "reading_labels", "training_lists", "train_text_reranker"]

#: The training recipe (a fold run: a few CPU minutes on one thread).
TEXT_RECIPE = {"epochs": 2, "lr": 2e-4, "layers": 1, "max_length": 128, "batch": 2, "seed": 15}
#: Question types whose own read is labelled (the engineer-written sets' names included).
_LABELLED = {"plain": "plain", "query": "plain", "list": "list"}


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


def collect_set(folder: str | Path, work: str | Path, walk: dict[str, Any] | None = None,
                ids: set[str] | None = None) -> list[dict[str, Any]]:
    """Per question of ``folder`` (those of ``ids`` when given): id, type, question, gold, evidence, the walk's answer,
    whether it is right (answer and every gold passage), and every read's record; with the default walk (no ``walk``
    options) and every question, cached in ``work`` as ``<name>-chains.pkl``."""
    from graphhop.metrics.qa import right_for_right_reason
    from graphhop.pipeline.text import TextPipeline, load_suite
    from graphhop.read.chain_rerank import TextChainReranker
    from graphhop.train.edge_reader import folder_index

    folder, work = Path(folder), Path(work)
    if "regression" in folder.parts:
        raise ValueError(f"{folder}: the regression suites are never trained on")
    cache = work / f"{folder.name}-chains.pkl"
    plain = not walk and ids is None
    if cache.exists() and plain:
        with open(cache, "rb") as fh:
            return pickle.load(fh)
    pipe = TextPipeline(folder_index(folder, work), walk_options=walk)
    record: list[dict[str, Any]] = []
    pipe.qa.reader.reranker = TextChainReranker(getattr(pipe.qa.reader.reranker, "scorer", None),
                                                **_kw(pipe.qa.reader.reranker), record=record)
    rows = []
    for q in load_suite(folder):
        if ids is not None and q["id"] not in ids:
            continue
        record.clear()
        res = pipe.ask(q["question"])
        gold, evidence = list(q.get("answers", [])), sorted(q.get("gold_passages", []))
        right = right_for_right_reason(res.answer or "", res.answers, res.support, res.supported, q.get("type", ""),
                                       gold, evidence)
        rows.append({"set": folder.name, "id": q["id"], "type": q.get("type", ""), "question": q["question"],
                     "gold": gold, "evidence": evidence, "answer": res.answer, "right": bool(right),
                     "reads": list(record)})
    if plain:
        work.mkdir(parents=True, exist_ok=True)
        with open(cache, "wb") as fh:
            pickle.dump(rows, fh)
    return rows


def _kw(reranker: Any) -> dict[str, Any]:
    """The ``k``, ``w`` and ``queries`` of a loaded reranker (none: the defaults)."""
    return {} if reranker is None else {"k": reranker.k, "w": reranker.w, "queries": reranker.queries}


def reading_labels(row: dict[str, Any], read: dict[str, Any]) -> list[bool]:
    """Per reading of ``read``: its answer is gold (a list: a gold item) and its support holds every gold passage
    (a list item: one)."""
    gold, ev = {_plain(a) for a in row["gold"]}, set(row["evidence"])
    is_list = _LABELLED.get(row["type"]) == "list"
    return [_plain(t) in gold and (bool(ev & set(p)) if is_list else ev <= set(p))
            for t, p in zip(read["texts"], read["paths"])]


def own_read(row: dict[str, Any]) -> dict[str, Any] | None:
    """The read of the question itself (not a rewritten claim or a part), if one was recorded."""
    return next((r for r in row["reads"] if r["question"] == row["question"] and r["query"] is None), None)


def training_lists(rows: Sequence[dict[str, Any]], size: int = 16) -> list[dict[str, Any]]:
    """One list per plain or list question with a gold reading and another (module docstring)."""
    out = []
    for row in rows:
        read = own_read(row)
        if read is None or row["type"] not in _LABELLED or len(read["texts"]) < 2:
            continue
        y = reading_labels(row, read)
        order = sorted(range(len(y)), key=lambda i: (-read["margins"][i], i))
        top = order[:size]
        if not any(y[i] for i in top) and any(y):
            top[-1] = next(i for i in order if y[i])
        gold = [j for j, i in enumerate(top) if y[i]]
        if gold and len(gold) < len(top):
            out.append({"text": read["question"], "chains": [read["chains"][i] for i in top], "gold": gold,
                        "set": row["set"], "id": row["id"]})
    return out


def train_text_reranker(folders: Sequence[str | Path], out: str | Path, work: str | Path, size: int = 16,
                        log: Callable[[str], None] | None = None, **fit: Any) -> dict[str, Any]:
    """Collect the walk's lists of ``folders`` (cached under ``work``) and fit the chain reranker into ``out``
    (``fit``: :data:`TEXT_RECIPE` overrides and ``k``, ``w``, ``every_epoch``); the card."""
    from graphhop.kgqa.rerank_train import fit_reranker
    from graphhop.read.chain_rerank import TEXT_RERANK_K, TEXT_RERANK_W

    lists = [lst for f in folders for lst in training_lists(collect_set(f, work), size)]
    if log:
        log(f"{len(lists)} lists, {sum(len(r['chains']) for r in lists)} pairs from {len(folders)} sets")
    recipe = {**TEXT_RECIPE, "k": TEXT_RERANK_K, "w": TEXT_RERANK_W, **fit}
    card = fit_reranker(lists, out, log=log, **recipe)
    card.update({"sets": [Path(f).name for f in folders], "task": "walk chain reranker (question, chain text)"})
    from graphhop.io import atomic_write_text
    import json

    atomic_write_text(Path(out) / "card.json", json.dumps(card, indent=1) + "\n")
    return card
