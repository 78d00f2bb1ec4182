"""Graph-hop (BGR) closed pool vs the whole textual DB: top-25 first stage, and hop by hop.

    python benchmarks/open_graph_eval.py --data-dir DATASET --model BGR_DIR --out runs/open/NAME \
        [--split dev] [--limit 100] [--k 10]

DATASET is a builder folder (train/dev/test.jsonl); BGR_DIR a model from `graphhop train bgr` on it.
The DB is every distinct evidence sentence of all the folder's splits, indexed once (BM25 + flat
dense, bundled MiniLM) under --out. For --limit questions of --split (dev or test; spread evenly
over the file, stride) two Experiments score, against the gold graph (the open ones relabelled to DB ids by text):

* ``closed``: BGR over the question's own pool (gold + distractors), as issue 5 measured;
* ``open-top25``: BGR over the DB's dense top 25 for the question (issue 5's open setting);
* ``open-hops``: BGR hop by hop over the whole DB (`graphhop.retrieve.bgr_open.OpenBGR`: each step's
  candidates = dense + BM25 with question + path as the query, plus entity links, top --k), with the
  settings the card chose in the open setting (`graphhop train bgr --open-k`; else its closed ones), or
  chosen here (``--select-open N``, on dev or ``--select-on carve``: the model's train carve); with
  ``--relation`` the matcher's score is relation-aware (`graphhop.retrieve.bgr_relation`); with
  ``--answer-reaches 0 1`` the selection also chooses backward's first-step candidates (the question's, or
  `HopSearch.answer_candidates`: relation-word query + passages within 1 entity link), and
  ``--plain-backward-too`` adds the ablation rows (same settings, backward from the question's candidates);

for forward, backward and bidirectional. Prints EM / P / R / F1 / GM / GS / GED overall and by depth,
the gold share the open candidates ever reached, and latency (p50 / p95, warm). With ``--stop fit`` (and
``--relation``) open-hops also runs the stop/continue head (`graphhop.retrieve.bgr_stop`), fitted and its
go/stop chosen on the carve, every other setting as given (``--settings``) or chosen (``--select-open``). A model whose card
says it chose its settings on the split asked for is refused (select = report).
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

MODES = ("forward", "backward", "bidirectional")


def open_systems(model: Any, examples: list, search: Any, golds: list, k: int, stats: dict[str, list], encode: Any,
                 settings: Any, with_top25: bool = True, relation: Any = None, label: str = "open-hops",
                 modes: tuple[str, ...] = MODES, stop: Any = None) -> dict[str, Any]:
    """``open-top25 <mode>`` (BGR over the DB's dense top 25) and ``open-hops <mode>`` (OpenBGR hop by hop;
    ``relation``: with the relation-aware matcher score; ``stop``: with the stop head)."""
    from graphhop.eval.experiment import System
    from graphhop.eval.measures import Prediction
    from graphhop.retrieve.bgr_open import CandidateCache, OpenBGR
    from graphhop.retrieve.graphhop import BGRRetriever, CandidatePool

    ret = BGRRetriever(model, encode=encode)

    def top25(mode: str):  # closed-pool settings: issue 5's open setting
        def predict(_: list[str]) -> list[Prediction]:
            out = []
            for ex in examples:
                t0 = time.perf_counter()
                qv = search.encode_queries([ex.query])[0]
                ids = [h.id for h in search.dense.search_vectors(qv[None, :], 25)[0]]
                pool = CandidatePool(ids, [search.text(d) for d in ids], search.vectors(ids))
                out.append(Prediction(graph=ret.retrieve_pool(ex.question, pool, qv, mode=mode, query=ex.query)))
                stats["open-top25"] += [1000 * (time.perf_counter() - t0)] if mode == "bidirectional" else []
            return out
        return predict

    shared = CandidateCache(search, k, settings.answer_reach)  # the first mode (bidirectional) is timed; the others reuse its retrievals

    def hops(mode: str):
        def predict(_: list[str]) -> list[Prediction]:
            out = []
            for ex, gold in zip(examples, golds):
                t0 = time.perf_counter()
                opener = OpenBGR(model, search, k=k, mode=mode, settings=settings, relation=relation, stop=stop,
                                 cache=CandidateCache(search, k, settings.answer_reach) if mode == "bidirectional" else shared)
                out.append(Prediction(graph=opener.retrieve_graph(ex.query)))
                if mode == "bidirectional":
                    stats.setdefault(label, []).append(1000 * (time.perf_counter() - t0))
                    stats.setdefault(f"reached {label}", []).append(len(gold.evidence & set(opener.last_candidates)) / max(1, len(gold.evidence)))
            return out
        return predict

    first = {f"open-top25 {m}": System(top25(m)) for m in MODES} if with_top25 else {}
    return {**first, **{f"{label} {m}": System(hops(m)) for m in reversed(modes)}}


def selection_questions(model_card: dict, args: argparse.Namespace, cache: Any, n: int) -> list:
    """``n`` questions to choose on: dev (stride; refused when reporting dev) or the model's train carve."""
    from graphhop.core import InputError
    from graphhop.datasets.builder import read_records
    from graphhop.eval.experiment import stride_sample
    from graphhop.train.bgr_data import load_examples
    from graphhop.train.bgr_open import carve_examples

    if args.select_on == "carve":
        return carve_examples(args.data_dir, model_card, n, cache)
    if args.split == "dev":
        raise InputError("choosing on dev: report on test (or --select-on carve)")
    return load_examples(stride_sample(list(read_records(args.data_dir / "dev.jsonl")), n), cache)


