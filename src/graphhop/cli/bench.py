"""``graphhop bench``: speed benchmarks (encoder backends side by side; ``ask`` latency, warm and cold)."""

from __future__ import annotations

import json
from typing import Optional

import typer

from graphhop.cli.common import Threads
from graphhop.core import InputError

__all__ = ["bench_app", "bench_encode", "bench_ask", "register"]

bench_app = typer.Typer(help="Speed benchmarks: encoder backends side by side; ask latency.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    """Add the ``bench`` command group to ``app``."""
    app.add_typer(bench_app, name="bench")


@bench_app.command("encode")
def bench_encode(
    n: int = typer.Option(2000, "--n", help="Facts timed per backend (an even stride over the KB)."),
    dataset: str = typer.Option("wc-p1", "--dataset", help="Dev set whose KB is encoded and whose questions give the MRR."),
    backends: str = typer.Option("torch,onnx,onnx-int8,static", "--backends", help="Comma-separated backends to compare."),
    threads: Threads = None,
    batch_size: int = typer.Option(128, "--batch-size", help="Encoding batch size."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Evaluate an even stride of N dev questions."),
    model: Optional[str] = typer.Option(None, "--model", help="Encoder to derive every backend from (default: bundled MiniLM)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Encode with every backend in one run: facts/s, and fact-level MRR on one dev set."""
    from graphhop.bench.encode import encode_benchmark
    from graphhop.models.backends import BACKENDS, set_threads

    names = [b.strip() for b in backends.split(",") if b.strip()]
    unknown = [b for b in names if b not in BACKENDS]
    if unknown or not names:
        raise InputError(f"--backends: unknown backend {', '.join(unknown) or '(none)'}; choose from {', '.join(BACKENDS)}")
    if n < 1 or batch_size < 1:
        raise InputError("--n and --batch-size must be at least 1")
    set_threads(threads)
    say = None if as_json else (lambda msg: typer.echo(msg, err=True))
    result = encode_benchmark(dataset, n, names, batch_size=batch_size, limit=limit, progress=say, model=model)
    if as_json:
        print(json.dumps(result))
        return
    from graphhop.cli.common import print_table

    rows = [{"method": name, **row} for name, row in result["backends"].items()]
    if "two_tier" in result:
        t = result["two_tier"]
        rows.append({"method": f"two-tier (static@{t['depth']} -> torch)", "facts_per_s": t["build_facts_per_s"],
                     "mrr": t["mrr"], "hits@1": t["hits@1"], "hits@10": t["hits@10"]})
    print_table(f"encode {result['sample']} facts of {dataset}'s KB; MRR on {result['questions']} dev questions "
                f"({result['threads']} threads, load {result['load_avg'][0]:.1f})", rows)


@bench_app.command("ask")
def bench_ask(
    n: int = typer.Option(300, "--n", help="Questions timed warm, split evenly over the datasets (even strides over dev)."),
    datasets: str = typer.Option("metaqa-1h,metaqa-2h,metaqa-3h", "--datasets", help="Comma-separated dev sets sharing one KB (default: the 130k-fact MetaQA KB)."),
    cold: int = typer.Option(3, "--cold", help="Fresh `graphhop ask` processes timed from start to answer (0: none)."),
    threads: int = typer.Option(1, "--threads", help="Threads for torch / onnxruntime / FAISS, here and in the cold runs."),
    pin_cpu: Optional[int] = typer.Option(None, "--pin-cpu", help="Pin this process and the cold runs to this CPU (like `taskset -c N`)."),
    data: Optional[str] = typer.Option(None, "--data", help="Data root (default: $GRAPHHOP_DATA)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
    option: list[str] = typer.Option([], "--option", "-o", help="KEY=VALUE option of the pipeline in the warm runs (e.g. rerank=shipped)."),
) -> None:
    """`ask` latency over a KB with the default pipeline: warm p50/p95 per question, and the cold start."""
    import os

    from graphhop.bench.ask import ask_benchmark
    from graphhop.models.encoder import set_threads

    if n < 1 or cold < 0 or threads < 1:
        raise InputError("--n and --threads must be at least 1, --cold at least 0")
    if pin_cpu is not None:
        if pin_cpu not in os.sched_getaffinity(0):
            raise InputError(f"--pin-cpu: CPU {pin_cpu} is not available (have {sorted(os.sched_getaffinity(0))})")
        os.sched_setaffinity(0, {pin_cpu})
    set_threads(threads)
    say = None if as_json else (lambda msg: typer.echo(msg, err=True))
    from graphhop.cli.common import key_values

    result = ask_benchmark([d.strip() for d in datasets.split(",") if d.strip()], n, cold, threads, data, progress=say,
                           options=key_values(option))
    if as_json:
        print(json.dumps(result))
        return
    from graphhop.cli.common import print_table

    warm = result["warm"]
    rows = [{"slice": "all", **{k: v for k, v in warm.items() if k.endswith("_ms") or k == "n"}}]
    rows += [{"slice": f"{h}-hop", **block} for h, block in warm["by_hops"].items()]
    print_table(f"ask ({warm['method']}) over {result['facts']} facts, warm, {threads} thread(s), CPUs {result['cpus']}, "
                f"load {result['load_avg_start'][0]:.1f}; pipeline load {warm['load_s']} s, first answer {warm['first_answer_s']} s", rows)
    if "cold" in result:
        c = result["cold"]
        typer.echo(f"cold start (process start -> answer printed, {c['runs']} runs): median {c['wall_s']} s "
                   f"(min {c['wall_min_s']}, max {c['wall_max_s']}); inside: setup {c['setup_s']} s, answer {c['answer_s']} s")
