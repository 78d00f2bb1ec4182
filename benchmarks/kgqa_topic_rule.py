"""When may ``kgqa`` answer with the question's own entity? The rules of ``topic_answers`` compared on
the *selection* part of the training questions (never trained on, never the reported dev questions).

For each training set of the scorer, an even stride of its selection questions is answered by the
registry's ``kgqa`` pipeline once per rule (``never``, ``no-walk-back``, ``always``); the table gives
answer Hits@1 and right-for-the-right-reason per set and the questions right in total.

    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_topic_rule.py --sample 150
"""

from __future__ import annotations

import argparse
import json

from graphhop.kgqa.train import TRAIN_SETS

RULES = ("never", "no-walk-back", "always")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default=",".join(n for n, _ in TRAIN_SETS))
    ap.add_argument("--sample", type=int, default=150, help="selection questions per set, an even stride")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    args = ap.parse_args()
    from graphhop.cli.kgqa import support_triples
    from graphhop.evaluation import dataset_index
    from graphhop.kgqa.evaluate import evaluate_examples, selection_examples, stride_sample, summarize
    from graphhop.models.encoder import set_threads
    from graphhop.pipeline.registry import build_pipeline

    set_threads(1)
    rows, right = [], dict.fromkeys(RULES, 0)
    print("| set | questions | " + " | ".join(f"{r}: Hits@1 / right reason" for r in RULES) + " |")
    print("|---|---|" + "---|" * len(RULES))
    for name in args.datasets.split(","):
        kb, examples = selection_examples(name)
        examples = stride_sample(examples, args.sample)
        index = dataset_index(kb, dense=None, progress=False)
        cells = []
        for rule in RULES:
            pipe = build_pipeline("kgqa", index, topic_answers=rule)

            def ask(question: str, pipe=pipe) -> dict:
                res = pipe.ask(question)
                return {"answer": res.answer, "answers": res.answers, "supported": res.supported, "support_graph": res.support_graph}

            s = summarize(evaluate_examples(ask, examples, support_triples))
            right[rule] += round(s["answer_hits1"] * s["n"])
            rows.append({"set": name, "rule": rule, **{k: s[k] for k in ("n", "answer_hits1", "right_reason", "abstained")}})
            cells.append(f"{s['answer_hits1']:.3f} / {s['right_reason']:.3f}")
        print(f"| {name} | {len(examples)} | " + " | ".join(cells) + " |", flush=True)
    print("| all: questions right | | " + " | ".join(str(right[r]) for r in RULES) + " |")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