def select_here(model: Any, card: dict, args: argparse.Namespace, cands: Any, by_text: dict[str, str], cache: Any,
                relation: Any = None, reaches: tuple[int, ...] = (0,)) -> Any:
    """Open settings chosen on ``--select-open`` questions (:func:`selection_questions`) by the open retriever
    itself (``cands``: a shared CandidateCache at the largest of ``--select-ks``; ``reaches``: backward's
    first-step candidates to choose among). Returns the settings, each direction's best carve F1 and the whole grid."""
    from graphhop.train.bgr_open import select_open

    dev = selection_questions(card, args, cache, args.select_open)
    prunes = [(0, "deep")] + [(n, r) for n in args.keep_paths if n > 0 for r in args.path_ranks]
    grid = {"thresholds": tuple(args.select_thresholds)} if args.select_thresholds else {}
    grid.update({"branches": tuple(args.select_branches)} if args.select_branches else {})
    settings, table = select_open(model, dev, cands, by_text, ks=tuple(args.select_ks), relation=relation,
                                  answer_reaches=reaches, prunes=prunes,
                                  later_thresholds=(-1.0, *args.later_thresholds), **grid)
    best = {d: max(v for key, v in table.items() if f":{d}@" in key) for d in ("forward", "backward")}
    best["merged"] = max(v["f1"] for key, v in table.items() if key.startswith("merge:"))
    for r in reaches if len(reaches) > 1 else ():  # backward's best with each kind of first-step candidates
        best[f"backward reach {r}"] = max(v for key, v in table.items() if ":backward@" in key
                                          and (f"/reach{r}/" in key + "/" if r else "/reach" not in key))
    print(f"# open selection on {len(dev)} {args.select_on} questions ({'relation' if relation else 'matcher'}): "
          f"best F1 {json.dumps(best)}", flush=True)
    return settings, best, table


def fit_relation(model: Any, card: dict, args: argparse.Namespace, cands: Any, by_text: dict[str, str], cache: Any) -> Any:
    """``(RelationWords, RelationHead)``: loaded from ``--relation PATH``, or fitted (``--relation fit``) on
    ``--relation-n`` carve questions' teacher-forced open prefixes (k = the largest of ``--select-ks``)."""
    from graphhop.retrieve.bgr_relation import RelationHead, RelationWords
    from graphhop.train.bgr_open import carve_examples
    from graphhop.train.bgr_relation import fit_on_carve

    words = RelationWords(cands.search.mentions, cands.search.encoder)
    if args.relation != "fit":
        head = RelationHead.load(Path(args.relation))
        words.table = head.table
        return words, head
    carve = carve_examples(args.data_dir, card, args.relation_n, cache)
    head, _ = fit_on_carve(model, carve, by_text, cands, words, args.data_dir, card, args.out / "relation.json",
                           f"{args.data_dir.name} train carve, {len(carve)} q, k {cands.k}")
    print(f"# relation head fitted on {len(carve)} carve questions: forward {[round(w, 3) for w in head.forward]} "
          f"backward {[round(w, 3) for w in head.backward]}", flush=True)
    return words, head


