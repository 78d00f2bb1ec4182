"""``graphhop bench ask``: how fast ``ask`` answers over a KB, warm and cold, on one core by default.

*Warm*: in this process, the index is opened and the default pipeline of ``ask``
(:func:`graphhop.pipeline.registry.default_pipeline`; ``kgqa`` on facts) is built and warmed with one
question; then each question is timed from the call to the answer (per question: p50 / p95 / mean /
max, overall and by hop count). *Cold*: ``graphhop ask QUESTION --index DIR --json`` is run as a fresh
process ``cold`` times; each run is timed from process start to exit (the answer printed), and its
own ``setup_s`` (index open + models loaded) and ``total_s`` (answering) are read from its JSON.

Questions are an even stride over the dev questions of the datasets named (MetaQA: the *report* half
only, as ``eval-qa``), never the first lines. Threads: ``threads`` for torch / onnxruntime / FAISS here
and ``OMP_NUM_THREADS`` + ``GRAPHHOP_THREADS`` in the cold runs; ``pin_cpu`` pins this process (and so
the cold runs) to one CPU. Timings depend on the machine's load: the result carries the load average.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from graphhop.core import InputError

__all__ = ["DEFAULT_SETS", "bench_questions", "latency_summary", "warm_latency", "cold_start", "ask_benchmark"]

#: The 130k-fact MetaQA KB, asked 1-, 2- and 3-hop questions.
DEFAULT_SETS = ("metaqa-1h", "metaqa-2h", "metaqa-3h")


def bench_questions(datasets: Sequence[str], n: int, root: str | Path | None = None) -> tuple[Path, list[tuple[str, int]]]:
    """``(kb_file, [(question, hops), ...])``: ``n`` dev questions split evenly over ``datasets``
    (which must share one KB), each an even stride over its file (MetaQA: the report half)."""
    from graphhop.datasets.kgqa import DATASETS, kb_path, load_dataset
    from graphhop.eval.experiment import stride_sample
    from graphhop.kgqa.train import metaqa_part

    unknown = [d for d in datasets if d.lower() not in DATASETS]
    if unknown or not datasets:
        raise InputError(f"--datasets: unknown dataset {', '.join(unknown) or '(none)'}; choose from {', '.join(DATASETS)}")
    kbs = {DATASETS[d.lower()].kb for d in datasets}
    if len(kbs) > 1:
        raise InputError(f"--datasets must share one KB (got {', '.join(sorted(kbs))})")
    out: list[tuple[str, int]] = []
    for i, name in enumerate(datasets):
        examples = load_dataset(name, "dev", root)
        if DATASETS[name.lower()].family == "metaqa":
            examples = [ex for ex in examples if metaqa_part(ex.question) == "report"]
        share = n // len(datasets) + (1 if i < n % len(datasets) else 0)
        out += [(ex.question, ex.hops) for ex in stride_sample(examples, share)]
    return kb_path(datasets[0], root), out


def latency_summary(seconds: Sequence[float]) -> dict[str, float]:
    """``n``, p50 / p95 / mean / max in milliseconds (numpy's linear-interpolated percentiles)."""
    ms = np.asarray(seconds, dtype=np.float64) * 1000.0
    if len(ms) == 0:
        return {"n": 0}
    return {"n": int(len(ms)), "p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "mean_ms": round(float(ms.mean()), 1), "max_ms": round(float(ms.max()), 1)}


def warm_latency(index: Any, questions: Sequence[tuple[str, int]], method: str | None = None,
                 progress: Callable[[str], None] | None = None, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build ``method`` (default: what ``ask`` picks; with ``options``) over ``index``, answer one question to warm it,
    then time every question. Returns the summary, by hops, and the setup times."""
    from graphhop.pipeline.registry import build_pipeline, default_pipeline

    method = method or default_pipeline(index)
    t0 = time.perf_counter()
    pipe = build_pipeline(method, index, **(options or {}))
    _ = pipe.reader  # the KB's store and the scorer (kgqa), or the reader, load here
    t1 = time.perf_counter()
    pipe.ask(questions[0][0])  # the encoder loads on first use
    t2 = time.perf_counter()
    times: list[float] = []
    by_hops: dict[int, list[float]] = {}
    for i, (question, hops) in enumerate(questions):
        start = time.perf_counter()
        pipe.ask(question)
        times.append(time.perf_counter() - start)
        by_hops.setdefault(hops, []).append(times[-1])
        if progress is not None and (i + 1) % 50 == 0:
            progress(f"warm: {i + 1}/{len(questions)} questions, p50 so far {np.median(times) * 1000:.0f} ms")
    return {"method": method, "load_s": round(t1 - t0, 2), "first_answer_s": round(t2 - t1, 2), **latency_summary(times),
            "by_hops": {str(h): latency_summary(v) for h, v in sorted(by_hops.items())}}


def _graphhop_command() -> list[str]:
    script = Path(sys.executable).with_name("graphhop")
    return [str(script)] if script.exists() else [sys.executable, "-c", "from graphhop.cli import main; main()"]


def cold_start(index_dir: Path, question: str, runs: int = 3, threads: int = 1, timeout: float = 600) -> dict[str, Any]:
    """Run ``graphhop ask QUESTION --index DIR --json`` ``runs`` times as fresh processes: wall seconds
    from start to exit (median, min, max) and the median of each run's own setup / answer times."""
    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads), "GRAPHHOP_THREADS": str(threads)}
    walls, setups, answers = [], [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run([*_graphhop_command(), "ask", question, "--index", str(index_dir), "--json"], env=env,
                              capture_output=True, text=True, timeout=timeout)
        walls.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise InputError(f"cold run failed ({proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        setups.append(out["timings"]["setup_s"])
        answers.append(out["timings"]["total_s"])
    med = lambda xs: round(float(np.median(xs)), 2)  # noqa: E731
    return {"runs": runs, "wall_s": med(walls), "wall_min_s": round(min(walls), 2), "wall_max_s": round(max(walls), 2),
            "setup_s": med(setups), "answer_s": med(answers), "answer": out["answer"], "question": question}


def ask_benchmark(datasets: Sequence[str] = DEFAULT_SETS, n: int = 300, cold: int = 3, threads: int = 1,
                  root: str | Path | None = None, progress: Callable[[str], None] | None = None,
                  options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole benchmark: warm latency over ``n`` questions (pipeline ``options``), then ``cold`` fresh-process runs
    (the default pipeline)."""
    from graphhop.evaluation import dataset_index

    kb, questions = bench_questions(datasets, n, root)
    if not questions:
        raise InputError("no questions to time")
    t0 = time.perf_counter()
    index = dataset_index(kb, dense=None, progress=progress is not None)
    opened = time.perf_counter() - t0
    result: dict[str, Any] = {"kb": str(kb), "facts": len(index.docs), "datasets": list(datasets), "threads": threads,
                              "cpus": sorted(os.sched_getaffinity(0)), "load_avg_start": [round(x, 2) for x in os.getloadavg()],
                              "index_open_s": round(opened, 2)}
    result["warm"] = warm_latency(index, questions, progress=progress, options=options)
    if options:
        result["options"] = dict(options)
    if cold > 0:
        if progress is not None:
            progress(f"cold: {cold} fresh `graphhop ask` processes")
        result["cold"] = cold_start(index.path, questions[0][0], cold, threads)
    result["load_avg_end"] = [round(x, 2) for x in os.getloadavg()]
    return result
