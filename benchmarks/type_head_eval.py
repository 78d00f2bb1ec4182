"""Held-out pairwise accuracy of the type head vs the zero-shot fit (docs/RESULTS.md, Issue 12, Session 6 (typ12)).

For each KB of the ``select`` and ``report`` groups (:data:`graphhop.train.type_head.GROUPS`: relations and
nouns the head never trained on), ``--pairs`` (noun, entity of that type, entity not of it) triples: the share
where each fit rates the typed entity higher. ``--head`` is a folder written by ``graphhop train type-head``
(default: the shipped head).

    python benchmarks/type_head_eval.py --pairs 600 [--head DIR] [--json]
"""

from __future__ import annotations

import argparse
import json

from graphhop.kgqa.scorer import PathScorer
from graphhop.kgqa.type_head import TypeHead
from graphhop.train.type_head import GROUPS, cosine_accuracy, head_accuracy, load_groups, pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=600)
    ap.add_argument("--head", default=None)
    ap.add_argument("--limit", type=int, default=1500)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    scorer = PathScorer.load()
    head = TypeHead.load(args.head)
    groups = load_groups(args.limit, kbs={k: g for k, g in GROUPS.items() if g != "train"})
    rows = []
    for group in ("select", "report"):
        kbs = groups[group]
        got = head_accuracy(head, kbs, scorer.word_vectors, args.pairs)
        base = cosine_accuracy(kbs, scorer, args.pairs)
        for name in [kb.name for kb in kbs] + ["pooled"]:
            n = sum(len(pairs(kb, args.pairs)) for kb in kbs if name in (kb.name, "pooled"))
            rows.append({"group": group, "kb": name, "pairs": n, "head": round(got[name], 3),
                         "cosine+schema": round(base["full"][name], 3), "cosine": round(base["cosine"][name], 3)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print("| group | KB | pairs | type head | zero-shot fit (cosine + schema analogy) | cosine only |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['group']} | {r['kb']} | {r['pairs']} | {r['head']:.3f} | {r['cosine+schema']:.3f} | {r['cosine']:.3f} |")


if __name__ == "__main__":
    main()
