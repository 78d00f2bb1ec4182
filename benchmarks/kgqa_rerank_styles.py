"""Does a chain reranker read a held-out KB's chains the same when its relations are named and stored another way?

For each fold (``W/lists.json`` of ``benchmarks/kgqa_rerank_folds.py``; fold i holds out the i-th, i+3-th, ... KB), the
held-out KBs' lists whose gold is among the head's best ``k``, as written and re-read in each style of
:mod:`graphhop.kgqa.rerank_variants`; per fold model folder (``FOLDS/fold<i>``), how often the cross-encoder alone puts the
gold chain first among those ``k`` (no head score: a diagnostic of the cross-encoder, not of the pipeline).

    python benchmarks/kgqa_rerank_styles.py W/lists.json /tmp/s15f /tmp/kgs16/w
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lists")
    ap.add_argument("models", nargs="+", help="folders holding fold0, fold1, fold2")
    ap.add_argument("--k", type=int, default=8)
    args = ap.parse_args()
    from graphhop.kgqa.rerank import ChainReranker
    from graphhop.kgqa.rerank_variants import LIST_STYLES, variant_list
    from graphhop.models.encoder import set_threads

    set_threads(1)
    lists = json.loads(Path(args.lists).read_text(encoding="utf-8"))
    names = sorted(n for n in lists if n != "benchmark")
    print("| model | " + " | ".join(("as written",) + LIST_STYLES) + " |\n|---|" + "---|" * (1 + len(LIST_STYLES)))
    for folder in args.models:
        hits = {s: [0, 0] for s in ("as written",) + LIST_STYLES}
        for fold in range(3):
            model = ChainReranker.load(Path(folder) / f"fold{fold}")
            rng = random.Random(fold)
            for name in names[fold::3]:
                for row in lists[name]:
                    if row["gold"] >= args.k:
                        continue
                    row = {**row, "chains": row["chains"][: args.k]}
                    for style in hits:
                        got = row if style == "as written" else variant_list(row, style, rng)
                        if got is not None:
                            hits[style][0] += int(model.logits(got["text"], got["chains"]).argmax() == got["gold"])
                            hits[style][1] += 1
        print(f"| {folder} | " + " | ".join(f"{a}/{n}" for a, n in hits.values()) + " |")


if __name__ == "__main__":
    main()
