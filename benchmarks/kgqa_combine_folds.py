"""Out-of-fold fit of the learned final order of the reranker's chains (:mod:`graphhop.kgqa.combine`).

For each hand-written KB (sorted; fold i = the i-th, i+3-th, ... as ``benchmarks/kgqa_oof.sh``) the question's gold
reading (:func:`graphhop.kgqa.rerank_train.gold_readings`, the pipeline without the reranker: the head's order) gives
one list: the features of the head's best ``k`` paths (:func:`~graphhop.kgqa.combine.chain_features`), the logits read
by the reranker fold model that never saw the KB, and the gold row (lists whose gold chain is not among the ``k`` are
kept for the rank table, not fitted). Then per fold a combiner is fitted on the other folds' lists only, its L2 weight
chosen by leave-one-KB-out over those lists (most gold chains first), and written with the fold's reranker files
linked beside it, so ``bash benchmarks/kgqa_oof.sh W OUT -o rerank_combine=on`` reads each KB with its fold's pair; one
fitted on every KB goes to ``W/all/combine.json`` (the shipped file's recipe). Prints gold-first counts on the held-out
lists: the head alone, the cross-encoder alone, head + w x logit, the combiner.

    nice -n 5 python benchmarks/kgqa_combine_folds.py tests/kgqa/data/kg_* --rerank-folds /tmp/s15f --work W
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

L2S = (0.001, 0.01, 0.1, 1.0)
MARGINS = (0.0, 0.25, 0.5, 1.0)


def kb_rows(folder: Path, rerank: str, k: int) -> list[dict[str, Any]]:
    """One row per question with a gold reading: features of the head's best ``k``, gold rank (``k`` or more: absent)."""
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.combine import chain_features
    from graphhop.kgqa.evaluate import load_regression
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.kgqa.rerank import ChainReranker, verbalize_chain
    from graphhop.kgqa.rerank_train import gold_readings

    kb, examples = load_regression(folder)
    kgqa = KGQA(KGStore.from_facts(iter_triples(kb)), abstain=False)
    reranker = ChainReranker.load(rerank)
    out = []
    for ex, reading, steps in gold_readings(kgqa, examples):
        rank = next(i for i, p in enumerate(reading.paths) if p.steps == steps)
        top = reading.paths[:k]
        z = reranker.logits(reading.text, [verbalize_chain(kgqa.store, p) for p in top])
        x = chain_features(kgqa, reading.text, top, z)
        out.append({"kb": folder.name, "id": ex.id, "qtype": ex.qtype, "hops": len(steps), "rank": rank,
                    "x": x.tolist()})
    return out


def _lists(rows: list[dict[str, Any]], k: int, kept: dict[tuple[str, str], bool] | None = None,
           w: float = 0.5) -> list[tuple[np.ndarray, list[int]]]:
    """(features, gold rows) per list: the gold chain; with ``kept`` (a base run's right-for-the-right-reason per (KB,
    id)), where the base pipeline was right the chain head + w x logit puts first is gold too (downstream reached the
    answer from it); lists with no gold row are left out."""
    from graphhop.kgqa.combine import FEATURES

    h, z = FEATURES.index("head"), FEATURES.index("logit")
    out = []
    for r in rows:
        x = np.asarray(r["x"])
        gold = {r["rank"]} if r["rank"] < k else set()
        if kept is not None and kept.get((r["kb"], r["id"])):
            gold.add(int(np.argmax(x[:, h] + w * x[:, z])))
        if gold:
            out.append((x, sorted(gold)))
    return out


def base_kept(base: Path) -> dict[tuple[str, str], bool]:
    """Right for the right reason per (KB, id) of a ``kgqa_oof.sh`` run (confidence off)."""
    out = {}
    for path in base.glob("*.off.details"):
        for line in filter(str.strip, path.open(encoding="utf-8")):
            row = json.loads(line)
            out[(path.name.split(".")[0], row["id"])] = bool(row["right_reason"])
    return out


def choose(rows: list[dict[str, Any]], k: int, kept: dict | None = None, w: float = 0.5,
           margins: tuple[float, ...] = MARGINS) -> tuple[tuple[float, float], dict[str, int]]:
    """(L2 weight of :data:`L2S`, margin of ``margins``) whose leave-one-KB-out fits put a gold row (:func:`_lists`)
    first most often (ties: the larger of each, the safer)."""
    from graphhop.kgqa.combine import first_is_gold, fit_combiner

    kbs = sorted({r["kb"] for r in rows})
    firsts: dict[tuple[float, float], int] = {}
    for l2 in L2S:
        models = {kb: fit_combiner(_lists([r for r in rows if r["kb"] != kb], k, kept, w), l2, w=w) for kb in kbs}
        for margin in margins:
            n = 0
            for kb, model in models.items():
                model.card["margin"] = margin
                n += sum(first_is_gold(model.scores(x), g) for x, g in _lists([r for r in rows if r["kb"] == kb], k, kept, w))
            firsts[(l2, margin)] = n
    best = max(firsts, key=lambda key: (firsts[key], key[1], key[0]))
    return best, {f"{a},{b}": n for (a, b), n in firsts.items()}


