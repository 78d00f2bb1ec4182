"""The learned confidence of ``kgqa`` answers (:mod:`graphhop.kgqa.abstain`): collect, fit, choose, apply.

``dump``: run the pipeline (the learned confidence off) over hand-written KB folders or a named dataset's
dev split and write one JSON line per question: the folder/set, the outcome (``hits1``, ``em``,
``right_reason``, ``abstained``) and what the confidence reads (:func:`graphhop.kgqa.abstain.inputs`).

``fit``: leave-one-KB-out cross-validation over dumped selection KBs: for each held-out KB a model is fitted
on the others and its threshold chosen there (most utility: right +1, wrong -1, withheld 0; wrong = answered
and not answer-right); the held-out KB's questions are judged with it. Prints the pooled CV counts beside
"no abstention"; with ``--out``, writes the model fitted on every KB (threshold chosen the same way) as JSON.

``apply``: the right / wrong / withheld counts and Hits@1 / EM of dumped questions judged by a stored model.

    python benchmarks/kgqa_abstain.py dump tests/kgqa/data/kg_* --hops 4 --out /tmp/sel.jsonl
    python benchmarks/kgqa_abstain.py fit /tmp/sel.jsonl --out src/graphhop/weights/kgqa/confidence.json
    python benchmarks/kgqa_abstain.py dump pq-3h --out /tmp/pq3.jsonl && python benchmarks/kgqa_abstain.py apply /tmp/pq3.jsonl

The chain reranker was trained on the selection KBs, so their dump is in-sample for it; ``--rerank-folds DIR`` reads
each folder with the fold model that never saw it (``DIR/fold<i mod K>`` for the i-th of the sorted names, the folds
of ``benchmarks/kgqa_rerank_folds.py``): an out-of-fold dump to fit the confidence on.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from graphhop.io import atomic_write_text
from graphhop.kgqa.abstain import FEATURES, Confidence, features, fit_logistic
from graphhop.kgqa.thresholds import choose_threshold

#: Utility of an outcome, fixed before any fit: a right answer +1, a wrong one -1, a withheld one 0.
UTILITY = {"right": 1.0, "wrong": -1.0, "withheld": 0.0}


def dump(names: Sequence[str], hops: int | None, sample: int | None, out: Path, folds: Path | None = None) -> None:
    """One JSON line per question of each folder / dataset (see the module docstring); with ``folds``, each folder
    read with the reranker fold model that never saw it."""
    from graphhop.cli.kgqa import support_triples
    from graphhop.evaluation import dataset_index
    from graphhop.kgqa.evaluate import evaluate_dataset
    from graphhop.models.encoder import set_threads
    from graphhop.pipeline.registry import build_pipeline

    set_threads(1)
    with out.open("w", encoding="utf-8") as fh:
        k = len([f for f in folds.iterdir() if f.name.startswith("fold")]) if folds else 0
        for i, name in enumerate(sorted(names) if folds else names):
            raws: list[dict[str, Any]] = []
            rerank = {"rerank": str(folds / f"fold{i % k}")} if folds else {}

            def make(kb: Path) -> tuple[Any, Any]:
                opts = {"abstain": False, **({"hops": hops} if hops else {}), **rerank}
                pipe = build_pipeline("kgqa", dataset_index(kb, dense=None, progress=False), **opts)

                def ask(question: str) -> dict[str, Any]:
                    res = pipe.reader.ask(question)
                    raws.append(res["confidence_inputs"])
                    return res
                return ask, support_triples

            rows: list[dict[str, Any]] = []
            summary = evaluate_dataset(name, "dev", make, sample, rows_out=rows)
            print(f"{Path(name).name}: n {summary['n']} hits1 {summary['answer_hits1']} em {summary['em']}", file=sys.stderr)
            for row, raw in zip(rows, raws):
                keep = {k: row[k] for k in ("id", "hits1", "em", "right_reason", "abstained", "hops", "qtype")}
                fh.write(json.dumps({"set": Path(name).name, **keep, "inputs": raw}, ensure_ascii=False) + "\n")


def load(path: Path) -> list[dict[str, Any]]:
    """The dumped lines of ``path``."""
    return [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]


def outcome_counts(rows: Sequence[dict[str, Any]], keep: np.ndarray, label: str = "hits1") -> dict[str, int]:
    """Right / wrong / withheld counts when only ``keep`` is answered (already-withheld questions count withheld),
    and ``right_reason``: the answered questions right for the right reason (reported, not in the utility)."""
    answered = np.asarray([not r["abstained"] for r in rows]) & keep
    right = np.asarray([bool(r[label]) for r in rows])
    reason = np.asarray([bool(r["right_reason"]) for r in rows])
    return {"right": int((answered & right).sum()), "wrong": int((answered & ~right).sum()),
            "withheld": int((~answered).sum()), "right_reason": int((answered & reason).sum())}


def utility(counts: dict[str, int]) -> float:
    """:data:`UTILITY` summed over ``counts``."""
    return sum(UTILITY[k] * counts[k] for k in UTILITY)


def choose(probs: np.ndarray, rows: Sequence[dict[str, Any]], label: str = "hits1") -> float:
    """The threshold of most utility over ``rows`` (ties: the lowest, withholding least): the scorer
    threshold's own rule (:func:`graphhop.kgqa.thresholds.choose_threshold`), questions already withheld never kept."""
    withheld = np.asarray([bool(r["abstained"]) for r in rows])
    return choose_threshold(np.where(withheld, -1.0, probs), np.asarray([bool(r[label]) for r in rows]))


