"""Per-hop-count thresholds of a trained path scorer, chosen on its corpus's selection split.

Reads a corpus cache (``graphhop train kgqa ... --cache FILE``) and a head trained on that corpus
(the same options: its selection split was never trained on), scores every selection question, and
prints per hop count of the best candidate: questions, top-1 path accuracy, right minus wrong answers
at the head's own single threshold and at that hop count's own (:func:`graphhop.kgqa.thresholds.hop_thresholds`).
With ``--write OUT`` the head is copied to ``OUT`` with ``thresholds_by_hops`` in its config (what the
``kgqa`` pipeline reads: :meth:`graphhop.kgqa.pipeline.KGQA.threshold_for`).

    python benchmarks/kgqa_hop_thresholds.py --cache /tmp/corpus.pkl --weights DIR [--write OUT] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from graphhop.kgqa.corpus_cache import read_corpus_cache
from graphhop.kgqa.scorer import PathScorer
from graphhop.kgqa.thresholds import LEAST_PER_HOP, hop_thresholds
from graphhop.kgqa.train import selection_tops


def net(probs: np.ndarray, hits: np.ndarray, tau: float) -> int:
    """Right minus wrong answers when answering only at probability ``tau`` or more."""
    keep = probs >= tau
    return int((hits & keep).sum()) - int((~hits & keep).sum())


def report(scorer: PathScorer, corpus, least: int) -> dict:
    """Per hop count: n, top-1 accuracy, right-minus-wrong at the single and at the per-hop threshold."""
    select = [i for i, e in enumerate(corpus.examples) if e.selection]
    probs, hits, hops = selection_tops(scorer.head, corpus, select)
    single = float(scorer.config.get("threshold", 0.0))
    by_hops = hop_thresholds(probs, hits, hops, least)
    rows = []
    for h in np.unique(hops):
        m = hops == h
        tau = by_hops.get(str(int(h)), single)
        rows.append({"hops": int(h), "n": int(m.sum()), "top1": round(float(hits[m].mean()), 4),
                     "single_threshold": round(single, 4), "net_single": net(probs[m], hits[m], single),
                     "hop_threshold": round(tau, 4), "net_hop": net(probs[m], hits[m], tau)})
    return {"selection_questions": len(select), "top1": round(float(hits.mean()), 4), "threshold": single,
            "thresholds_by_hops": by_hops, "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="corpus cache written by `graphhop train kgqa --cache`")
    ap.add_argument("--weights", type=Path, required=True, help="a head trained on that corpus")
    ap.add_argument("--least", type=int, default=LEAST_PER_HOP, help="selection questions a hop count needs")
    ap.add_argument("--write", type=Path, help="copy the head here with thresholds_by_hops in its config")
    ap.add_argument("--json", type=Path, help="also write the report here")
    args = ap.parse_args()
    if args.least < 1:
        ap.error(f"--least must be at least 1 (got {args.least})")
    options, corpus = read_corpus_cache(args.cache)
    scorer = PathScorer.load(args.weights)
    out = {"cache_options": options, "weights": str(args.weights), **report(scorer, corpus, args.least)}
    print("| best chain's hops | selection questions | top-1 path | single threshold | right − wrong | per-hop threshold | right − wrong |")
    print("|---|---|---|---|---|---|---|")
    for r in out["rows"]:
        print(f"| {r['hops']} | {r['n']} | {r['top1']:.3f} | {r['single_threshold']:.3f} | {r['net_single']} | "
              f"{r['hop_threshold']:.3f} | {r['net_hop']} |")
    if args.json:
        from graphhop.io import atomic_write_text

        atomic_write_text(args.json, json.dumps(out, indent=2))
    if args.write:
        from graphhop.io import atomic_dir

        with atomic_dir(args.write, replace_if=("head.npz",)) as tmp:
            PathScorer(scorer.head, scorer.config).save(tmp, {"thresholds_by_hops": out["thresholds_by_hops"]})
        print(f"wrote {args.write}")


if __name__ == "__main__":
    main()