def _link(src: Path, dst: Path) -> None:
    """``dst`` holds symlinks to the reranker files of ``src``."""
    dst.mkdir(parents=True, exist_ok=True)
    for f in src.resolve().iterdir():
        if f.suffix in (".npz", ".json") and f.name != "combine.json" and not (dst / f.name).exists():
            (dst / f.name).symlink_to(f)


def held_out_table(rows: list[dict[str, Any]], models: dict[int, Any], fold_of: dict[str, int], k: int,
                   w: float) -> list[str]:
    """Gold rank on the held-out lists: head, cross-encoder alone, head + w x logit, combiner."""
    from graphhop.kgqa.combine import FEATURES, list_ranks

    h, z = FEATURES.index("head"), FEATURES.index("logit")
    ranks: dict[str, Counter] = {m: Counter() for m in ("head", "logit", "head+w*logit", "combiner")}
    for r in rows:
        if r["rank"] >= k:
            for c in ranks.values():
                c["absent"] += 1
            continue
        x, g = np.asarray(r["x"]), r["rank"]
        got = {"head": x[:, h], "logit": x[:, z], "head+w*logit": x[:, h] + w * x[:, z],
               "combiner": models[fold_of[r["kb"]]].scores(x)}
        for m, s in got.items():
            ranks[m][min(list_ranks(s, g), 3)] += 1
    lines = ["| order | gold 1st | 2nd | 3rd | 4th-8th | not in best 8 |", "|---|---:|---:|---:|---:|---:|"]
    for m, c in ranks.items():
        lines.append(f"| {m} | {c[0]} | {c[1]} | {c[2]} | {c[3]} | {c['absent']} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--rerank-folds", required=True, help="FOLDS/fold<i>: the reranker fold models")
    ap.add_argument("--work", required=True)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--w", type=float, default=0.5, help="the fixed weight compared with")
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--margins", default=",".join(map(str, MARGINS)), help="margins tried (0: the learned order always)")
    ap.add_argument("--base", type=Path, help="a kgqa_oof.sh run of the base: where it was right, keep its first chain")
    args = ap.parse_args()
    from graphhop.kgqa.combine import FEATURES, fit_combiner
    from graphhop.models.encoder import set_threads

    set_threads(1)
    work, src = Path(args.work), Path(args.rerank_folds)
    work.mkdir(parents=True, exist_ok=True)
    folders = sorted(Path(f) for f in args.folders)
    fold_of = {f.name: i % args.folds for i, f in enumerate(folders)}
    cache = work / "features.json"
    rows = json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else []
    done = {r["kb"] for r in rows}
    for f in folders:
        if f.name not in done:
            rows += kb_rows(f, str(src / f"fold{fold_of[f.name]}"), args.k)
            cache.write_text(json.dumps(rows), encoding="utf-8")
            print(f"{f.name}: features", flush=True)
    kept = base_kept(args.base) if args.base else None
    margins = tuple(float(m) for m in args.margins.split(","))
    models = {}
    for i in range(args.folds):
        train = [r for r in rows if fold_of[r["kb"]] != i]
        (l2, margin), firsts = choose(train, args.k, kept, args.w, margins)
        models[i] = fit_combiner(_lists(train, args.k, kept, args.w), l2, margin=margin, w=args.w, fold=i, k=args.k,
                                 base=str(args.base), inner_gold_first=firsts)
        _link(src / f"fold{i}", work / f"fold{i}")
        models[i].save(work / f"fold{i}" / "combine.json")
        print(f"fold {i}: l2 {l2} margin {margin} (leave-one-KB-out gold first {firsts}); weights "
              + ", ".join(f"{n} {v:+.2f}" for n, v in zip(FEATURES, models[i].weights)), flush=True)
    (l2, margin), firsts = choose(rows, args.k, kept, args.w, margins)
    (work / "all").mkdir(exist_ok=True)
    fit_combiner(_lists(rows, args.k, kept, args.w), l2, margin=margin, w=args.w, fold="all", k=args.k,
                 base=str(args.base)).save(work / "all" / "combine.json")
    print(f"all: l2 {l2} margin {margin} ({firsts})")
    print("\n".join(held_out_table(rows, models, fold_of, args.k, args.w)))


if __name__ == "__main__":
    main()
