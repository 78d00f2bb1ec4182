"""EntailmentBank task 3: leaf sets retrieved from the whole WorldTree corpus (11,940 sentences).

Reports evidence P / R / F1 of the leaf set on ``--split`` (dev; ``test`` with a task-3 test file beside
dev) for the baselines and the leaf retriever (:mod:`graphhop.retrieve.leaves`). Anything chosen (the
baselines' fixed k; the head's stop threshold and step cap, chosen when it was trained) is chosen on the
selection carve of train (the last tenth of the angles task-1 train trees), never on the report split.
``--encoder fine-tuned`` (the default) uses the MiniLM fine-tuned on the train trees (`graphhop train
leaf-encoder`, cached) and the head trained over its index; without that cache it warns and runs the frozen
MiniLM with the session-3 head (``--encoder base``). The leaf reranker (`graphhop train leaf-reranker`, cached;
skipped with a warning when not trained) reranks the dense top k with its rule chosen on the carve; ``--fused`` mixes
that cross-encoder into the leaf head's greedy steps and stop (:mod:`graphhop.retrieve.leaves_fused`; rule chosen on
the carve)::

    GRAPHHOP_DATA=/work/shared/data python benchmarks/entailmentbank_leaves.py --split dev \\
        --index-dir .cache/golden --out runs/leaves/dev.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from graphhop.datasets.kgqa import data_root
from graphhop.eval.experiment import stride_sample
from graphhop.eval.script import run_script


def main() -> None:
    """Build (or open) the WorldTree index, choose the baselines' k on the carve, run the Experiment."""
    from graphhop.eval.golden import DEFAULT_INDEX_DIR
    from graphhop.eval.leaves import choose_k, evaluate_leaves, leaf_fused, leaf_reranker, leaf_systems
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.leaves import LeafRetriever
    from graphhop.train.leaf_encoder import open_leaf_index
    from graphhop.train.leaves import dev_examples, selection_examples

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", default="dev")
    parser.add_argument("--index-dir", type=Path, default=DEFAULT_INDEX_DIR)
    parser.add_argument("--head", default=None, help="A leaf head dir (default: the shipped one for the encoder).")
    parser.add_argument("--encoder", choices=("fine-tuned", "base"), default="fine-tuned",
                        help="The fine-tuned MiniLM (`graphhop train leaf-encoder`; falls back to base with a warning "
                             "when not cached) or the frozen MiniLM.")
    parser.add_argument("--reranker", default="auto",
                        help="The leaf reranker dir (`graphhop train leaf-reranker`); auto: the cached one of the default "
                             "recipe, pointwise / listwise: that recipe's, skipped with a warning when not trained; none: skip it.")
    parser.add_argument("--fused", default="none",
                        help="The cross-encoder mixed into the leaf head's steps and stop (its rule chosen on the carve, "
                             "stored beside it; session 7: the carve chose mix 0, the head alone): auto / a recipe name / "
                             "a dir as --reranker; none (default): skip those rows.")
    parser.add_argument("--fused-mix", type=float, default=None,
                        help="With --fused: the carve's best rule at this cross-encoder share instead of the chosen rule "
                             "(a row for the record; nothing is chosen on the report split).")
    parser.add_argument("--sample", type=int, default=None, help="Questions taken evenly over the split (default all).")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="Write the table as JSON here.")
    args = parser.parse_args()
    set_threads(args.threads)
    root = data_root()
    index = open_leaf_index(root, args.index_dir, fine_tuned=args.encoder == "fine-tuned", progress=True)
    examples = stride_sample(dev_examples(root, args.split), args.sample)
    carve = selection_examples(index, root)
    fixed = {m: choose_k(index, m, carve) for m in ("bm25", "dense", "hybrid")}
    reranker = leaf_reranker(index, root, args.reranker, carve)
    fused = leaf_fused(index, root, args.fused, carve, args.head, args.fused_mix)
    systems = leaf_systems(index, examples, LeafRetriever(index, args.head), fixed, reranker=reranker, fused=fused)
    table = evaluate_leaves(index, examples, systems, args.split)
    table.meta["k_chosen_on_carve"] = fixed
    table.meta["encoder"] = index.model
    if fused is not None:
        table.meta["fused"] = {"model": str(fused.model_dir), "rule": fused.rule}
    if reranker is not None:
        table.meta["reranker"] = {"model": str(reranker.model_dir), "rule": reranker.rule}
    print(table.markdown())
    print()
    print(table.markdown("leaves"))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(table.dumps(), encoding="utf-8")
        print(json.dumps({"written": str(args.out)}))


if __name__ == "__main__":
    run_script(main)
