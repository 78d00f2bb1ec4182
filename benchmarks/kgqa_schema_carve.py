"""The selection carve of the scorer's hand-written schemas as ``eval-qa`` folders (never trained on).

Each schema of :mod:`graphhop.kgqa.schemas` is written as ``OUT/schema_NAME/kb.tsv`` (its training KB,
seed 0) with ``questions.jsonl``: questions generated as in training whose masked text falls in the
*selection* split (:func:`graphhop.kgqa.train.is_selection`: the scorer never trains on them), the topic's
name put back for ``X``, the gold chain's facts and end entities as answers. What these folders choose
(e.g. the abstention threshold: ``graphhop eval-qa OUT/schema_kitchens --hops 4 -o threshold=T``) is chosen
on the training carve, never on the selection KBs or dev.

    python benchmarks/kgqa_schema_carve.py --out /tmp/schema-carve --n 40 --weights DIR [--weights DIR2]

With ``--weights`` each head answers every carve question through the ``kgqa`` pipeline at ``--hops 4``
with no threshold; printed: questions right, right / answered wrong at the head's own threshold, and the
threshold the training rule (:func:`graphhop.kgqa.train.choose_threshold`: most right minus wrong) picks
on these end-to-end confidences.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kgqa.schemas import SCHEMAS, sample_questions, schema_store
from graphhop.kgqa.train import choose_threshold, is_selection


def gold_facts(store: KGStore, topic: int, steps: Sequence[tuple[int, bool]]) -> tuple[list[list[str]], list[str]]:
    """Facts of the chain ``steps`` from ``topic`` that lead to its end entities, and those ends."""
    layers, edges = [np.asarray([topic])], []
    for rel, fwd in steps:
        e, reached = store.step(layers[-1], rel, fwd)
        edges.append((e, fwd))
        layers.append(np.unique(reached))
    keep, facts = set(layers[-1].tolist()), []
    for e, fwd in reversed(edges):
        far, near = (store.tails[e], store.heads[e]) if fwd else (store.heads[e], store.tails[e])
        on = [i for i in range(len(e)) if int(far[i]) in keep]
        facts += [[store.entities[store.heads[e[i]]], store.relations[store.rels[e[i]]], store.entities[store.tails[e[i]]]]
                  for i in on]
        keep = {int(near[i]) for i in on}
    return facts[::-1], [store.entities[i] for i in layers[-1]]


def carve_row(store: KGStore, topic: int, steps: Sequence[tuple[int, bool]], text: str) -> dict[str, Any] | None:
    """A carve question (``id`` left to the caller) for a generated question in the selection split whose
    chain ends at 1-3 entities; None otherwise."""
    if not is_selection(text):
        return None
    chain, ends = gold_facts(store, topic, steps)
    if not ends or len(ends) > 3:
        return None
    question = re.sub(r"\bX\b", store.entities[topic], text)
    return {"id": "", "question": question[:1].upper() + question[1:] + "?", "answers": ends, "type": "plain",
            "hops": len(steps), "gold_facts": chain}


def score_heads(folders: list[Path], heads: list[str]) -> None:
    """Each head's end-to-end confidences and hits on the carve folders, and the threshold they choose."""
    from graphhop.evaluation import dataset_index
    from graphhop.kgqa.scorer import PathScorer
    from graphhop.models.encoder import set_threads
    from graphhop.pipeline.registry import build_pipeline

    set_threads(1)
    for weights in heads:
        probs, hits = [], []
        for folder in folders:
            pipe = build_pipeline("kgqa", dataset_index(folder / "kb.tsv", dense=None, progress=False), hops=4,
                                  weights=weights, threshold=0.0)
            for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
                q = json.loads(line)
                res = pipe.ask(q["question"])
                probs.append(-1.0 if res.score is None else float(res.score))
                hits.append(res.answer.lower() in {a.lower() for a in q["answers"]})
        p, h = np.asarray(probs), np.asarray(hits, dtype=bool)
        own = float(PathScorer.load(weights).config.get("threshold", 0.0))
        tau = choose_threshold(p, h)
        keep = p >= own
        print(json.dumps({"weights": weights, "n": len(h), "right_no_threshold": int(h.sum()), "own_threshold": round(own, 4),
                          "right_at_own": int((h & keep).sum()), "wrong_at_own": int((~h & keep).sum()),
                          "chosen_threshold": round(tau, 4), "right_minus_wrong_at_chosen": int((h & (p >= tau)).sum() - (~h & (p >= tau)).sum())}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--n", type=int, default=40, help="selection questions per schema")
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--weights", action="append", default=[], help="a KGQA scorer directory to score on the carve (repeatable)")
    args = ap.parse_args()
    if args.n < 1:
        raise SystemExit(f"kgqa_schema_carve: --n must be at least 1 (got {args.n})")
    folders = []
    rng = random.Random(args.seed)
    for schema in SCHEMAS:
        store = schema_store(schema, 0)
        folder = args.out / f"schema_{schema.name}"
        folder.mkdir(parents=True, exist_ok=True)
        folders.append(folder)
        facts = zip(store.heads.tolist(), store.rels.tolist(), store.tails.tolist())
        (folder / "kb.tsv").write_text("".join(f"{store.entities[h]}\t{store.relations[r]}\t{store.entities[t]}\n"
                                               for h, r, t in facts), encoding="utf-8")
        rows = sample_questions(schema, store, rng, args.n, 200 * args.n, lambda *made: carve_row(store, *made))
        for i, row in enumerate(rows):
            row["id"] = f"{schema.name[:3]}{i:02d}"
        (folder / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{folder}: {len(rows)} questions, {len(store.heads)} facts")
    if args.weights:
        score_heads(folders, args.weights)


if __name__ == "__main__":
    main()
