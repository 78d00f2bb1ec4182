"""The walk's chain reranker (:mod:`graphhop.read.chain_rerank`) on the selection sets: where the gold is, folds.

    python benchmarks/text_rerank_folds.py collect --work runs/chains SET...       # the walk's reads, cached per set
    python benchmarks/text_rerank_folds.py where --work runs/chains                # gold among top 1 / 8 / all
    python benchmarks/text_rerank_folds.py train --work runs/chains --model DIR --on SET... [--epochs 2 ...]
    python benchmarks/text_rerank_folds.py offline --work runs/chains --model DIR --k 8 --w 0.5 SET...
    python benchmarks/text_rerank_folds.py rerun --work runs/chains --model DIR --k 8 --w 0.5 --out DIR SET...

Selection sets only (``tests/pipeline/data``). ``collect`` asks every question with the default walk and keeps
every read's readings and chain texts (:func:`graphhop.train.text_reranker.collect_set`). ``where``: per group and
type, how often a right chain (gold answer, every gold passage in its support) is the walk's first, among its 8
best, among all, for the question's own read (plain and list questions; a list: every gold item read right).
``offline``: plain questions whose first reading is right before / after the reranker, and the questions any of
whose reads it reorders. ``rerun``: only those questions asked again end to end with the reranker (the others are
read exactly as before), right = right answer AND every gold passage (``text_ask_eval.py``'s measure), per set and
type, with the questions won and lost.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "pipeline" / "data"
BLIND = ("expeditions", "universities", "ferries", "glassworks", "clockmakers", "lighthouses", "printing", "volcanoes",
         "mines", "circuses")
ENGINEER = ("theatres", "observatories", "clubs", "paintings", "films", "europe", "bridges", "ships", "railways")
TYPES = {"query": "plain", "boolean": "yes/no"}


def _rows(work: Path, sets: list[str]) -> list[dict]:
    from graphhop.train.text_reranker import collect_set

    return [r for s in sets for r in collect_set(DATA / s, work)]


def where(rows: list[dict]) -> dict[str, dict[str, int]]:
    """Per group and type: n, right now, and for the own read a right chain first / in the best 8 / anywhere."""
    from graphhop.train.text_reranker import _plain, own_read, reading_labels

    out: dict[str, dict[str, int]] = {}
    for row in rows:
        kind = TYPES.get(row["type"], row["type"])
        c = out.setdefault(f"{'blind' if row['set'] in BLIND else 'engineer'} {kind}",
                           {"n": 0, "right": 0, "top1": 0, "top8": 0, "all": 0})
        c["n"] += 1
        c["right"] += row["right"]
        read = own_read(row)
        if read is None or kind not in ("plain", "list") or not read["texts"]:
            continue
        y = reading_labels(row, read)
        order = sorted(range(len(y)), key=lambda i: (-read["margins"][i], i))
        if kind == "list":  # every gold item read right, within the first n
            gold = {_plain(a) for a in row["gold"]}
            for key, n in (("top1", len(gold)), ("top8", 8), ("all", len(y))):
                c[key] += gold <= {_plain(read["texts"][i]) for i in order[:n] if y[i]}
        else:
            for key, n in (("top1", 1), ("top8", 8), ("all", len(y))):
                c[key] += any(y[i] for i in order[:n])
    return out


def reordered(read: dict, scorer: Any, k: int, w: float) -> list[int]:
    """The reading order (by margin after the reranker) of one recorded read: the rule of
    :meth:`graphhop.read.chain_rerank.TextChainReranker.reorder`."""
    order = sorted(range(len(read["texts"])), key=lambda i: (-read["margins"][i], i))
    if scorer is None or len(order) < 2:
        return order
    top = order[:k]
    z = scorer.logits(read["question"], [read["chains"][i] for i in top])
    new = sorted(range(len(top)), key=lambda j: (-(read["margins"][top[j]] + w * z[j]), j))
    return [top[j] for j in new] + order[k:]


def offline(rows: list[dict], scorer: Any, k: int, w: float, no_claims: bool = False) -> dict[str, Any]:
    """Plain questions (own read, an answer given) right first before / after; ids of questions any read moves
    (``no_claims``: any read given no query)."""
    from graphhop.train.text_reranker import own_read, reading_labels

    before = after = 0
    moved = []
    for row in rows:
        if any(reordered(r, scorer, k, w)[: k] != reordered(r, None, k, w)[: k] for r in row["reads"]
               if not (no_claims and r["query"] is not None)):
            moved.append(row["id"])
        read = own_read(row)
        if read is None or TYPES.get(row["type"], row["type"]) != "plain" or not read["texts"] \
                or max(read["margins"]) <= 0:
            continue
        y = reading_labels(row, read)
        before += y[reordered(read, None, k, w)[0]]
        after += y[reordered(read, scorer, k, w)[0]]
    return {"plain_first_before": int(before), "plain_first_after": int(after), "moved": moved}


def rerun(rows: list[dict], name: str, folder: Path, work: Path, ids: set[str], walk: dict) -> dict[str, Any]:
    """Set ``name``'s moved questions asked again with the walk options ``walk`` (the reranker); per type before/after."""
    from graphhop.train.text_reranker import collect_set

    held = [r for r in rows if r["set"] == name]
    again = {r["id"]: r for r in collect_set(folder, work, walk=walk, ids=ids)} if ids else {}
    by_type: dict[str, list[int]] = {}
    won, lost = [], []
    for r in held:
        now = again[r["id"]]["right"] if r["id"] in again else r["right"]
        t = by_type.setdefault(TYPES.get(r["type"], r["type"]), [0, 0, 0])
        t[0] += 1
        t[1] += r["right"]
        t[2] += now
        (won if now and not r["right"] else lost if r["right"] and not now else []).append(r["id"])
    return {"set": name, "n": len(held), "before": sum(v[1] for v in by_type.values()),
            "after": sum(v[2] for v in by_type.values()), "by_type": by_type, "won": won, "lost": lost,
            "asked_again": len(again),
            "answers": {i: [a["answer"], held_answer(held, i)] for i, a in again.items() if a["answer"] != held_answer(held, i)}}


