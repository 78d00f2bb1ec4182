"""LLM few-shot reasoning graphs (Graph-hop paper, appendix A.6) scored like the BGR tables.

Each of the five prompt templates asks an OpenAI-compatible chat endpoint for the reasoning graph of
every evaluated question over its closed candidate pool; few-shot examples come from the dataset's
train split. Rows: evidence-set EM/P/R/F1, GM, GS, GED (the metrics of ``benchmarks/bgr_eval.py``),
plus the parse status counts (ok / repaired / unparseable / request failed).

    python benchmarks/llm_eval.py --data-dir runs/bgr-data/pq-2h --llm-url http://HOST/v1 --llm-model NAME
    # pipeline check without a model: a local replay server answering with recorded replies
    python benchmarks/llm_eval.py --data-dir runs/bgr-data/pq-2h --replay tests/retrieve/data/llm_replies.jsonl

The key is read from ``$GRAPHHOP_LLM_API_KEY`` (``--key-env`` names another variable). Nothing is
contacted without ``--llm-url`` and ``--llm-model`` (or ``--replay``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from graphhop.core import GraphhopError  # noqa: E402
from graphhop.datasets.builder import read_records  # noqa: E402
from graphhop.eval.experiment import stride_sample  # noqa: E402
from graphhop.retrieve.llm import TEMPLATES, ChatClient, LLMGraphRetriever, pick_shots  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True, help="builder dataset folder (train/dev/test.jsonl)")
    ap.add_argument("--split", default="dev", help="split to score (test: a test.jsonl beside dev.jsonl)")
    ap.add_argument("--llm-url", help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1")
    ap.add_argument("--llm-model", help="model name sent to the endpoint")
    ap.add_argument("--key-env", default="GRAPHHOP_LLM_API_KEY", help="environment variable holding the API key")
    ap.add_argument("--replay", type=Path, help="start a local replay server with these recorded replies (pipeline check)")
    ap.add_argument("--templates", default=",".join(TEMPLATES))
    ap.add_argument("--shots", type=int, default=3)
    ap.add_argument("--eval-limit", type=int, default=100, help="questions scored, sampled at an even stride")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=Path("runs/bgr-cache"))
    ap.add_argument("--baselines", default="random,bm25,dense", help="pool baselines scored beside (empty: none)")
    ap.add_argument("--out", type=Path, help="write results.json here")
    args = ap.parse_args()
    templates = [t for t in args.templates.split(",") if t]
    bad = [t for t in templates if t not in TEMPLATES]
    if bad:
        sys.exit(f"error: unknown template(s) {', '.join(bad)}; choose from {', '.join(TEMPLATES)}")
    if not args.replay and not (args.llm_url and args.llm_model):
        sys.exit("error: give --llm-url and --llm-model (or --replay FILE for a pipeline check)")
    try:
        run(args, templates)
    except GraphhopError as exc:
        sys.exit(f"error: {exc}")


def run(args: argparse.Namespace, templates: list[str]) -> None:
    """One Experiment: the LLM templates' graphs and the pool baselines (k = gold set size, labelled oracle)."""
    from graphhop.eval.experiment import Experiment, System
    from graphhop.eval.measures import GRAPH, Prediction
    from graphhop.eval.tasks import bgr_systems, builder_golds, check_split
    from graphhop.io import atomic_write_text
    from graphhop.retrieve.baselines import PoolBM25
    from graphhop.retrieve.llm.replay import ReplayServer, load_replies
    from graphhop.train.bgr_data import EmbeddingCache, load_examples

    path = args.data_dir / f"{check_split(args.split)}.jsonl"
    if not path.exists():
        raise GraphhopError(f"{path}: no such file (split {args.split!r})")
    train = list(read_records(args.data_dir / "train.jsonl"))
    shots = pick_shots(train, args.shots)
    recs = stride_sample(list(read_records(path)), args.eval_limit)
    cache = EmbeddingCache(args.cache)
    examples = load_examples(recs, cache)
    server = ReplayServer(load_replies(args.replay)).start() if args.replay else None
    url, model = (server.url, "replay") if server else (args.llm_url, args.llm_model)
    retrievers = {t: LLMGraphRetriever(ChatClient(url, model, args.key_env, args.timeout, args.retries), t, shots)
                  for t in templates}
    bm25 = PoolBM25(dict.fromkeys(e["text"] for r in train + recs for e in r["evidence"]))
    systems = bgr_systems(None, examples, [m for m in args.baselines.split(",") if m], bm25, cache.encode)
    systems.update({f"llm-{t}": System(lambda qs, r=r: [Prediction(graph=r.retrieve_pool(ex.question, ex.pool.ids, ex.pool.texts,
                                                                                         ex.pool.facts)) for ex in examples])
                    for t, r in retrievers.items()})
    t0 = time.perf_counter()
    try:
        table = Experiment(GRAPH, report=args.split, title=args.data_dir.name).run(systems, [ex.question for ex in examples],
                                                                                  builder_golds(examples))
    finally:
        if server:
            server.stop()
    status = {f"llm-{t}": dict(r.stats) for t, r in retrievers.items()}
    repairs = {f"llm-{t}": dict(r.repairs.most_common()) for t, r in retrievers.items()}
    label = f"REPLAY SERVER ({args.replay}), not a model" if server else f"{args.llm_model} at {args.llm_url}"
    print(f"## {args.data_dir.name} {args.split}: {len(examples)} questions (stride sample), {len(shots)} shots "
          f"from train; LLM: {label}; {time.perf_counter() - t0:.0f} s\n")
    print(table.markdown())
    print("\n| method | " + " | ".join(("ok", "repaired", "unparseable", "request failed")) + " |\n|---|---:|---:|---:|---:|")
    for m, s in status.items():
        print(f"| {m} | " + " | ".join(str(s.get(k, 0)) for k in ("ok", "repaired", "unparseable", "request failed")) + " |")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.out / "results.json", json.dumps({"llm": label, "table": table.to_json(), "status": status,
                                                                "repairs": repairs}, indent=1) + "\n")


if __name__ == "__main__":
    main()
