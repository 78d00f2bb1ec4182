"""Open-setting BGR, step by step: where the gold is lost (candidates, matcher ranking, stop).

    python benchmarks/open_step_diag.py --data-dir DATASET --model BGR_DIR --db-dir DB --out OUT \
        [--split carve|dev] [--limit 60] [--k 10] [--settings results.json] [--fit-relation] [--relation HEAD.json] [--answer-reach N]

Teacher-forced gold prefixes of ``--limit`` questions (stride) of the model's selection carve of train
(``carve``, the questions ``graphhop train bgr`` chose on and never trained on) or of dev; at each, the
open retriever's own top-k candidates (mention links) and the frozen matcher
(:mod:`graphhop.eval.bgr_open_diag` says what each column means). Thresholds and branching: ``--settings``
(an ``open_graph_eval.py`` results.json's open settings), else the card's open selection, else its closed.
``--fit-relation`` fits the relation-aware score (:mod:`graphhop.train.bgr_relation`) on these steps
(``--split carve`` only) and writes ``OUT/relation.json``; ``--relation`` measures a fitted one beside the
matcher alone. Writes ``OUT/diag.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--db-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--split", default="carve", choices=["carve", "dev"])
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--k", type=int, default=None, help="candidates per hop (default: the settings' k)")
    ap.add_argument("--links", default="mentions", choices=["mentions", "mentions-only", "proper", "none"])
    ap.add_argument("--max-df", type=int, default=100)
    ap.add_argument("--cache", type=Path, default=None, help="sentence-vector cache (default OUT/cache)")
    ap.add_argument("--settings", type=Path, default=None, help="results.json of open_graph_eval.py: its open settings")
    ap.add_argument("--fit-relation", action="store_true", help="fit the relation head on these steps (carve only)")
    ap.add_argument("--relation", type=Path, default=None, help="a fitted relation head (relation.json) to measure too")
    ap.add_argument("--answer-reach", type=int, default=None,
                    help="backward's first-step candidates: 0 = the question's, N = relation-word query + passages "
                         "within N entity links (HopSearch.answer_candidates); default: the settings'")
    args = ap.parse_args()
    if args.answer_reach is not None and args.answer_reach < 0:
        ap.error(f"--answer-reach: entity links cannot be negative, got {args.answer_reach}")
    from graphhop.core import InputError
    from graphhop.datasets.builder import read_records
    from graphhop.eval.bgr_open_diag import DIAG_COLUMNS, step_table
    from graphhop.eval.experiment import stride_sample
    from graphhop.io import atomic_write_text
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.bgr_open import CandidateCache, OpenSettings
    from graphhop.retrieve.bgr_relation import RelationHead, RelationWords
    from graphhop.retrieve.graphhop import load_model
    from graphhop.train.bgr_data import EmbeddingCache, load_examples
    from graphhop.train.bgr_open import builder_db, carve_examples, mention_search
    from graphhop.train.bgr_relation import fit_on_carve, open_steps

    set_threads(1)
    if args.fit_relation and args.split != "carve":
        raise InputError("--fit-relation fits on the selection carve: use --split carve")
    if args.fit_relation and args.relation:
        raise InputError("--fit-relation or --relation, not both")
    given = OpenSettings.from_results(args.settings) if args.settings else None
    loaded = RelationHead.load(args.relation) if args.relation else None
    args.out.mkdir(parents=True, exist_ok=True)
    recs = [r for s in ("train", "dev", "test") if (args.data_dir / f"{s}.jsonl").exists() for r in read_records(args.data_dir / f"{s}.jsonl")]
    model, card = load_model(args.model)
    backend = card.get("encoder_backend", "torch")
    index, by_text = builder_db(recs, args.db_dir, backend=backend)
    emb = EmbeddingCache(args.cache or args.out / "cache", None, backend=backend)
    examples = (carve_examples(args.data_dir, card, args.limit, emb) if args.split == "carve"
                else load_examples(stride_sample(list(read_records(args.data_dir / "dev.jsonl")), args.limit), emb))
    settings = given if given is not None else OpenSettings.from_card(card, model.cfg)
    k = args.k or settings.k
    if args.answer_reach is not None:
        settings.answer_reach = args.answer_reach
    search = mention_search(index, recs, args.db_dir, max(20, k), args.links, args.max_df)
    cache, words = CandidateCache(search, k, settings.answer_reach), RelationWords(search.mentions, search.encoder)
    heads = {"matcher": None}
    if args.fit_relation:
        head, steps = fit_on_carve(model, examples, by_text, cache, words, args.data_dir, card, args.out / "relation.json",
                                   f"{args.data_dir.name} carve, {len(examples)} q")
        heads["relation (fitted here)"] = head
    else:
        words.table = loaded.table if loaded else {}
        steps = open_steps(model, examples, by_text, cache, words)
    if loaded:
        heads[f"relation ({args.relation})"] = loaded
    tables = {name: step_table(steps, settings, head) for name, head in heads.items()}
    meta = {"n": len(examples), "split": args.split, "k": k, "settings": vars(settings), "links": args.links,
            "heads": {n: ({k: v for k, v in vars(h).items() if k != "table"} if h else None) for n, h in heads.items()}}
    atomic_write_text(args.out / "diag.json", json.dumps({"meta": meta, "tables": tables}, indent=1))
    print(f"# {args.data_dir.name} {args.split}: {json.dumps(meta)}")
    for name, table in tables.items():
        print(f"\n{name}\n| row | " + " | ".join(DIAG_COLUMNS) + " |\n|---|" + "---:|" * len(DIAG_COLUMNS))
        for row, vals in table.items():
            print(f"| {row} | " + " | ".join(f"{vals[c]:g}" for c in DIAG_COLUMNS) + " |")


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