def stop_here(model: Any, card: dict, args: argparse.Namespace, cands: Any, by_text: dict[str, str], cache: Any,
              relation: Any, settings: Any) -> tuple[Any, Any, dict[str, Any]]:
    """``(settings with the stop head's go/stop, StopHead, meta)``: the head loaded from ``--stop PATH`` or fitted
    (``--stop fit``, written to OUT/stop.json) on ``--relation-n`` carve questions' teacher-forced open prefixes
    (and, ``--stop-steps search``, the search's own steps there),
    then its go/stop chosen on ``--stop-select`` carve questions (besides those it was fitted on) with every other
    setting as ``settings``."""
    from graphhop.retrieve.bgr_stop import StopHead
    from graphhop.train.bgr_open import carve_examples
    from graphhop.train.bgr_relation import open_steps
    from graphhop.train.bgr_stop import fit_stop_head, search_steps, select_stop

    words, head = relation
    meta: dict[str, Any] = {}
    if args.stop == "fit":
        carve = carve_examples(args.data_dir, card, args.relation_n, cache)
        steps = open_steps(model, carve, by_text, cands, words)
        more = search_steps(model, carve, cands, by_text, settings, relation) if args.stop_steps == "search" else None
        stop, meta["fit"] = fit_stop_head(steps, words, head, cands.search.text, more=more,
                                          fitted_on=f"{args.data_dir.name} train carve, {len(carve)} q, k {cands.k}, "
                                                    f"steps: {args.stop_steps}")
        stop.save(args.out / "stop.json")
    else:
        stop = StopHead.load(Path(args.stop))
    # go/stop chosen on carve questions the head was not fitted on (a loaded head: the fit's count is not known)
    dev = carve_examples(args.data_dir, card, args.stop_select, cache, args.relation_n if args.stop == "fit" else 0)
    settings, meta["grid"] = select_stop(model, dev, cands, by_text, settings, relation, stop)
    meta["head"] = {"forward": stop.forward, "backward": stop.backward, "scale": stop.scale}
    print(f"# stop head on {len(dev)} carve questions: fit {json.dumps(meta.get('fit'))}; chosen go/stop "
          f"{settings.stopping('forward')} forward, {settings.stopping('backward')} backward; grid {json.dumps(meta['grid'])}",
          flush=True)
    return settings, stop, meta


