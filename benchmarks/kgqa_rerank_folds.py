"""K-fold by KB estimate of the chain reranker (:mod:`graphhop.kgqa.rerank`) on hand-written KBs.

The folders are split into ``--folds`` folds by even stride over their sorted names; for each fold the reranker is
trained on the other folds' lists plus ``--per-set`` benchmark training questions per set (saved after every epoch),
and the full pipeline (confidence off) is run on the held-out folders for every (epoch, k, w) of the grid. Writes
one JSON line per (fold, epoch, k, w, question) to ``--details`` and prints right-for-the-right-reason per setting.

    GRAPHHOP_DATA=../shared/data nice -n 5 .venv/bin/python benchmarks/kgqa_rerank_folds.py tests/kgqa/data/kg_* \\
        --work /tmp/kgx14/folds --details /tmp/kgx14/folds.jsonl

``--train-only`` trains the fold models and runs nothing (then ``benchmarks/kgqa_oof.sh W/...``); a ``W/lists.json`` of
an earlier run is reused, so variants of the model are trained on the same lists. ``--variants N`` adds N re-styled
copies of each training-fold KB list (:mod:`graphhop.kgqa.rerank_variants`; the held-out KBs' lists are never used).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any


def _rows(folder: Path, options: dict[str, Any], grid: list[tuple[int, float]], tag: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-question rows of one KB for every (k, w) of ``grid``, one pipeline (its logit cache shared)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from kgqa_hand_misses import miss_kind
    from graphhop.cli.kgqa import support_triples
    from graphhop.evaluation import dataset_index
    from graphhop.kgqa.evaluate import load_regression, score_example
    from graphhop.pipeline.registry import build_pipeline

    kb, examples = load_regression(folder)
    pipe = build_pipeline("kgqa", dataset_index(kb, dense=None, progress=False), **options)
    out = []
    for k, w in grid:
        if pipe.reader.reranker is not None:
            pipe.reader.reranker.k, pipe.reader.reranker.w = k, w
        for ex in examples:
            got = pipe.ask(ex.question)
            res = {"answer": got.answer, "answers": got.answers, "supported": got.supported,
                   "support_graph": got.support_graph, "trace": got.trace or {}}
            row = score_example(ex, res, support_triples(res))
            row.update(tag, set=folder.name, k=k, w=w, kind=miss_kind(ex, res, row), used=(got.trace or {}).get("relation_path"))
            out.append(row)
    return out


def summary(details: str, base: str, setting: tuple[int, int, float]) -> list[str]:
    """Markdown: right for the right reason before (``base``: kgqa_hand_misses.py --details, reranker off) and after
    (the held-out rows of ``setting`` = (epoch, k, w)) per KB, question type and hop count, then the moved questions."""
    before = {(r["set"], r["id"]): r for r in map(json.loads, open(base, encoding="utf-8"))}
    after = [r for r in map(json.loads, open(details, encoding="utf-8"))
             if (r["epoch"], r["k"], r["w"]) == setting]
    lines = []
    for field in ("set", "qtype", "hops"):
        counts: dict[Any, list[int]] = defaultdict(lambda: [0, 0, 0])
        for r in after:
            c = counts[r[field]]
            c[0] += bool(before[(r["set"], r["id"])]["right_reason"])
            c[1] += bool(r["right_reason"])
            c[2] += 1
        lines += ["", f"| {field} | before | after |", "|---|---|---|"]
        lines += [f"| {key} | {b}/{n} | {a}/{n} |" for key, (b, a, n) in sorted(counts.items(), key=lambda kv: str(kv[0]))]
        b, a, n = (sum(c[i] for c in counts.values()) for i in range(3))
        lines.append(f"| **all** | {b}/{n} | {a}/{n} |")
    lines += ["", "| question | fold | before | after | chain before -> after |", "|---|---|---|---|---|"]
    for r in after:
        old = before[(r["set"], r["id"])]
        if bool(old["right_reason"]) != bool(r["right_reason"]):
            lines.append(f"| {r['set']} {r['id']} {old['question']} | {r['fold']} | {old['right_reason']} | {r['right_reason']} "
                         f"| {old.get('used')} -> {r.get('used')} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--folds", type=int, default=3)
    ap.add_argument("--per-set", type=int, default=40)
    ap.add_argument("--list-k", type=int, default=16)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--eval-epochs", default="2,3")
    ap.add_argument("--ks", default="8,16")
    ap.add_argument("--ws", default="1,3,100")
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--work", required=True, help="folder for the lists and the fold models")
    ap.add_argument("--details", required=True)
    ap.add_argument("--variants", type=int, default=0,
                    help="variant lists per training-fold KB list (graphhop.kgqa.rerank_variants: has / flip / both)")
    ap.add_argument("--train-only", action="store_true", help="train the fold models, run nothing (then kgqa_oof.sh)")
    ap.add_argument("--summary", help="EPOCH,K,W: only print the tables of this setting from --details against --base")
    ap.add_argument("--base", help="with --summary: kgqa_hand_misses.py --details of the same folders, reranker off")
    args = ap.parse_args()
    if args.summary:
        e, k, w = args.summary.split(",")
        print("\n".join(summary(args.details, args.base, (int(e), int(k), float(w)))))
        return
    from graphhop.kgqa.rerank_train import benchmark_lists, fit_reranker, kb_lists
    from graphhop.kgqa.rerank_variants import variant_lists
    from graphhop.models.encoder import set_threads

    set_threads(1)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    folders = sorted(Path(f) for f in args.folders)
    cache = work / "lists.json"
    if not cache.exists():
        lists = {f.name: kb_lists(f, args.list_k) for f in folders}
        lists["benchmark"] = benchmark_lists(None, args.per_set, args.list_k)
        cache.write_text(json.dumps(lists), encoding="utf-8")
    lists = json.loads(cache.read_text(encoding="utf-8"))
    grid = [(int(k), float(w)) for k in args.ks.split(",") for w in args.ws.split(",")]
    right: dict[tuple, list[int]] = defaultdict(lambda: [0, 0])
    with open(args.details, "a", encoding="utf-8") as fh:
        for fold in range(args.folds):
            held = folders[fold::args.folds]
            rows = [r for f in folders if f not in held for r in lists[f.name]]
            rows += variant_lists(rows, args.variants) + lists["benchmark"]
            out = work / f"fold{fold}"
            if not (out / f"epoch{args.epochs}" / "top.npz").exists():
                card = fit_reranker(rows, out, epochs=args.epochs, lr=args.lr, layers=args.layers, every_epoch=True,
                                    log=lambda m: print(f"fold {fold}: {m}", flush=True))
                print(f"fold {fold}: trained {card['lists']} lists in {card['train_s']}s", flush=True)
            if args.train_only:
                continue
            for epoch in [int(e) for e in args.eval_epochs.split(",")]:
                options = {"abstain": "false", "rerank": str(out / f"epoch{epoch}")}
                for f in held:
                    for row in _rows(f, options, grid, {"fold": fold, "epoch": epoch}):
                        fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
                        key = (epoch, row["k"], row["w"])
                        right[key][0] += bool(row["right_reason"])
                        right[key][1] += 1
                fh.flush()
                print(f"fold {fold} epoch {epoch} done", flush=True)
    for key, (r, n) in sorted(right.items()):
        print(f"epoch {key[0]} k {key[1]} w {key[2]}: right reason {r}/{n}")


if __name__ == "__main__":
    main()
