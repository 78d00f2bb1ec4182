"""Why ``kgqa`` is not right for the right reason on hand-written KBs (``kb.tsv`` + ``questions.jsonl``): every
question whose answer is wrong, withheld, or right with an incomplete support, put in one kind.

Kinds, tried in this order (the gold relation chain is the gold facts' relations in order, deduplicated):
``withheld``              no supported answer;
``yes/no wrong``          a yes/no question answered wrong;
``comparison wrong``      a comparison answered wrong;
``support short``         the answer is right but a gold fact is missing from the support;
``count: wrong number``   a count answered over the gold chain, the number is wrong;
``other entity linked``   the chain starts at an entity the gold facts do not name;
``typing moved``          the scorer's own chain was the gold chain, the answer typing moved it off;
``end too far``           the chain used is the gold chain and more (the answer is past the asked thing);
``end too near``          the chain used stops inside the gold chain;
``wrong relation hop k``  the chain used leaves the gold chain at hop k (k = 1..4);
``gold chain, wrong answer`` the gold chain was used and the answer is still wrong (aggregation, ranking);
``other``.

    GRAPHHOP_DATA=../shared/data .venv/bin/python benchmarks/kgqa_hand_misses.py tests/kgqa/data/kg_* -o abstain=false
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

KINDS = ("withheld", "yes/no wrong", "comparison wrong", "support short", "count: wrong number", "other entity linked",
         "typing moved", "end too far", "end too near", "wrong relation hop 1", "wrong relation hop 2",
         "wrong relation hop 3", "wrong relation hop 4", "gold chain, wrong answer", "other")


def _bare(rel: str) -> str:
    """A relation without its walking-backward marks (``^r``, ``r_inverse``), normalised."""
    from graphhop.kgqa.evaluate import _norm

    rel = rel.lstrip("^")
    return _norm(rel[: -len("_inverse")] if rel.endswith("_inverse") else rel)


def gold_relations(facts: Sequence[Sequence[str]]) -> list[str]:
    """The gold facts' relations in order of first use."""
    out: list[str] = []
    for _, r, _ in facts:
        if _bare(r) not in out:
            out.append(_bare(r))
    return out


def miss_kind(ex: Any, res: dict[str, Any], row: dict[str, Any]) -> str | None:
    """None when right for the right reason, else the kind of miss (see the module docstring)."""
    from graphhop.kgqa.evaluate import _norm

    if row["right_reason"]:
        return None
    if not res.get("supported", bool(res.get("answer"))):
        return "withheld"
    if ex.qtype == "yes/no" and not row["hits1"]:
        return "yes/no wrong"
    if ex.qtype == "comparison" and not row["hits1"]:
        return "comparison wrong"
    if row["hits1"]:
        return "support short"
    trace = res.get("trace") or {}
    used = [_bare(r) for r in trace.get("relation_path") or []]
    gold = gold_relations(ex.gold_facts)
    best = (trace.get("paths") or [{}])[0]
    named = {_norm(x) for f in ex.gold_facts for x in (f[0], f[2])}
    if best.get("topic") and not named & {_norm(t) for t in best["topic"]}:
        return "other entity linked"
    scorer = [_bare(r) for r in (trace.get("answer_type") or {}).get("scorer_path") or []]
    if scorer == gold and used != gold:
        return "typing moved"
    if used == gold:
        return "count: wrong number" if ex.qtype == "count" else "gold chain, wrong answer"
    if not used:
        return "other"
    if used[: len(gold)] == gold:
        return "end too far"
    if gold[: len(used)] == used:
        return "end too near"
    k = next(i for i, (a, b) in enumerate(zip(used + [""] * 4, gold + [""] * 4)) if a != b)
    return f"wrong relation hop {min(k + 1, 4)}"


def run(folder: Path, options: dict[str, str]) -> list[dict[str, Any]]:
    """Per-question rows of one hand-written KB: the scored row plus its kind and the chains."""
    from graphhop.cli.kgqa import support_triples
    from graphhop.evaluation import dataset_index
    from graphhop.kgqa.evaluate import load_regression, score_example
    from graphhop.pipeline.registry import build_pipeline

    kb, examples = load_regression(folder)
    pipe = build_pipeline("kgqa", dataset_index(kb, dense=None, progress=False), **options)
    rows = []
    for ex in examples:
        got = pipe.ask(ex.question)
        res = {"answer": got.answer, "answers": got.answers, "supported": got.supported,
               "support_graph": got.support_graph, "trace": got.trace or {}}
        row = score_example(ex, res, support_triples(res))
        trace = res["trace"]
        row.update(set=folder.name, question=ex.question, kind=miss_kind(ex, res, row),
                   used=trace.get("relation_path"), gold_chain=gold_relations(ex.gold_facts),
                   scorer_path=(trace.get("answer_type") or {}).get("scorer_path"), answers=res.get("answers", [])[:6])
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown: misses by kind, per question type."""
    types = sorted({r["qtype"] for r in rows})
    lines = ["| kind | " + " | ".join(types) + " | all |", "|---|" + "---|" * (len(types) + 1)]
    for kind in KINDS:
        c = Counter(r["qtype"] for r in rows if r["kind"] == kind)
        if c:
            lines.append(f"| {kind} | " + " | ".join(str(c[t] or "") for t in types) + f" | {sum(c.values())} |")
    right = Counter(r["qtype"] for r in rows if r["kind"] is None)
    n = Counter(r["qtype"] for r in rows)
    lines.append("| **right reason** | " + " | ".join(f"{right[t]}/{n[t]}" for t in types) + f" | {sum(right.values())}/{len(rows)} |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="+", help="hand-written KB folders (kb.tsv + questions.jsonl)")
    ap.add_argument("--option", "-o", action="append", default=[], help="KEY=VALUE option of the kgqa pipeline (abstain=false)")
    ap.add_argument("--details", help="also write one JSON line per question here")
    args = ap.parse_args()
    from graphhop.cli.common import key_values
    from graphhop.models.encoder import set_threads

    set_threads(1)
    options = key_values(args.option)
    rows = [r for f in args.folders for r in run(Path(f), options)]
    print("\n".join(table(rows)))
    if args.details:
        with open(args.details, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows)


if __name__ == "__main__":
    main()
