"""BGR hop by hop over a large sentence DB (issue 13's 500k target): quality, and warm latency on one core.

    python benchmarks/open_scale.py --data-dir DATASET --model BGR_DIR --size 500000 --out DIR \
        [--split test] [--limit 60] [--nprobe 64] [--timing] [--links mentions]

The DB is the builder folder's own sentences (every distinct evidence sentence of its splits, ids
``s<i>``, as `open_graph_eval.py`) plus **fill sentences** up to ``--size``: the shared KBs' facts
(MetaQA, PathQuestion, PQL, WC2014) and then synthetic facts (`graphhop.bench.scale.fact_pool`: a real
head with a numbered suffix, a real relation, a real tail), each verbalized alone by the builder's
templates (`TemplateDataToText`). A fill fact that one of the dataset's sentences states is left out,
so a gold sentence has no paraphrase among the fill. Indexed once under ``OUT/db-<size>`` (BM25 + dense
``ivf-pq``) with the model's encoder backend (``static`` for a DB this size: MiniLM would take hours).

Quality: EM / P / R / F1 / GM / GS / GED of open-hops (forward, backward, bidirectional, the card's open
settings) on ``--limit`` questions of ``--split`` (stride), gold relabelled to DB ids. Timing: per question
wall time of the bidirectional run (fresh candidate cache per question; one warm-up question first;
one thread for torch, FAISS and the encoder) -> p50 / p95 / mean ms. ``--timing`` skips the quality table.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any


def fill_sentences(records: list[dict], size: int, root: Path) -> list[str]:
    """``size`` minus the dataset's sentence count fill sentences (one fact each; dataset facts left out)."""
    from graphhop.datasets.d2t import TemplateDataToText

    return TemplateDataToText().verbalize([(t,) for t in fill_triples(records, size, root)])


def fill_triples(records: list[dict], size: int, root: Path) -> list[tuple[str, str, str]]:
    """The facts :func:`fill_sentences` verbalizes."""
    from graphhop.bench.scale import fact_pool

    own = {tuple(f) for r in records for e in r["evidence"] for f in e.get("facts", [])}
    n_own = len({e["text"] for r in records for e in r["evidence"]})
    need = max(0, size - n_own)
    facts, _ = fact_pool(root, need + len(own))
    triples = [(f.head, f.relation, f.tail) for f in facts if (f.head, f.relation, f.tail) not in own]
    return triples[:need]


def scale_search(index: Any, records: list[dict], args: argparse.Namespace, depth: int) -> Any:
    """The hop search over the big DB; with ``--links mentions`` its gazetteer is the entity names of the
    dataset's facts and of the fill facts (the mention index is built once, ``OUT/mentions-<size>.json``)."""
    import os

    from graphhop.retrieve.mention_links import MentionIndex, fold_entity, gazetteer
    from graphhop.retrieve.texthop import HopSearch

    if not args.links.startswith("mentions"):
        return HopSearch(index, depth=depth)
    cache = args.out / f"mentions-{args.size}.json"
    names = gazetteer(records)
    if not cache.exists():
        fill = fill_triples(records, args.size, Path(os.environ.get("GRAPHHOP_DATA", "")))
        names |= {fold_entity(x) for h, _, t in fill for x in (h, t)}
    mentions = MentionIndex.for_index(index, names, cache, args.max_df, progress=True)
    return HopSearch(index, depth=depth, link_bonus=1.0, mentions=mentions, links_only=args.links == "mentions-only")