def parse_args() -> argparse.Namespace:
    """The command line (module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--split", default="dev", help="dev or test")
    ap.add_argument("--limit", type=int, default=100, help="N questions, spread evenly (stride)")
    ap.add_argument("--k", type=int, default=None, help="candidates per hop (open-hops; default: the card's open selection, else 10)")
    ap.add_argument("--db-dir", type=Path, default=None, help="DB index folder (default: OUT; shared with train bgr --db-dir)")
    ap.add_argument("--no-top25", action="store_true", help="skip the open-top25 rows")
    ap.add_argument("--select-open", type=int, default=0, metavar="N",
                    help="choose the open settings (k, thresholds, branching, merge) on N dev questions first "
                         "(for a model trained on pools, which has no open selection; refused with --split dev)")
    ap.add_argument("--select-ks", type=int, nargs="+", default=[10, 20], help="--select-open: the k grid")
    ap.add_argument("--select-on", default="dev", choices=["dev", "carve"],
                    help="--select-open / --relation fit choose on dev questions or on the model's train carve "
                         "(the questions `train bgr` chose on and never trained on; then dev may be reported)")
    ap.add_argument("--relation", default=None, metavar="fit|PATH",
                    help="open-hops with the relation-aware matcher score (retrieve/bgr_relation.py): fit it on "
                         "--relation-n carve questions (written to OUT/relation.json), or load a fitted one")
    ap.add_argument("--relation-n", type=int, default=60, help="--relation fit: carve questions to fit on")
    ap.add_argument("--answer-reaches", type=int, nargs="+", default=[0],
                    help="--select-open: backward's first-step candidates to choose among: 0 = the question's, N = "
                         "relation-word query + passages within N entity links (HopSearch.answer_candidates); "
                         "--relation fit fits on the smallest N > 0")
    ap.add_argument("--select-thresholds", type=float, nargs="+", default=None,
                    help="--select-open: the threshold grid (default select_open's, 0.05 to 0.7)")
    ap.add_argument("--select-branches", type=int, nargs="+", default=None,
                    help="--select-open: the branching grid (default 1 and 3)")
    ap.add_argument("--later-thresholds", type=float, nargs="+", default=[], metavar="T",
                    help="--select-open: also choose, per direction, another threshold after the first step "
                         "(OpenSettings.later_threshold_*; the first step's own is always in the grid)")
    ap.add_argument("--keep-paths", type=int, nargs="+", default=[], metavar="N",
                    help="--select-open: also choose, per direction, to keep only the best N root-to-end paths of its "
                         "graph (retrieve/bgr_open.prune_paths; 0 = every path, always in the grid)")
    ap.add_argument("--path-ranks", nargs="+", default=["deep"], choices=["deep", "prob"],
                    help="--keep-paths: how paths are ordered (deep: more hops first, then the product of match "
                         "probabilities; prob: the product alone)")
    ap.add_argument("--plain-backward-too", action="store_true",
                    help="also open-hops bidirectional with the main rows' settings but backward's first step the "
                         "question's candidates (answer reach 0): the ablation of the answer candidates")
    ap.add_argument("--matcher-too", action="store_true",
                    help="with --relation: also open-hops bidirectional with the matcher alone (its own selection), "
                         "sharing the retrievals")
    ap.add_argument("--links", default="proper", choices=["mentions", "mentions-only", "proper", "none"],
                    help="entity links of open-hops: gazetteer mentions (question and bridge entities), proper names, none")
    ap.add_argument("--max-df", type=int, default=100, help="--links mentions: names in more sentences are not followed")
    ap.add_argument("--closed-settings", action="store_true",
                    help="open-hops with the card's closed-pool thresholds even when it has an open selection")
    ap.add_argument("--settings", type=Path, default=None, metavar="RESULTS",
                    help="open-hops with the open settings of an earlier run (its results.json; e.g. chosen there on "
                         "the carve): report again without choosing (not with --select-open or --closed-settings)")
    ap.add_argument("--stop", default=None, metavar="fit|PATH",
                    help="with --relation: open-hops with the stop/continue head (retrieve/bgr_stop.py): fit it on "
                         "--relation-n carve questions (written to OUT/stop.json) or load one; its go/stop thresholds "
                         "are chosen on --stop-select carve questions, every other setting fixed")
    ap.add_argument("--stop-select", type=int, default=60, help="--stop: carve questions to choose go/stop on (--stop fit: others than the fit's)")
    ap.add_argument("--stop-steps", default="search", choices=["gold", "search"],
                    help="--stop fit: on the gold prefixes alone (teacher forcing), or also on every step the open "
                         "search takes on the carve with the given settings (train/bgr_stop.search_steps)")
    ap.add_argument("--fact-level", action="store_true",
                    help="also score every row by the builder facts its sentences state (eval/bgr_facts.py: fact P/R/F1) "
                         "and print how often the DB restates a gold sentence's facts")
    args = ap.parse_args()
    if args.settings and (args.select_open or args.closed_settings):
        ap.error("--settings reuses chosen settings: not with --select-open or --closed-settings")
    if any(not 0 <= t <= 1 for t in [*(args.select_thresholds or []), *args.later_thresholds]):
        ap.error("--select-thresholds / --later-thresholds: a match threshold is between 0 and 1")
    if any(b < 1 for b in args.select_branches or []):
        ap.error("--select-branches: a branching is at least 1")
    if any(n < 0 for n in args.keep_paths):
        ap.error(f"--keep-paths: a path count cannot be negative, got {' '.join(map(str, args.keep_paths))}")
    if args.stop and not args.relation:
        ap.error("--stop reads the relation words: give --relation too")
    if args.stop_select < 1:
        ap.error(f"--stop-select: at least one carve question, got {args.stop_select}")
    if any(r < 0 for r in args.answer_reaches):
        ap.error(f"--answer-reaches: entity links cannot be negative, got {' '.join(map(str, args.answer_reaches))}")
    return args


def main() -> None:
    args = parse_args()
    from graphhop.datasets.builder import read_records
    from graphhop.eval.bgr import depth_key
    from graphhop.eval.bgr_bench import percentile, relabel_gold
    from graphhop.eval.bgr_facts import fact_measures, restatements, statement_facts
    from graphhop.eval.experiment import Experiment, System, stride_sample
    from graphhop.eval.measures import GRAPH, Gold, Prediction
    from graphhop.eval.tasks import builder_golds, check_split
    from graphhop.io import atomic_write_text
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.graphhop import BGRRetriever, load_model
    from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings
    from graphhop.retrieve.bgr_stop import StopHead
    from graphhop.train.bgr_data import EmbeddingCache, load_examples
    from graphhop.train.bgr_open import builder_db, mention_search

    given_settings = OpenSettings.from_results(args.settings) if args.settings else None  # bad file: before any work
    if args.stop and args.stop != "fit":
        StopHead.load(Path(args.stop))
    set_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    recs = [r for s in ("train", "dev", "test") if (args.data_dir / f"{s}.jsonl").exists() for r in read_records(args.data_dir / f"{s}.jsonl")]
    model, card = load_model(args.model)
    backend = card.get("encoder_backend", "torch")  # the DB and the pools in the model's vector space
    index, by_text = builder_db(recs, args.db_dir or args.out, backend=backend)
    cache = EmbeddingCache(args.out / "cache", None, backend=backend)
    examples = load_examples(stride_sample(list(read_records(args.data_dir / f"{check_split(args.split)}.jsonl")), args.limit), cache)
    facts = statement_facts(recs) if args.fact_level else {}
    experiment = Experiment(GRAPH + tuple(fact_measures(facts) if facts else ()), report=args.split, select=card.get("select_split", "dev"), title=f"{args.data_dir.name} {args.split}")
    closed = BGRRetriever(model, encode=cache.encode)
    tables = {"closed": experiment.run({f"closed {m}": System(lambda qs, m=m: [Prediction(graph=closed.retrieve_pool(
        ex.question, ex.pool, ex.question_vec, mode=m, query=ex.query)) for ex in examples]) for m in MODES},
        [ex.question for ex in examples], builder_golds(examples))}
    golds = [Gold(ex.id, [], set(g.evidence_ids), g, {"depth": depth_key(ex.depth)}) for ex in examples for g in [relabel_gold(ex, by_text)[0]]]
    stats: dict[str, list] = {"open-top25": []}
    if given_settings is not None:
        settings = given_settings
    else:
        settings = OpenSettings.from_config(model.cfg) if args.closed_settings else OpenSettings.from_card(card, model.cfg)
    search = mention_search(index, recs, args.db_dir or args.out, max(20, args.k or 0, *args.select_ks), args.links, args.max_df)
    fit_reach = min([r for r in args.answer_reaches if r > 0] or [0])
    sel_cands = CandidateCache(search, max(args.select_ks), fit_reach)  # selection grid and relation fit share the retrievals
    relation = fit_relation(model, card, args, sel_cands, by_text, cache) if args.relation else None
    reaches = tuple(args.answer_reaches)
    variants = [("open-hops", relation, MODES)] + ([("open-hops matcher", None, ("bidirectional",))]
                                                   if relation and args.matcher_too else [])
    systems, chosen, given, stop, stop_meta = {}, {}, settings, None, {}
    for label, rel, modes in variants:
        if args.select_open:
            settings, best, grid = select_here(model, card, args, sel_cands, by_text, cache, rel, reaches)
            chosen[label] = {"settings": vars(settings), "select_f1": best, "grid": grid}
        if args.stop and label == "open-hops":
            settings, stop, stop_meta = stop_here(model, card, args, sel_cands, by_text, cache, rel, settings)
            given = settings
        systems.update(open_systems(model, examples, search, golds, args.k or settings.k, stats, cache.encode, settings,
                                    not args.no_top25 and label == "open-hops", rel, label, modes,
                                    stop if label == "open-hops" else None))
    settings = given if args.stop else OpenSettings(**chosen["open-hops"]["settings"]) if chosen else given
    if args.plain_backward_too:  # the ablation: the same settings, backward's first step the question's candidates
        systems.update(open_systems(model, examples, search, golds, args.k or settings.k, stats, cache.encode,
                                    replace(settings, answer_reach=0), False, relation, "open-hops plain-backward",
                                    ("backward", "bidirectional"), stop))
    tables["open"] = experiment.run(systems, [ex.question for ex in examples], golds)
    meta = {"n": len(examples), "db": len(index.docs), "k": args.k or settings.k, "closed_merge": card["config"]["merge"],
            "open_settings": vars(settings), "open_trained": bool(card.get("open_training")), "links": args.links,
            **({"max_df": args.max_df} if args.links.startswith("mentions") else {}),
            **({"relation": {k: v for k, v in vars(relation[1]).items() if k != "table"}} if relation else {}),
            **({"open_selected_here_on": f"{args.select_on} ({args.select_open} questions)", "chosen": chosen} if chosen else {}),
            **({"open_settings_from": str(args.settings)} if args.settings else {}),
            **({"stop": stop_meta} if stop_meta else {}),
            **({"restatements": restatements(facts, [ex.gold.g.nodes[n].get("text", "") for ex in examples
                                                     for n in ex.gold.evidence_ids])} if facts else {}),
            "gold_reached_by_open_candidates": {k.split(" ", 1)[1]: round(float(np.mean(v)), 4) for k, v in stats.items() if k.startswith("reached")},
            "latency_ms": {k: {"p50": round(percentile(v, 50), 1), "p95": round(percentile(v, 95), 1)}
                           for k, v in stats.items() if v and not k.startswith("reached")}}
    atomic_write_text(args.out / "results.json", json.dumps({"meta": meta, **{k: t.to_json() for k, t in tables.items()}}, indent=1))
    print(f"# {args.data_dir.name} {args.split}: {len(examples)} questions, DB {len(index.docs)} sentences; {json.dumps(meta)}")
    for t in tables.values():
        print("\n" + t.markdown() + "\n\n" + t.markdown("depth"))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
