"""Fit, cross-validate and measure the walk reader's learned ranker (:mod:`graphhop.read.walk_ranker`).

    python benchmarks/walk_ranker_fit.py collect --out runs/ranker            # every reading of every selection question
    python benchmarks/walk_ranker_fit.py collect --out DIR --types plain --walk entity_cap=2   # one type, a walk option
    python benchmarks/walk_ranker_fit.py ceiling --out runs/ranker            # is a right reading among the candidates?
    python benchmarks/walk_ranker_fit.py generation --list --out runs/ranker  # why not (each question with --list)
    python benchmarks/walk_ranker_fit.py cv --out runs/ranker [--l2 1.0]      # leave-one-set-out, end to end
    python benchmarks/walk_ranker_fit.py fit --out runs/ranker [--l2 1.0]     # all 19 sets -> src/graphhop/weights/walk_ranker.json

Selection sets only (``tests/pipeline/data``): ten written blind, nine by engineers. ``collect`` runs ``ask`` (walk
reader, type detected, as ``benchmarks/text_ask_eval.py`` does) on every question and keeps each read's readings and
:data:`~graphhop.read.walk_ranker.FEATURES`; a reading is labelled right when its text is a gold answer and its
support holds every gold passage (list questions: a gold item). ``cv`` fits on 18 sets, answers the 19th end to
end with that model (the measure of ``text_ask_eval.py``: answer right AND every gold passage in the support).
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
DATA = ROOT / "tests" / "pipeline" / "data"
BLIND = ("expeditions", "universities", "ferries", "glassworks", "clockmakers", "lighthouses", "printing", "volcanoes",
         "mines", "circuses")
ENGINEER = ("theatres", "observatories", "clubs", "paintings", "films", "europe", "bridges", "ships", "railways")
#: The engineer-written sets' type names as the blind sets write them.
SAME_TYPE = {"query": "plain", "boolean": "yes/no"}


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


def run_set(name: str, out: Path, ranker: Any = None, ids: set[str] | None = None, types: set[str] | None = None,
            walk: dict[str, Any] | None = None) -> list[dict]:
    """Every question of set ``name`` (those of ``ids`` when given) asked with the walk reader re-ordered by
    ``ranker`` (None: as the walk reader reads; ``walk``: walk reader options, ``types``: only these types); per question: id, type, gold, answer, right, and each read's
    readings and features."""
    from text_ask_eval import suite_index

    from graphhop.metrics.qa import right_for_right_reason
    from graphhop.pipeline.text import TextPipeline, load_suite
    from graphhop.read.walk_ranker import RankedWalkReader

    index = suite_index(DATA / name, out / "index")
    pipe = TextPipeline(index, ranker=None)
    record: list = []
    pipe.qa.reader = RankedWalkReader(pipe.qa.reader.graph.search, ranker=ranker, record=record, **(walk or {}))
    rows = []
    for q in load_suite(DATA / name):
        if ids is not None and q["id"] not in ids or types and SAME_TYPE.get(q.get("type", ""), q.get("type")) not in types:
            continue
        record.clear()
        res = pipe.ask(q["question"])
        gold, evidence = list(q.get("answers", [])), set(q.get("gold_passages", []))
        right = right_for_right_reason(res.answer or "", res.answers, res.support, res.supported,
                                       q.get("type", ""), gold, evidence)
        reads = [{"question": qu, "query": qy, "texts": [r.text for r in rs], "paths": [r.path for r in rs],
                  "margins": [r.margin for r in rs], "x": x} for qu, qy, rs, x in record]
        rows.append({"set": name, "id": q["id"], "type": SAME_TYPE.get(q.get("type", ""), q.get("type", "")), "question": q["question"], "gold": gold,
                     "evidence": sorted(evidence), "answer": res.answer, "answers": res.answers, "right": bool(right),
                     "reads": reads})
    print(f"{name}: {sum(r['right'] for r in rows)} of {len(rows)}", file=sys.stderr, flush=True)
    return rows


def labels(row: dict, read: dict) -> np.ndarray:
    """1 for each reading of ``read`` whose text is a gold answer (an item of a list) with every gold passage
    in its path (a list item: a gold passage of the question)."""
    from graphhop.train.text_reranker import reading_labels

    return np.array(reading_labels(row, read), dtype=float)


def top_read(row: dict) -> dict | None:
    """The question's own wh-reading (plain and list questions), the one the ranker re-orders."""
    for read in row["reads"]:
        if read["question"] == row["question"] and read["query"] is None:
            return read
    return None