def scale_db(records: list[dict], size: int, out: Path, backend: str, nprobe: int) -> tuple[Any, dict[str, str]]:
    """The DB index (built once under ``out/db-<size>``) and the dataset's normalized text -> DB id."""
    from graphhop.core import Passage
    from graphhop.eval.bgr_bench import normalize_text
    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
    from graphhop.index.encode import EncodingOptions

    own = list(dict.fromkeys(e["text"] for r in records for e in r["evidence"]))
    by_text = {normalize_text(t): f"s{i}" for i, t in enumerate(own)}
    path = out / f"db-{size}"
    if (path / "manifest.json").exists():
        return KnowledgeIndex.open(path, verify=False), by_text
    import os

    fill = [t for t in fill_sentences(records, size, Path(os.environ.get("GRAPHHOP_DATA", "")))
            if normalize_text(t) not in by_text]
    docs = [Passage(f"s{i}", t) for i, t in enumerate(own)] + [Passage(f"f{i}", t) for i, t in enumerate(fill)]
    index = build_index(documents_from_passages(docs), path, dense=DenseOptions("ivf-pq", nprobe=nprobe),
                        encoding=EncodingOptions(backend=backend), overwrite=True, progress=True)
    return index, by_text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--size", type=int, default=500_000, help="DB sentences")
    ap.add_argument("--split", default="test", help="dev or test")
    ap.add_argument("--limit", type=int, default=60, help="N questions, spread evenly (stride)")
    ap.add_argument("--nprobe", type=int, default=64, help="ivf-pq cells scanned per query")
    ap.add_argument("--timing", action="store_true", help="latency only (no quality table)")
    ap.add_argument("--links", default="proper", choices=["mentions", "mentions-only", "proper"], help="entity links (as open_graph_eval.py)")
    ap.add_argument("--max-df", type=int, default=100, help="--links mentions: names in more sentences are not followed")
    ap.add_argument("--settings", type=Path, default=None,
                    help="a results.json of open_graph_eval.py --select-open: its open settings (else the card's)")
    args = ap.parse_args()
    from graphhop.datasets.builder import read_records
    from graphhop.eval.bgr import depth_key
    from graphhop.eval.bgr_bench import percentile, relabel_gold
    from graphhop.eval.experiment import Experiment, System, stride_sample
    from graphhop.eval.measures import GRAPH, Gold, Prediction
    from graphhop.eval.tasks import check_split
    from graphhop.io import atomic_write_text
    from graphhop.models.encoder import set_threads
    from graphhop.retrieve.bgr_open import CandidateCache, OpenBGR, OpenSettings
    from graphhop.retrieve.graphhop import load_model
    from graphhop.train.bgr_data import EmbeddingCache, load_examples

    set_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    recs = [r for s in ("train", "dev", "test") if (args.data_dir / f"{s}.jsonl").exists()
            for r in read_records(args.data_dir / f"{s}.jsonl")]
    model, card = load_model(args.model)
    backend = card.get("encoder_backend", "torch")
    index, by_text = scale_db(recs, args.size, args.out, backend, args.nprobe)
    settings = OpenSettings.from_card(card, model.cfg)
    if args.settings is not None:  # chosen on dev over the dataset's own DB (selection at 500k would take hours)
        settings = OpenSettings(**json.loads(args.settings.read_text(encoding="utf-8"))["meta"]["open_settings"])
    search = scale_search(index, recs, args, max(20, settings.k))
    examples = load_examples(stride_sample(list(read_records(args.data_dir / f"{check_split(args.split)}.jsonl")), args.limit),
                             EmbeddingCache(args.out / "cache", None, backend=backend))
    OpenBGR(model, search, settings=settings).retrieve_graph(examples[0].query)  # warm-up (not timed)
    times: list[float] = []
    graphs = []
    for ex in examples:
        t0 = time.perf_counter()
        graphs.append(OpenBGR(model, search, settings=settings).retrieve_graph(ex.query))
        times.append(1000 * (time.perf_counter() - t0))
    meta = {"n": len(examples), "db": len(index.docs), "backend": backend, "nprobe": args.nprobe, "settings": vars(settings), "links": args.links,
            "latency_ms": {"p50": round(percentile(times, 50), 1), "p95": round(percentile(times, 95), 1),
                           "mean": round(sum(times) / len(times), 1)}}
    print(f"# {args.data_dir.name} {args.split}, DB {len(index.docs):,} sentences: {json.dumps(meta)}")
    result: dict[str, Any] = {"meta": meta}
    if not args.timing:
        golds = [Gold(ex.id, [], set(g.evidence_ids), g, {"depth": depth_key(ex.depth)})
                 for ex in examples for g in [relabel_gold(ex, by_text)[0]]]
        shared = CandidateCache(search, settings.k)
        systems = {"open-hops bidirectional": System(lambda _: [Prediction(graph=g) for g in graphs])}
        for mode in ("forward", "backward"):
            systems[f"open-hops {mode}"] = System(lambda _, m=mode: [Prediction(graph=OpenBGR(
                model, search, mode=m, settings=settings, cache=shared).retrieve_graph(ex.query)) for ex in examples])
        table = Experiment(GRAPH, report=args.split, select=card.get("select_split", "dev"),
                           title=f"{args.data_dir.name} {args.split}, DB {len(index.docs):,}").run(
            systems, [ex.question for ex in examples], golds)
        result["open"] = table.to_json()
        print("\n" + table.markdown() + "\n\n" + table.markdown("depth"))
    atomic_write_text(args.out / f"results-{args.size}{'-' + args.links if args.links != 'proper' else ''}{'-timing' if args.timing else ''}.json", json.dumps(result, indent=1))


if __name__ == "__main__":
    from graphhop.eval.script import run_script

    run_script(main)
