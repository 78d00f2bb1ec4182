"""Data-to-text candidate selection on the builder's triple groups: which candidate wins, how many drop.

For each dataset's KB, the builder's corpus groups (1-3 triples of one head, seeded as the builder
forms them) are sampled at an even stride; a multi-candidate generator (default: the four template
variants of :class:`graphhop.datasets.selection.TemplateVariantsDataToText`; ``--d2t-model`` for a
seq2seq model's beams) proposes candidates, the string-match check drops those missing an entity,
and the best BERTScore F1 (bundled MiniLM) against the linearized triples wins.

    GRAPHHOP_DATA=/path/to/data python benchmarks/d2t_selection.py --datasets pq-2h,wc-c,metaqa-2h --groups 2000
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def main() -> None:
    from graphhop.eval.script import benchmark_parser, parse_benchmark_args

    ap = benchmark_parser(__doc__, seed=13)
    ap.add_argument("--datasets", default="pq-2h,wc-c,metaqa-2h")
    ap.add_argument("--groups", type=int, default=2000, help="corpus groups per KB, sampled at an even stride")
    ap.add_argument("--d2t-model", help="seq2seq data-to-text model (its beams are the candidates)")
    ap.add_argument("--candidates", type=int, default=4, help="beams per group with --d2t-model")
    ap.add_argument("--batch", type=int, default=256)
    args = parse_benchmark_args(ap)
    from tqdm import tqdm

    from graphhop.datasets import kgqa
    from graphhop.datasets.builder import BuildConfig, DatasetBuilder, Seq2SeqDataToText
    from graphhop.datasets.selection import SelectingDataToText, TemplateVariantsDataToText
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import TripleStore
    from graphhop.metrics.bertscore import BERTScorer

    scorer = BERTScorer()  # MiniLM loaded once, shared by every batch
    gen = (Seq2SeqDataToText(args.d2t_model, num_candidates=args.candidates) if args.d2t_model
           else TemplateVariantsDataToText())
    n_cand = args.candidates if args.d2t_model else TemplateVariantsDataToText.n_candidates
    head = ["dataset", "group size", "groups", "candidates", "dropped", "all dropped"] + [f"won by {i}" for i in range(n_cand)]
    print("| " + " | ".join(head) + " |\n|---|---|" + "---:|" * (len(head) - 2))
    for name in args.datasets.split(","):
        t0 = time.perf_counter()
        store = TripleStore.from_facts(iter_triples(kgqa.kb_path(name, kgqa.data_root(args.data))))
        corpus = DatasetBuilder(store, BuildConfig(seed=args.seed)).corpus()
        step = max(1, len(corpus) // args.groups)
        groups = corpus[::step][: args.groups]
        by_size: dict[str, Counter] = {}
        for i in tqdm(range(0, len(groups), args.batch), desc=name, unit="batch", file=sys.stderr):
            batch = groups[i : i + args.batch]
            for size in sorted({len(g) for g in batch}):
                sel = SelectingDataToText(gen, scorer)
                sel.verbalize([g for g in batch if len(g) == size])
                by_size.setdefault(str(size), Counter()).update(sel.stats)
        by_size["all"] = sum(by_size.values(), Counter())
        for size, st in sorted(by_size.items()):
            cells = [name, size, st["groups"], st["candidates"], st["dropped"], st["all dropped"]]
            cells += [st[f"won by {i}"] for i in range(n_cand)]
            print("| " + " | ".join(str(c) for c in cells) + " |")
        print(f"{name}: {len(groups)} of {len(corpus)} corpus groups (stride {step}) in {time.perf_counter() - t0:.0f} s",
              file=sys.stderr)


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
