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
import sys
from pathlib import Path
from typing import Any

import numpy as np

from graphhop.core import InputError
from graphhop.kgqa.corpus_cache import read_corpus_cache
from graphhop.kgqa.scorer import PathScorer
from graphhop.kgqa.thresholds import LEAST_PER_HOP, hop_thresholds, net
from graphhop.kgqa.train import selection_tops

#: The head config's record of a training option -> the corpus cache's name of it (train_scorer writes both).
TRAINING_OPTIONS = {"seed": "seed", "metaqa_limit": "metaqa_limit", "synthetic": "synthetic", "typed": "typed",
                    "typed_extra": "typed_extra", "hard_negatives": "hard", "schema_questions": "schemas",
                    "train_limit": "train_limit"}


def mismatched_options(config: dict[str, Any], cache_options: dict[str, Any]) -> list[str]:
    """The training options a head's config records with another value than the corpus cache was built
    with (``name: head value != cache value``); options either side does not record are not compared."""
    return [f"{name}: {config[name]!r} != {cache_options[key]!r}" for name, key in TRAINING_OPTIONS.items()
            if name in config and key in cache_options and config[name] != cache_options[key]]


def report(scorer: PathScorer, corpus: Any, least: int) -> dict[str, Any]:
    """Over ``corpus``'s selection split, per hop count of the best candidate: n, top-1 accuracy, right minus
    wrong at the head's single threshold and at the hop count's own (where :func:`hop_thresholds` gives one)."""
    select = [i for i, e in enumerate(corpus.examples) if e.selection]
    probs, hits, hops = selection_tops(scorer.head, corpus, select)
    single = float(scorer.config.get("threshold", 0.0))
    by_hops = hop_thresholds(probs, hits, hops, least, single=single)
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
    """Print the per-hop table (and write ``--json`` / ``--write``); a head trained with other options than
    the cache's corpus (its selection split may have been trained on) is refused in one line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="corpus cache written by `graphhop train kgqa --cache`")
    ap.add_argument("--weights", type=Path, required=True, help="a head trained on that corpus")
    ap.add_argument("--least", type=int, default=LEAST_PER_HOP, help="selection questions a hop count needs")
    ap.add_argument("--write", type=Path, help="copy the head here with thresholds_by_hops in its config")
    ap.add_argument("--json", type=Path, help="also write the report here")
    args = ap.parse_args()
    if args.least < 1:
        ap.error(f"--least must be at least 1 (got {args.least})")
    try:
        scorer = PathScorer.load(args.weights)
        options, corpus = read_corpus_cache(args.cache)
    except InputError as exc:
        sys.exit(f"error: {exc}")
    differ = mismatched_options(scorer.config, options)
    if differ:
        sys.exit(f"error: {args.weights} was trained with other options than {args.cache} holds ({'; '.join(differ)})")
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