def ceiling(rows: list[dict]) -> dict[str, dict[str, int]]:
    """Per set group and type: questions, right now, a right reading among the top read's candidates (plain,
    list: every gold item with a gold passage), every gold passage on some candidate's path (all reads)."""
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        group = "blind" if row["set"] in BLIND else "engineer"
        c = out.setdefault(f"{group} {row['type']}", {"n": 0, "right": 0, "candidate": 0, "evidence": 0, "rank1": 0})
        c["n"] += 1
        c["right"] += row["right"]
        read = top_read(row)
        if read is not None and row["type"] in ("plain", "list"):
            y = labels(row, read)
            if row["type"] == "list":
                got = {_plain(t) for t, ok in zip(read["texts"], y) if ok}
                c["candidate"] += got >= {_plain(a) for a in row["gold"]}
            else:
                c["candidate"] += bool(y.any())
                c["rank1"] += bool(y.any()) and bool(y[int(np.argmax(read["margins"]))])
        paths = {d for r in row["reads"] for p in r["paths"] for d in p}
        c["evidence"] += set(row["evidence"]) <= paths
    return out


def generation(rows: list[dict], out: Path, listed: list | None = None) -> dict[str, int]:
    """Why a plain question has no right reading among its candidates: no reading at all (no entity / no edge),
    the answer read but without every gold passage on its path, the answer a mention of a gold passage's sentence
    graph that the walk did not reach, or no mention of it there at all."""
    from text_ask_eval import suite_index

    from graphhop.kb.names import fold_name
    from graphhop.read.sentence_graph import SentenceGraph, title_name
    from graphhop.retrieve.texthop import HopSearch

    count: dict[str, int] = {}
    graphs: dict[str, SentenceGraph] = {}
    for row in rows:
        read = top_read(row)
        if row["type"] != "plain" or (read is not None and labels(row, read).any()):
            continue
        if row["set"] not in graphs:
            graphs[row["set"]] = SentenceGraph(HopSearch(suite_index(DATA / row["set"], out / "index")))
        graph, gold = graphs[row["set"]], {fold_name(a) for a in row["gold"]}
        ents = graph.entities(row["question"])
        ev = set(row["evidence"])
        starts = ents + [title_name(graph.index.docs[d].title) for d in ev]
        mention = any(fold_name(e.target) in gold and e.doc in ev for s in starts for e in graph.edges(s))
        if read is None:
            why = "no reading" + ("" if ents else " (no entity found)")
        elif any(fold_name(t) in gold for t in read["texts"]):
            why = "answer read, a gold passage off its path"
        else:
            why = "answer a mention, not reached" if mention else "answer no mention of a gold passage's edges"
        key = f"{'blind' if row['set'] in BLIND else 'engineer'}: {why}"
        count[key] = count.get(key, 0) + 1
        if listed is not None:
            listed.append((key, row["id"], row["question"], row["gold"][:1], row["answer"]))
    return count


