"""Where ``text-kg`` loses an answer: in the extraction (the answer is not within reach in the extracted KB) or in
the reading (it is, and kgqa picks another path).

    python benchmarks/text_kg_coverage.py tests/pipeline/data/films tests/pipeline/data/bridges \
        [--hops 3] [--out runs/text-kg-coverage]

For each question whose gold answer is an entity (no yes/no, no count): the question's entities as kgqa links them in the KB of extracted triples
(:class:`graphhop.read.text_kb.TextKB`), then whether a gold answer is an entity of that KB, and whether it is
reached within ``--hops`` steps (either direction) from a linked entity, over the whole KB and over the facts
read in the question's gold passages alone (the extraction's share: a chain the gold passages state). Prints one row per folder: questions with
a gold answer, linked, answer in the KB, answer within reach, and text-kg right (`text_ask_eval.py --method
text-kg`'s measure). Writes <out>/<name>-coverage.json (every question's flags).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphhop.kb.store import KGStore
    from graphhop.pipeline.text_kg import TextKGPipeline
    from graphhop.read.text_kb import TextKB


#: Question types whose answer is no entity of the KB (yes/no, a count).
_NOT_ENTITIES = ("boolean", "yes/no", "count")


def reachable(store: KGStore, starts: list[int], hops: int) -> set[int]:
    """Entity ids within ``hops`` steps of ``starts`` over the store's edges, both directions."""
    import numpy as np

    seen = set(starts)
    frontier = np.asarray(sorted(seen), dtype=np.int64)
    for _ in range(hops):
        if not len(frontier):
            break
        nxt: set[int] = set()
        for forward in (True, False):
            edges = store.edges_of(frontier, forward)
            nxt.update((store.tails if forward else store.heads)[edges].tolist())
        frontier = np.asarray(sorted(nxt - seen), dtype=np.int64)
        seen |= nxt
    return seen


def _gold_reached(kb: TextKB, store: KGStore, starts: list[int], gold: set[int], passages: list[str],
                  hops: int) -> bool:
    """Whether a gold answer is within ``hops`` of a linked entity over the facts read in the gold passages alone."""
    from graphhop.kb.store import KGStore

    facts = [f for f in kb.facts if kb.docs[f.id] in set(passages)]
    if not facts or not starts or not gold:
        return False
    sub = KGStore.from_facts(facts)
    names = store.entities
    sub_starts = [sub.entity_id[names[e]] for e in starts if names[e] in sub.entity_id]
    sub_gold = {sub.entity_id[names[e]] for e in gold if names[e] in sub.entity_id}
    return bool(sub_gold & reachable(sub, sub_starts, hops))


def coverage_rows(pipe: TextKGPipeline, questions: list[dict[str, Any]], hops: int) -> list[dict[str, Any]]:
    """One dict of flags per question with a gold answer (module docstring)."""
    from graphhop.kb.names import fold_name
    from graphhop.metrics.qa import right_for_right_reason

    reader = pipe.reader
    by_name: dict[str, list[int]] = {}
    for i, name in enumerate(reader.store.entities):
        by_name.setdefault(fold_name(name), []).append(i)
    rows = []
    for q in questions:
        if not q["answers"] or q["type"] in _NOT_ENTITIES:
            continue
        starts = [e for m in reader.linker.link(q["question"]) for e in m.entities]
        gold = {i for a in q["answers"] for i in by_name.get(fold_name(a), [])}
        res = pipe.ask(q["question"])
        rows.append({"id": q["id"], "type": q["type"], "linked": bool(starts), "in_kb": bool(gold),
                     "reached": bool(gold & reachable(reader.store, starts, hops)),
                     "gold_reached": _gold_reached(pipe.kb, reader.store, starts, gold, q["gold_passages"], hops),
                     "right": bool(right_for_right_reason(res.answer or "", res.answers, res.support, res.supported,
                                                          q["type"], q["answers"], q["gold_passages"]))})
    return rows


def main() -> None:
    """Print the coverage row of each folder and write its questions' flags (module docstring)."""
    import json

    from text_ask_eval import suite_index

    from graphhop.io import atomic_write_text
    from graphhop.pipeline.registry import build_pipeline
    from graphhop.pipeline.text import load_suite

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="folders with passages.jsonl + questions.jsonl")
    ap.add_argument("--hops", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path("runs/text-kg-coverage"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    print("| set | entity answers | linked | answer in the KB | answer within reach | within reach by the gold passages' "
          "facts alone | text-kg right |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for folder in args.folders:
        pipe = build_pipeline("text-kg", suite_index(folder, args.out), hops=args.hops)
        rows = coverage_rows(pipe, load_suite(folder), args.hops)
        atomic_write_text(args.out / f"{folder.name}-coverage.json", json.dumps(rows, indent=1))
        sums = [sum(r[k] for r in rows) for k in ("linked", "in_kb", "reached", "gold_reached", "right")]
        print(f"| {folder.name} | {len(rows)} | " + " | ".join(map(str, sums)) + " |", flush=True)


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from graphhop.eval.script import run_script

    run_script(main)
