"""Rules of the ``kgqa`` pipeline compared on the *selection* part of the training questions (never
trained on, never the reported dev questions): one option of the pipeline, each of its values.

For each training set of the scorer, an even stride of its selection questions is answered by the
registry's ``kgqa`` pipeline once per value of ``--option`` (default: ``topic_answers``, when it may
answer with the question's own entity: ``never``, ``no-walk-back``, ``always``; ``answer_order``: how
the answers of a path are ordered, ``degree`` or ``name``; ``confidence``: what the threshold is
compared with, ``answer`` or ``path``; ``walk_back``: whether a relation walked straight back may return to
what it came from, ``others`` or ``any``); the table gives answer Hits@1, right-for-the-right-reason and
the share abstained per set, and the questions right and answered wrong in total.

    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_rules.py --sample 150
    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_rules.py --option answer_order --values degree,name
    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_rules.py --option answer_order --fit-rest \
        --datasets metaqa-1h,metaqa-2h,metaqa-3h --sample 600
"""

from __future__ import annotations

import argparse
import json

from graphhop.kgqa.train import TRAIN_SETS

OPTIONS = {"topic_answers": "never,no-walk-back,always", "answer_order": "degree,name", "confidence": "answer,path",
           "walk_back": "others,any"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(n for n, _ in TRAIN_SETS))
    ap.add_argument("--sample", type=int, default=150, help="selection questions per set, an even stride")
    ap.add_argument("--option", default="topic_answers", help="a kgqa pipeline option")
    ap.add_argument("--fit-rest", action="store_true",
                    help="MetaQA sets only: the fit half's questions outside its selection part (a second, larger check)")
    ap.add_argument("--values", help=f"its values, comma-separated (default for {', '.join(OPTIONS)}: {'; '.join(OPTIONS.values())})")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    ap.add_argument("--weights", help="KGQA scorer directory (default: the shipped weights)")
    args = ap.parse_args()
    if args.values is None and args.option not in OPTIONS:
        ap.error(f"--values is needed for --option {args.option}")
    rules = (args.values or OPTIONS[args.option]).split(",")
    from graphhop.cli.kgqa import _make_ask
    from graphhop.kgqa.evaluate import evaluate_examples, selection_examples, stride_sample, summarize
    from graphhop.models.encoder import set_threads

    set_threads(1)
    rows, right, wrong = [], dict.fromkeys(rules, 0), dict.fromkeys(rules, 0)
    print("| set | questions | " + " | ".join(f"{r}: Hits@1 / right reason / abstained" for r in rules) + " |")
    print("|---|---|" + "---|" * len(rules))
    for name in args.datasets.split(","):
        kb, examples = selection_examples(name, rest=args.fit_rest)
        examples = stride_sample(examples, args.sample)
        cells = []
        for rule in rules:
            ask, triples_of = _make_ask("kgqa", args.weights, None, extra={args.option: rule})(kb)  # the pipeline eval-qa runs, at its default hops
            s = summarize(evaluate_examples(ask, examples, triples_of))
            right[rule] += round(s["answer_hits1"] * s["n"])
            wrong[rule] += round((1 - s["answer_hits1"] - s["abstained"]) * s["n"])
            rows.append({"set": name, args.option: rule, **{k: s[k] for k in ("n", "answer_hits1", "right_reason", "abstained")}})
            cells.append(f"{s['answer_hits1']:.3f} / {s['right_reason']:.3f} / {s['abstained']:.3f}")
        print(f"| {name} | {len(examples)} | " + " | ".join(cells) + " |", flush=True)
    print("| all: questions right / answered wrong | | " + " | ".join(f"{right[r]} / {wrong[r]}" for r in rules) + " |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