def held_answer(held: list[dict], qid: str) -> Any:
    """The walk's answer to question ``qid`` before the reranker."""
    return next(r["answer"] for r in held if r["id"] == qid)


def main() -> None:
    """The command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("collect", "where", "train", "offline", "rerun"))
    ap.add_argument("sets", nargs="*")
    ap.add_argument("--work", type=Path, default=Path("runs/chains"))
    ap.add_argument("--model", type=Path)
    ap.add_argument("--on", nargs="*", default=[], help="train: the sets trained on")
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--w", type=float, default=0.5)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument("--out", type=Path, default=Path("runs/rerank-rerun"))
    ap.add_argument("--no-claims", action="store_true",
                    help="offline/rerun: leave a claim's read (one given its unmasked query: yes/no, counts) as walked")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    sets = args.sets or list(BLIND + ENGINEER)
    if args.command == "collect":
        for s in sets:
            rows = _rows(args.work, [s])
            print(s, sum(r["right"] for r in rows), len(rows), flush=True)
    elif args.command == "where":
        print("| group, type | n | right now | right chain first | among the best 8 | among all |")
        for key, c in sorted(where(_rows(args.work, sets)).items()):
            print(f"| {key} | {c['n']} | {c['right']} | {c['top1']} | {c['top8']} | {c['all']} |")
    elif args.command == "train":
        from graphhop.train.text_reranker import train_text_reranker

        card = train_text_reranker([DATA / s for s in args.on], args.model, args.work, log=print, every_epoch=True,
                                   epochs=args.epochs, lr=args.lr, layers=args.layers, max_length=args.max_length,
                                   batch=args.batch,
                                   k=args.k, w=args.w)
        print(json.dumps(card))
    else:
        from graphhop.kgqa.rerank import ChainReranker

        scorer = ChainReranker.load(args.model)
        args.out.mkdir(parents=True, exist_ok=True)
        walk = {"reranker": str(args.model), "rerank_k": args.k, "rerank_w": args.w, "rerank_claims": not args.no_claims}
        for s in sets:
            rows = _rows(args.work, [s])
            got = offline(rows, scorer, args.k, args.w, args.no_claims)
            if args.command == "rerun":
                got = {**rerun(rows, s, DATA / s, args.work, set(got["moved"]), walk), **got}
                (args.out / f"{s}.json").write_text(json.dumps(got, indent=1))
            print(s, json.dumps({k: v for k, v in got.items() if k not in ("moved", "answers")}), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    main()
