"""Where the gold chain stands while ``kgqa`` reads a hand-written KB: at each hop, the head's rank of the gold
chain's prefix among that hop's new paths (did the beam keep it growing?), the rank after the in-beam reranker
(``-o rerank_beam=M``), and the gold chain's rank in the final reading (after the final reorder).

The gold chain and the reading are found as the reranker's training lists find them
(:func:`graphhop.kgqa.rerank_train.reading_gold`: the first reading whose topic holds the first gold fact's entity).
``--folds DIR`` answers each KB with ``DIR/fold{i % 3}``, i its place among its folder's sorted ``kg_*`` (the reranker fold
that never saw it: docs/RESULTS.md, issue 12, "Session 14 (kgx14)"); ``--details D`` reads each KB's right-reason
from ``D/<kb>.off.details`` (an ``eval-qa --details`` run) to split the table by right and wrong.

    python benchmarks/kgqa_beam_ranks.py tests/kgqa/data/kg_* --folds /work/s15/folds --details OOF --out ranks.jsonl
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any, Sequence


def _hop_record(hops: list[tuple[list, list]], steps: tuple, beam: int) -> list[dict[str, Any] | str]:
    """Per prefix of ``steps`` (hops 1..n-1): head rank, rank after the in-beam reorder; ``all`` when the hop had
    no more new paths than the beam (every one grows), ``absent`` when the prefix was not among them."""
    out: list[dict[str, Any] | str] = []
    for h in range(1, len(steps)):
        got = [(head, moved) for head, moved in hops if head and len(head[0]) == h]
        if not got:
            out.append("all")
            continue
        head, moved = got[0]
        pre = steps[:h]
        out.append({"head": head.index(pre), "beam": moved.index(pre)} if pre in head else "absent")
    return out


def run(folder: Path, rerank: str | None, options: dict[str, Any]) -> list[dict[str, Any]]:
    """One record per question with a gold chain: ranks of its prefixes per hop and of the chain at the end."""
    import graphhop.kgqa.pipeline as kp
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.evaluate import load_regression
    from graphhop.kgqa.rerank_train import reading_gold

    kb, examples = load_regression(folder)
    kgqa = kp.KGQA(KGStore.from_facts(iter_triples(kb)), abstain=False, rerank=rerank or False, **options)
    plain_expand, plain_read, seen = kp.expand, kgqa.read, []

    def expand(store: Any, topic: Sequence[int], score: Any = None, **kw: Any) -> Any:
        hops: list[tuple[list, list]] = []
        inner = kw.get("reorder")

        def reorder(new: list) -> list:
            moved = inner(new) if inner is not None else new
            hops.append(([p.steps for p in new], [p.steps for p in moved]))
            return moved
        kw["reorder"] = reorder
        seen.append(hops)
        return plain_expand(store, topic, score, **kw)

    def read(*args: Any, **kw: Any) -> Any:
        got = plain_read(*args, **kw)
        seen[-1] = (seen[-1], got)
        return got
    kp.expand, kgqa.read = expand, read  # type: ignore[method-assign]
    out = []
    try:
        for ex in examples:
            seen.clear()
            kgqa.ask(ex.question)
            for hops, reading in [x for x in seen if isinstance(x, tuple)]:
                steps = reading_gold(kgqa.store, reading.mention.entities, ex.gold_facts)
                if steps:
                    final = [p.steps for p in reading.paths]
                    out.append({"kb": folder.name, "id": ex.id, "hops": len(steps), "qtype": ex.qtype,
                                "prefixes": _hop_record(hops, steps, kgqa.beam),
                                "final": final.index(steps) if steps in final else None})
                    break
    finally:
        kp.expand = plain_expand
    return out


def table(rows: list[dict[str, Any]], right: dict[tuple[str, str], bool], beam: int) -> list[str]:
    """Markdown: per prefix hop, kept / dropped by the head's beam and after the in-beam reorder; final ranks."""
    c: Counter = Counter()
    for r in rows:
        ok = right.get((r["kb"], r["id"]))
        for h, x in enumerate(r["prefixes"], 1):
            if isinstance(x, str):
                c[(h, x, "head", ok)] += 1
                c[(h, x, "beam", ok)] += 1
            else:
                c[(h, "kept" if x["head"] < beam else "dropped", "head", ok)] += 1
                c[(h, "kept" if x["beam"] < beam else "dropped", "beam", ok)] += 1
    lines = ["| prefix hop | all grown | kept by the head | dropped by the head | dropped after in-beam | absent |",
             "|---|---:|---:|---:|---:|---:|"]
    for h in sorted({k[0] for k in c}):
        get = lambda kind, who: sum(v for k, v in c.items() if k[:3] == (h, kind, who))  # noqa: E731
        lines.append(f"| {h} | {get('all', 'head')} | {get('kept', 'head')} | {get('dropped', 'head')} "
                     f"| {get('dropped', 'beam')} | {get('absent', 'head')} |")
    wrong = [r for r in rows if right.get((r["kb"], r["id"])) is False]
    ranks = Counter("absent" if r["final"] is None else ("0" if r["final"] == 0 else "1-7" if r["final"] < 8 else "8+")
                    for r in wrong)
    lines += ["", f"gold chain's final rank, questions not right for the right reason ({len(wrong)}): "
              + ", ".join(f"{k}: {ranks[k]}" for k in ("0", "1-7", "8+", "absent"))]
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--folds", type=Path, help="reranker folds DIR/fold0..2 by stride over the sorted names")
    ap.add_argument("--details", type=Path, help="DIR of eval-qa details (<kb>.off.details) for right / wrong")
    ap.add_argument("--rerank-beam", type=int, default=0)
    ap.add_argument("--rerank-beam-w", type=float)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    folders = sorted(args.folders, key=lambda p: p.name)
    rows: list[dict[str, Any]] = []
    for folder in folders:
        i = sorted(p.name for p in folder.parent.glob("kg_*")).index(folder.name)
        fold = str(args.folds / f"fold{i % 3}") if args.folds else None
        rows += run(folder, fold, {"rerank_beam": args.rerank_beam, "rerank_beam_w": args.rerank_beam_w} if fold else {})
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    right: dict[tuple[str, str], bool] = {}
    for folder in folders if args.details else []:
        for line in open(args.details / f"{folder.name}.off.details"):
            d = json.loads(line)
            right[(folder.name, d["id"])] = bool(d["right_reason"])
    print("\n".join(table(rows, right, 10)))


if __name__ == "__main__":
    main()
