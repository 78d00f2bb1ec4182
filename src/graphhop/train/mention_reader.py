"""Training the walk's mention reader (:mod:`graphhop.read.mention_reader`) on passage sets' gold chains.

Lists (one question, one hop's sentence): hop by hop from the question's entities along the gold passages
(:func:`graphhop.train.edge_reader.gold_hops`, the edge reader's walk over the gold chain), each sentence holding a
positive edge (its target is the answer or another gold passage's title) gives one list: that mention (and any other
positive of the sentence) against **every other mention of the same sentence** (what a read sentence proposes) and
up to ``others`` mentions of the source's other sentences (seeded draw). Only folders of selection sets
(``passages.jsonl`` + ``questions.jsonl`` with ``answers`` and ``gold_passages``) are read, never the regression
suites; used out of fold (:func:`folds`: a set is scored only by a reader that never saw it).

Training is the chain reranker's loop (:func:`graphhop.kgqa.rerank_train.fit_reranker`: lower layers frozen and
cached, listwise + pointwise loss, the top layer(s) saved as float16 deltas), with :data:`MENTION_RECIPE`.

``python -m graphhop.train.mention_reader --sets DIR... --out FOLDER --work WORK`` trains one reader.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any, Sequence

__all__ = ["MENTION_RECIPE", "folds", "question_lists", "set_lists", "train_mention_reader"]

#: The recipe, fixed before any run (a few CPU minutes on one thread).
MENTION_RECIPE = {"epochs": 2, "lr": 2e-4, "layers": 1, "max_length": 96, "batch": 8, "seed": 17}


def question_lists(graph: Any, q: dict[str, Any], rng: random.Random, others: int = 4) -> list[dict[str, Any]]:
    """The lists of one set question (module docstring): ``{"text", "chains", "gold"}`` rows for
    :func:`~graphhop.kgqa.rerank_train.fit_reranker`."""
    from graphhop.read.mention_reader import mention_text
    from graphhop.train.edge_reader import gold_hops

    out = []
    for _, edges, pos in gold_hops(graph, q):
        for sentence in sorted({e.sentence for e in pos}):
            here = [e for e in edges if e.sentence == sentence]
            rest = [e for e in edges if e.sentence != sentence]
            items = here + rng.sample(rest, min(others, len(rest)))
            gold = [i for i, e in enumerate(items) if e in pos]
            if len(gold) < len(items):
                out.append({"text": q["question"], "chains": [mention_text(e) for e in items], "gold": gold,
                            "set": q.get("_set", ""), "id": q.get("id", "")})
    return out


def set_lists(folders: Sequence[str | Path], work: str | Path, others: int = 4, seed: int = 17) -> list[dict[str, Any]]:
    """Training lists from passage-set folders (indexes built under ``work``)."""
    from graphhop.train.edge_reader import set_questions

    rng = random.Random(seed)
    out = []
    for graph, folder, q in set_questions(folders, work):
        out += question_lists(graph, {**q, "_set": folder.name}, rng, others)
    return out


def folds(names: Sequence[str], k: int) -> list[list[str]]:
    """``k`` folds of set names by stride over their sorted order (fold ``i``: the ``i``-th, ``i+k``-th, ...)."""
    ordered = sorted(names)
    return [ordered[i::k] for i in range(k)]


def train_mention_reader(folders: Sequence[str | Path], out: str | Path, work: str | Path, log: Any = None,
                         **recipe: Any) -> dict[str, Any]:
    """Collect the lists of ``folders`` and fit the reader into ``out`` (:data:`MENTION_RECIPE`, updated by
    ``recipe``); the card."""
    from graphhop.kgqa.rerank_train import fit_reranker

    rows = set_lists(folders, work)
    if log:
        log(f"{len(rows)} lists, {sum(len(r['chains']) for r in rows)} mentions, "
            f"{sum(len(r['gold']) for r in rows)} positive")
    card = fit_reranker(rows, out, log=log, **{**MENTION_RECIPE, **recipe})
    card["sets"] = sorted(Path(f).name for f in folders)
    with open(Path(out) / "card.json", "w", encoding="utf-8") as fh:
        json.dump(card, fh, indent=1)
    return card


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: train one mention reader on ``--sets`` into ``--out``."""
    p = argparse.ArgumentParser(description="train the walk's mention reader on passage sets' gold chains")
    p.add_argument("--sets", nargs="+", required=True, help="selection set folders (never tests/regression)")
    p.add_argument("--out", required=True)
    p.add_argument("--work", default="runs/mention_work", help="where the sets' indexes are built (cached)")
    p.add_argument("--epochs", type=int, default=MENTION_RECIPE["epochs"])
    args = p.parse_args(argv)
    card = train_mention_reader(args.sets, args.out, args.work, log=print, epochs=args.epochs)
    print(json.dumps({k: card[k] for k in ("lists", "pairs", "loss", "train_s")}))


if __name__ == "__main__":
    main()