def training(rows: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and sample weights (each question weighs 1 in all) of the top reads that hold a right
    reading and a wrong one (plain and list questions)."""
    xs, ys, ws = [], [], []
    for row in rows:
        read = top_read(row)
        if read is None or row["type"] not in ("plain", "list") or len(read["texts"]) < 2:
            continue
        y = labels(row, read)
        if 0 < y.sum() < len(y):
            xs.append(read["x"])
            ys.append(y)
            ws.append(np.full(len(y), 1.0 / len(y)))
    return np.vstack(xs), np.concatenate(ys), np.concatenate(ws)


def fit(rows: list[dict], l2: float, card: dict | None = None) -> Any:
    """The ranker fit on ``rows``."""
    from graphhop.read.walk_ranker import ReadingRanker

    x, y, w = training(rows)
    return ReadingRanker.fit(x, y, l2=l2, sample_weight=w * len(w) / w.sum(), card=card)


def offline_top1(rows: list[dict], model: Any) -> int:
    """Plain questions whose best reading under ``model`` is right (the walk's answer/no-answer kept)."""
    n = 0
    for row in rows:
        read = top_read(row)
        if read is None or row["type"] != "plain" or max(read["margins"]) <= 0:
            continue
        y = labels(row, read)
        pick = int(np.argmax(model.scores(read["x"]))) if model is not None else int(np.argmax(read["margins"]))
        n += bool(y[pick])
    return n


def moved(row: dict, model: Any) -> bool:
    """Whether ``model`` hands any recorded wh-read of ``row`` its margins in another order (else the question is
    read exactly as the walk reader reads it and need not be asked again)."""
    for read in row["reads"]:
        if read["query"] is not None or len(read["texts"]) < 2:
            continue
        margins = np.asarray(read["margins"], dtype=float)
        again = np.empty_like(margins)
        again[np.argsort(-model.scores(read["x"]), kind="stable")] = np.sort(margins)[::-1]
        if not np.array_equal(again, margins):
            return True
    return False


def load(out: Path) -> list[dict]:
    """The rows ``collect`` wrote under ``out`` (type names as the blind sets write them)."""
    with open(out / "collect.pkl", "rb") as f:
        rows = pickle.load(f)
    for row in rows:
        row["type"] = SAME_TYPE.get(row["type"], row["type"])
    return rows


def main() -> None:
    """The command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=("collect", "ceiling", "generation", "offline", "cv", "fit"))
    ap.add_argument("--out", type=Path, default=Path("runs/ranker"))
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--types", nargs="*", default=None, help="collect: only questions of these types (plain, list, ...)")
    ap.add_argument("--walk", action="append", default=[], metavar="KEY=VALUE", help="collect: a walk reader option")
    ap.add_argument("--list", action="store_true", help="generation: also each question without a right candidate")
    ap.add_argument("--sets", nargs="*", default=list(BLIND + ENGINEER))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.command == "collect":
        from text_ask_eval import walk_options

        walk = walk_options(args.walk)
        rows = [row for name in args.sets for row in run_set(name, args.out, types=set(args.types or ()), walk=walk)]
        with open(args.out / "collect.pkl", "wb") as f:
            pickle.dump(rows, f)
        print(json.dumps({s: sum(r["right"] for r in rows if r["set"] == s) for s in args.sets}))
        return
    rows = load(args.out)
    if args.command == "ceiling":
        for key, c in sorted(ceiling(rows).items()):
            print(f"| {key} | {c['n']} | {c['right']} | {c['rank1']} | {c['candidate']} | {c['evidence']} |")
        return
    if args.command == "generation":
        listed: list = []
        for key, n in sorted(generation(rows, args.out, listed).items()):
            print(f"| {key} | {n} |")
        if args.list:
            for key, qid, question, gold, answer in sorted(listed):
                print(f"| {key} | {qid} | {question} | {gold[0] if gold else ''} | {answer or ''} |")
        return
    if args.command == "offline":
        for name in args.sets:
            model = fit([r for r in rows if r["set"] != name], args.l2)
            held = [r for r in rows if r["set"] == name]
            print(name, offline_top1(held, None), offline_top1(held, model), sum(moved(r, model) for r in held))
        return
    if args.command == "fit":
        from graphhop.read.walk_ranker import DEFAULT_WEIGHTS

        card = {"fit": f"python benchmarks/walk_ranker_fit.py collect --out {args.out} && python benchmarks/walk_ranker_fit.py "
                        f"fit --out {args.out} --l2 {args.l2}", "l2": args.l2, "labels": "plain and list readings, "
                        "right answer (list: a gold item) with the gold passages on the path",
                "sets": sorted({r["set"] for r in rows})}
        fit(rows, args.l2, card).save(DEFAULT_WEIGHTS)
        print(f"wrote {DEFAULT_WEIGHTS}")
        return
    result = {}
    for name in args.sets:  # cv: leave one set out, end to end
        model = fit([r for r in rows if r["set"] != name], args.l2)
        held = [r for r in rows if r["set"] == name]
        ids = {r["id"] for r in held if moved(r, model)}  # the others are read as the walk reader reads them
        got = {g["id"]: g["right"] for g in (run_set(name, args.out, ranker=model, ids=ids) if ids else [])}
        after = {r["id"]: got.get(r["id"], r["right"]) for r in held}
        result[name] = {"n": len(held), "before": sum(r["right"] for r in held), "after": sum(after.values()),
                        "asked_again": len(ids), "offline_before": offline_top1(held, None),
                        "offline_after": offline_top1(held, model),
                        "won": [r["id"] for r in held if after[r["id"]] and not r["right"]],
                        "lost": [r["id"] for r in held if r["right"] and not after[r["id"]]]}
        print(name, json.dumps(result[name]), flush=True)
    (args.out / f"cv-l2={args.l2}.json").write_text(json.dumps(result, indent=1))
    for group, names in (("blind", BLIND), ("engineer", ENGINEER)):
        tot = {k: sum(result[s][k] for s in names if s in result) for k in ("n", "before", "after")}
        print(group, tot)


if __name__ == "__main__":
    main()
