"""Out-of-fold mention readers (issue 13, session 17): one reader per fold of the selection sets, each trained on the
other folds' sets only, so that a set is scored only by a reader that never saw it.

    python benchmarks/mention_reader_folds.py --k 4 --out runs/mention_folds SETS...

writes ``OUT/fold<i>`` (a reader) and ``OUT/folds.json`` (fold -> its sets); then score each fold's sets with its own
reader: ``python benchmarks/text_ask_eval.py <fold's sets> --walk mention_reader=OUT/fold<i> ...``.
"""

from __future__ import annotations

import argparse
import json
import pickle
from pathlib import Path


def score_folds(rows: list[dict], parts: list[list[str]], out: Path) -> None:
    """Per set, of its held-out lists (one hop's sentence): how often the fold's reader ranks a gold mention first,
    against the walk's own order (the sentence's first mention first) and a uniform draw's expectation."""
    from graphhop.read.mention_reader import MentionReader

    print("| set | lists | reader first | first mention first | chance |")
    print("|---|---:|---:|---:|---:|")
    total = [0, 0.0, 0.0, 0.0]
    for i, part in enumerate(parts):
        reader = MentionReader.load(out / f"fold{i}")
        for name in part:
            mine = [r for r in rows if r["set"] == name]
            top = sum(int(reader.scorer.logits(r["text"], r["chains"]).argmax()) in r["gold"] for r in mine)
            first = sum(0 in r["gold"] for r in mine)
            chance = sum(len(r["gold"]) / len(r["chains"]) for r in mine)
            total = [total[0] + len(mine), total[1] + top, total[2] + first, total[3] + chance]
            print(f"| {name} | {len(mine)} | {top} | {first} | {chance:.1f} |", flush=True)
    print(f"| all | {total[0]} | {total[1]:.0f} | {total[2]:.0f} | {total[3]:.1f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sets", nargs="+", help="selection set folders (never tests/regression)")
    p.add_argument("--k", type=int, default=4)
    p.add_argument("--out", required=True)
    p.add_argument("--work", default="runs/mention_work")
    p.add_argument("--score", action="store_true", help="only score each fold's held-out lists with its reader")
    args = p.parse_args()

    from graphhop.kgqa.rerank_train import fit_reranker
    from graphhop.train.mention_reader import MENTION_RECIPE, folds, set_lists

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = out / "lists.pkl"
    if cache.exists():
        rows = pickle.loads(cache.read_bytes())
    else:
        rows = set_lists(args.sets, args.work)
        cache.write_bytes(pickle.dumps(rows))
    by_name = {Path(s).name: s for s in args.sets}
    parts = folds(list(by_name), args.k)
    (out / "folds.json").write_text(json.dumps({f"fold{i}": [by_name[n] for n in part] for i, part in enumerate(parts)},
                                               indent=1))
    if args.score:
        return score_folds(rows, parts, out)
    for i, part in enumerate(parts):
        train = [r for r in rows if r["set"] not in part]
        print(f"fold{i}: held out {part}; {len(train)} lists", flush=True)
        card = fit_reranker(train, out / f"fold{i}", log=print, **MENTION_RECIPE)
        print(json.dumps({k: card[k] for k in ("lists", "pairs", "loss", "train_s")}), flush=True)


if __name__ == "__main__":
    main()
