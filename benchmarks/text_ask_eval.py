"""`ask` over hand-written passage sets: right answer with every gold passage in the support.

    python benchmarks/text_ask_eval.py tests/regression/text_music tests/regression/text_elements \
        --out runs/text-ask [--bgr-model DIR | --grr] [--given-type] [--relation-matcher DIR] [--walk KEY=VALUE]
        [--method text-kg] [--ranker default|FILE]
    # the walk's chain reranker (graphhop.read.chain_rerank), a folder written by `graphhop train text-reranker`:
    python benchmarks/text_ask_eval.py DIR... --out OUT --walk reranker=MODEL --walk rerank_k=4 --walk rerank_w=0.25

A folder without passages.jsonl uses the bundled demo passages. Builds each folder's passages index once
(BM25 + flat dense, cached under --out), builds the registry's `text` pipeline (`grr` with --grr; BGR hop
by hop with --bgr-model) and scores it with one Experiment (measure `right`, by type and by hops); prints
the rate overall, per type and per hops (the figures of docs/RESULTS.md, issue 13). Each table, with
every question's answer and support, goes to <out>/<name>-<method>.json.
"""

from __future__ import annotations

import argparse
from pathlib import Path

def suite_index(folder: Path, out: Path):
    """The folder's passages index (the demo passages without passages.jsonl), built once under ``out``."""
    from graphhop.train.edge_reader import folder_index

    return folder_index(folder, out)


def walk_options(items: list[str]) -> dict[str, object]:
    """``--walk key=value`` options as Python values (numbers and true/false parsed); a key must be a
    :class:`~graphhop.read.walk.WalkReader` parameter."""
    import inspect
    import json

    from graphhop.core import InputError
    from graphhop.read.walk import WalkReader

    known = set(inspect.signature(WalkReader).parameters) - {"search", "encoder", "relation_matcher"}
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise InputError(f"--walk {item!r}: expected KEY=VALUE")
        if key not in known:
            raise InputError(f"--walk {item!r}: {key!r} is not a walk reader option ({', '.join(sorted(known))})")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def check_method(args: argparse.Namespace) -> None:
    """``--method text-kg`` takes none of the walk reader's options: one line naming the first one given."""
    if args.method != "text-kg":
        return
    given = [flag for flag, value in (("--grr", args.grr), ("--relation-matcher", args.relation_matcher),
                                      ("--walk", args.walk), ("--bgr-model", args.bgr_model),
                                      ("--ranker", args.ranker)) if value]
    if given:
        from graphhop.core import InputError

        raise InputError(f"{given[0]} is an option of the walk reader (--method text); --method text-kg does not take it")


def table_line(folder: str, method: str, table) -> str:
    """One markdown row: the rate overall, per type and per hops, seconds per question."""
    row = table.rows[0]
    by = {g: ", ".join(f"{r[g]} {r['right']:.2f} ({r['n']})" for r in table.groups[g]) for g in ("type", "hops")}
    return f"| {folder} | {method} | {row['n']} | {row['right']:.3f} | {by['type']} | {by['hops']} | {row['s/q']:.1f} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="folders with passages.jsonl + questions.jsonl")
    ap.add_argument("--out", type=Path, default=Path("runs/text-ask"))
    ap.add_argument("--bgr-model", type=Path, default=None, help="run BGR hop by hop instead of the beam retriever")
    ap.add_argument("--given-type", action="store_true", help="pass the suite's question type (default: detect)")
    ap.add_argument("--hops", type=int, default=3)
    ap.add_argument("--grr", action="store_true", help="the GRR-style baseline (entity links only after hop 1)")
    ap.add_argument("--method", default="text", choices=("text", "text-kg"),
                    help="the registry pipeline: text (the walk reader, default) or text-kg (passages read as "
                         "triples, answered by kgqa)")
    ap.add_argument("--relation-matcher", type=Path, default=None,
                    help="an experimental text relation matcher for the walk reader: a folder written by "
                         "`python -m graphhop.train.text_relation` (default: none)")
    ap.add_argument("--walk", action="append", default=[], metavar="KEY=VALUE",
                    help="a walk reader option (graphhop.read.walk.WalkReader), e.g. relation_scale=5; repeatable")
    ap.add_argument("--ranker", default=None, metavar="default|FILE",
                    help="re-order the walk reader's readings by the learned ranker (graphhop.read.walk_ranker; "
                         "default: the shipped weights; off by default: docs/RESULTS.md, issue 13, session 12)")
    ap.add_argument("--bridges", action="store_true",
                    help="add the answer's bridge passages to its support (graphhop.read.text_qa.TextQA.bridged; off by default)")
    args = ap.parse_args()

    from graphhop.eval.experiment import Experiment, ask_system
    from graphhop.eval.measures import RIGHT
    from graphhop.eval.tasks import suite_task
    from graphhop.io import atomic_write_text
    from graphhop.pipeline.registry import build_pipeline

    walk = walk_options(args.walk)  # bad keys fail before any work
    check_method(args)
    args.out.mkdir(parents=True, exist_ok=True)
    print("| set | method | n | right (all) | by type | by hops | s/question |")
    print("|---|---|---:|---:|---|---|---:|")
    for folder in args.folders:
        questions, golds, qtypes = suite_task(folder)
        if args.method == "text-kg":
            pipe = build_pipeline("text-kg", suite_index(folder, args.out), hops=args.hops)
        else:
            pipe = build_pipeline("grr" if args.grr else "text", suite_index(folder, args.out), hops=args.hops,
                                  bgr_model=args.bgr_model, relation_matcher=args.relation_matcher,
                                  walk_options=walk, ranker=args.ranker, bridges=args.bridges)
        system = ask_system(pipe, qtypes=qtypes if args.given_type else None, explain=True)
        table = Experiment([RIGHT], report=folder.name, title=f"{folder.name} {pipe.name}").run(
            {pipe.name: system}, questions, golds)
        atomic_write_text(args.out / f"{folder.name}-{pipe.name}.json", table.dumps())
        print(table_line(folder.name, pipe.name, table))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