def train(rows: Sequence[dict[str, Any]], l2: float, label: str = "hits1", only: Sequence[str] | None = None) -> Confidence:
    """A model fitted on the answered ``rows``, its threshold chosen on them; with ``only``, on those features
    alone (the others are zeroed, so their coefficients stay 0)."""
    answered = [r for r in rows if not r["abstained"]]
    x = np.stack([features(r["inputs"]) for r in answered])
    if only:
        x = x * np.asarray([name in only for name in FEATURES], dtype=np.float64)
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-9] = 1.0
    coef, icpt = fit_logistic((x - mean) / scale, np.asarray([bool(r[label]) for r in answered]), l2)
    model = Confidence(coef, icpt, mean, scale, 0.0)
    model.threshold = choose(np.asarray([model.prob(r["inputs"]) for r in rows]), rows, label)
    return model


def cross_validate(rows: Sequence[dict[str, Any]], l2: float, label: str = "hits1",
                   only: Sequence[str] | None = None) -> tuple[dict[str, int], dict[str, dict[str, int]]]:
    """Leave-one-set-out: pooled counts, and counts per held-out set."""
    per: dict[str, dict[str, int]] = {}
    for held in sorted({r["set"] for r in rows}):
        test = [r for r in rows if r["set"] == held]
        model = train([r for r in rows if r["set"] != held], l2, label, only)
        probs = np.asarray([model.prob(r["inputs"]) for r in test])
        per[held] = outcome_counts(test, probs >= model.threshold, label)
    pooled = {k: sum(c[k] for c in per.values()) for k in next(iter(per.values()))}
    return pooled, per


def nested(rows: Sequence[dict[str, Any]], l2s: Sequence[float], label: str = "hits1",
           only: Sequence[str] | None = None) -> tuple[dict[str, int], dict[str, float]]:
    """Leave-one-set-out with the L2 strength chosen inside each outer fold by leave-one-set-out over its
    training sets (most utility): pooled counts, and the strength each held-out set was judged with."""
    per: dict[str, dict[str, int]] = {}
    chosen: dict[str, float] = {}
    for held in sorted({r["set"] for r in rows}):
        rest = [r for r in rows if r["set"] != held]
        chosen[held] = max(l2s, key=lambda l2: (utility(cross_validate(rest, l2, label, only)[0]), l2))
        model = train(rest, chosen[held], label, only)
        test = [r for r in rows if r["set"] == held]
        per[held] = outcome_counts(test, np.asarray([model.prob(r["inputs"]) >= model.threshold for r in test]), label)
    return {k: sum(c[k] for c in per.values()) for k in next(iter(per.values()))}, chosen


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("names", nargs="+")
    d.add_argument("--hops", type=int, default=None)
    d.add_argument("--sample", type=int, default=None)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--rerank-folds", type=Path, default=None, help="read each folder with its out-of-fold reranker")
    f = sub.add_parser("fit")
    f.add_argument("dumps", nargs="+", type=Path)
    f.add_argument("--l2", type=float, nargs="+", default=[1.0])
    f.add_argument("--out", type=Path, default=None)
    f.add_argument("--nested", action="store_true", help="also choose the L2 strength inside each outer fold")
    f.add_argument("--only", nargs="+", choices=FEATURES, default=None, help="fit on these features only")
    a = sub.add_parser("apply")
    a.add_argument("dumps", nargs="+", type=Path)
    a.add_argument("--model", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.cmd == "dump":
        dump(args.names, args.hops, args.sample, args.out, args.rerank_folds)
    elif args.cmd == "fit":
        _fit(args)
    else:
        _apply(args)


def _fit(args: argparse.Namespace) -> None:
    rows = [r for p in args.dumps for r in load(p)]
    base = outcome_counts(rows, np.ones(len(rows), bool))
    print(json.dumps({"no_abstention": base, "utility": utility(base)}))
    for l2 in args.l2:
        pooled, per = cross_validate(rows, l2, only=args.only)
        print(json.dumps({"l2": l2, "cv": pooled, "utility": utility(pooled), "per_set": per}))
    if args.nested:
        pooled, chosen = nested(rows, args.l2, only=args.only)
        print(json.dumps({"nested_cv": pooled, "utility": utility(pooled), "l2_chosen": chosen}))
    if args.out is not None:
        l2 = max(args.l2, key=lambda v: (utility(cross_validate(rows, v, only=args.only)[0]), v))
        model = train(rows, l2, only=args.only)
        model.meta = {"fitted_on": sorted({r["set"] for r in rows}), "n": len(rows), "l2": l2,
                      "label": "hits1", "utility": UTILITY, "refit": "benchmarks/kgqa_abstain.py fit"}
        atomic_write_text(args.out, json.dumps(model.to_json(), indent=1) + "\n")
        print(json.dumps({"threshold": model.threshold, "coef": dict(zip(FEATURES, model.coef.round(3).tolist()))}))


def _apply(args: argparse.Namespace) -> None:
    model = Confidence.load(args.model)
    for path in args.dumps:
        rows = load(path)
        for name in sorted({r["set"] for r in rows}):
            part = [r for r in rows if r["set"] == name]
            keep = np.asarray([model.prob(r["inputs"]) >= model.threshold for r in part])
            before, after = outcome_counts(part, np.ones(len(part), bool)), outcome_counts(part, keep)
            em = sum(bool(r["em"]) and k for r, k in zip(part, keep)) / len(part)
            print(json.dumps({"set": name, "n": len(part), "before": before, "after": after,
                              "hits1_after": round(after["right"] / len(part), 4), "em_after": round(em, 4),
                              "hits1_before": round(before["right"] / len(part), 4),
                              "withheld_share": round(after["withheld"] / len(part), 4)}))


if __name__ == "__main__":
    main()
