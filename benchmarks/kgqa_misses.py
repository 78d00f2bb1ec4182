"""Why ``kgqa`` misses: each wrong or withheld answer on the *selection* questions of a training set (never
trained on, never the reported dev questions; MetaQA: of the fit half of dev) put in one kind, per question type.

Kinds, tried in this order:
``read as yes/no``      withheld because the question was read as a yes/no claim (``can you name ...``);
``no entity linked``    withheld: no KB entity found in the question;
``under threshold``     withheld: the best chain's probability is under the threshold;
``not in the KB``       the gold relation chain reaches no gold answer from the topic in this KB (MetaQA: the
                        shared KB is 96% of the original) — no path can be right;
``other entity linked`` the answer's chain starts at an entity that is not the question's topic;
``answer order``        a gold answer is among the answers, another is first (merged same-name entities:
                        MetaQA's ``Proof`` is two films, the gold lists one film's year);
``other relation``      the chain used is not the gold relation chain (``written_by`` for ``directed_by``);
``other``               anything else.

    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_misses.py --datasets metaqa-1h
    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_misses.py --datasets metaqa-1h --fit-rest --sample 1000
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from typing import Any

KINDS = ("read as yes/no", "no entity linked", "under threshold", "not in the KB", "other entity linked",
         "answer order", "other relation", "other")


def gold_chain(ex: Any) -> list[str]:
    """The gold relation chain as ``kgqa`` writes it (``^`` = walked backward): MetaQA from its question type,
    PathQuestion / WC2014 from the first gold path."""
    from graphhop.datasets.kgqa import metaqa_relation_chain

    if "_to_" in ex.qtype:
        return [("" if fwd else "^") + rel for rel, fwd in metaqa_relation_chain(ex.qtype)]
    return [r for _, r, _ in (ex.gold_paths[0] if ex.gold_paths else [])]


def miss_kind(ex: Any, res: Any) -> str | None:
    """None when the top answer is gold, else the kind of miss (see the module docstring)."""
    from graphhop.kgqa.evaluate import _norm

    gold = {_norm(a) for a in ex.answers}
    if res.answer and _norm(res.answer) in gold:
        return None
    trace = res.trace or {}
    if not res.supported:
        if res.qtype == "boolean":
            return "read as yes/no"
        reason = str(trace.get("reason", ""))
        return "no entity linked" if "no entity" in reason else "under threshold"
    if not ex.gold_paths:
        return "not in the KB"
    best = (trace.get("paths") or [{}])[0]
    topic = {_norm(t) for t in ex.topic_entities[:1]}
    if topic and best.get("topic") and not topic & {_norm(t) for t in best["topic"]}:
        return "other entity linked"
    if any(_norm(a) in gold for a in res.answers):
        return "answer order"
    if best.get("relation_path") and best["relation_path"] != gold_chain(ex):
        return "other relation"
    return "other"


def run(name: str, sample: int | None, rest: bool, options: dict[str, str]) -> tuple[list[dict[str, Any]], int]:
    """Per-question rows (question, type, kind, answer, gold) of one set's selection questions."""
    from graphhop.evaluation import dataset_index
    from graphhop.kgqa.evaluate import selection_examples, stride_sample
    from graphhop.pipeline.registry import build_pipeline

    kb, examples = selection_examples(name, rest=rest)
    total = len(examples)
    examples = stride_sample(examples, sample)
    pipe = build_pipeline("kgqa", dataset_index(kb, dense=None, progress=False), **options)
    rows = []
    for ex in examples:
        res = pipe.ask(ex.question)
        rows.append({"set": name, "question": ex.question, "qtype": ex.qtype, "kind": miss_kind(ex, res),
                     "answer": res.answer, "answers": res.answers[:5], "gold": ex.answers[:5]})
    return rows, total


def table(rows: list[dict[str, Any]], totals: dict[str, int]) -> list[str]:
    """Markdown: per set and question type, n, Hits@1 and the count of each kind of miss."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for r in rows:
        groups[(r["set"], "all")].append(r)
        groups[(r["set"], r["qtype"])].append(r)
    lines = ["| set | question type | n | Hits@1 | " + " | ".join(KINDS) + " |", "|" + "---|" * (len(KINDS) + 4)]
    for (name, qtype), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] != "all", kv[0][1])):
        kinds = Counter(r["kind"] for r in rs)
        n = f"{len(rs)} of {totals[name]}" if qtype == "all" else str(len(rs))
        lines.append(f"| {name} | {qtype} | {n} | {kinds[None] / len(rs):.3f} | "
                     + " | ".join(str(kinds[k] or "") for k in KINDS) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", default="metaqa-1h", help="training sets of the scorer, comma-separated")
    ap.add_argument("--sample", type=int, default=None, help="an even stride of this many selection questions (default: all)")
    ap.add_argument("--fit-rest", action="store_true", help="MetaQA: the fit half's questions outside its selection part")
    ap.add_argument("--option", "-o", action="append", default=[], help="KEY=VALUE option of the kgqa pipeline")
    ap.add_argument("--details", help="also write one JSON line per question here")
    args = ap.parse_args()
    from graphhop.cli.common import key_values
    from graphhop.models.encoder import set_threads

    set_threads(1)
    options = key_values(args.option)
    rows, totals = [], {}
    for name in args.datasets.split(","):
        got, totals[name] = run(name, args.sample, args.fit_rest, options)
        rows += got
    print("\n".join(table(rows, totals)))
    if args.details:
        with open(args.details, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


if __name__ == "__main__":
    main()
