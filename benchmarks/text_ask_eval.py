"""`ask` over hand-written passage sets: right answer with every gold passage in the support.

    python benchmarks/text_ask_eval.py tests/regression/text_music tests/regression/text_elements \
        --out runs/text-ask [--bgr-model DIR | --grr] [--given-type]

A folder without passages.jsonl uses the bundled demo passages. Builds each folder's passages index once (BM25 + flat dense, cached under --out), runs the default
text pipeline (`graphhop.pipeline.text.TextPipeline`) on every question and prints the rate overall,
per type and per hops (the figures of docs/RESULTS.md, issue 13); rows go to <out>/<name>.json.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


DEMO_PASSAGES = Path(__file__).resolve().parents[1] / "src" / "graphhop" / "demo" / "data" / "passages.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", type=Path, help="folders with passages.jsonl + questions.jsonl")
    ap.add_argument("--out", type=Path, default=Path("runs/text-ask"))
    ap.add_argument("--bgr-model", type=Path, default=None, help="run BGR hop by hop instead of the beam retriever")
    ap.add_argument("--given-type", action="store_true", help="pass the suite's question type (default: detect)")
    ap.add_argument("--hops", type=int, default=3)
    ap.add_argument("--grr", action="store_true", help="the GRR-style baseline (entity links only after hop 1)")
    args = ap.parse_args()

    from graphhop.index.dense import DenseOptions
    from graphhop.index.directory import KnowledgeIndex, build_index, documents_from_passages
    from graphhop.kb.loaders import iter_passages
    from graphhop.pipeline.text import TextPipeline, load_suite, run_suite

    args.out.mkdir(parents=True, exist_ok=True)
    print("| set | method | n | right (all) | by type | by hops | s/question |")
    print("|---|---|---:|---:|---|---|---:|")
    for folder in args.folders:
        passages = folder / "passages.jsonl" if (folder / "passages.jsonl").exists() else DEMO_PASSAGES
        idx_dir = args.out / f"{folder.name}-index"
        if (idx_dir / "manifest.json").exists():
            index = KnowledgeIndex.open(idx_dir)
        else:
            index = build_index(documents_from_passages(iter_passages(passages)), idx_dir,
                                dense=DenseOptions("flat"), overwrite=True, progress=False)
        pipe = TextPipeline(index, hops=args.hops, bgr_model=args.bgr_model, links_only=args.grr)
        t0 = time.perf_counter()
        res = run_suite(pipe, load_suite(folder), given_type=args.given_type)
        per_q = (time.perf_counter() - t0) / max(1, len(res["rows"]))
        (args.out / f"{folder.name}-{pipe.name}.json").write_text(json.dumps(res, indent=1))
        r = res["rates"]
        by_type = ", ".join(f"{k[5:]} {v['right']:.2f} ({v['n']})" for k, v in r.items() if k.startswith("type="))
        by_hops = ", ".join(f"{k[5:]} {v['right']:.2f} ({v['n']})" for k, v in r.items() if k.startswith("hops="))
        print(f"| {folder.name} | {pipe.name} | {r['all']['n']} | {r['all']['right']:.3f} | {by_type} | {by_hops} | {per_q:.1f} |")


if __name__ == "__main__":
    main()
