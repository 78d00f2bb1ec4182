"""Load test of ``graphhop serve`` on loopback: N concurrent clients ask the demo questions.

Starts ``graphhop serve`` on 127.0.0.1 (the demo KB, warm) unless ``--url`` names a server
already running on this machine (loopback only), then runs ``--clients`` concurrent clients that
each POST the demo questions to ``/api/ask`` in turn, one request at a time, for ``--duration``
seconds (bounded: at most 600 s, 64 clients and ``--max-requests``). Prints one markdown table row
per run: answered requests/s, p50/p95/p99 latency of answered requests, the server's CPU time per
answered request (less sensitive to other load on the machine than wall time), errors by status,
and the server's resident memory at the start and end (its peak in between). Clients beyond
``--max-concurrency`` get ``503`` (counted apart from errors) and wait the server's ``Retry-After``
before asking again. Example (the RESULTS issue-14 rows)::

    python benchmarks/load_test.py --clients 1 --duration 60 --pin-cpu 0        # warm p50 on one core
    python benchmarks/load_test.py --clients 2,4,8 --duration 60 --max-concurrency 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import httpx
import numpy as np

from graphhop.demo import demo_questions

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def rss_mb(pid: int | None) -> float | None:
    """Resident memory of ``pid`` in MB (Linux ``/proc``), or None."""
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of ``pid`` so far (Linux ``/proc``), or None: a load-independent cost."""
    if pid is None:
        return None
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, max_concurrency: int, timeout: float, threads: int) -> subprocess.Popen:
    """``graphhop serve`` on the demo KB; returns once ``/api/health`` answers (or raises)."""
    script = Path(sys.executable).parent / "graphhop"
    launcher = [str(script)] if script.exists() else [sys.executable, "-m", "graphhop.cli"]
    cmd = [*launcher, "serve", "--host", "127.0.0.1", "--port", str(port),
           "--max-concurrency", str(max_concurrency), "--timeout", str(timeout), "--threads", str(threads)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}: {proc.stderr.read()[-500:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("server did not start within 300 s")


async def client(base: str, questions: list[str], offset: int, stop_at: float, budget: list[int],
                 latencies: list[float], statuses: Counter, timeout: float) -> None:
    """One client: ask the questions in turn until ``stop_at`` or the shared request budget runs out.

    Latencies are kept for answered requests; a ``503`` (server full) waits its ``Retry-After``.
    """
    async with httpx.AsyncClient(base_url=base, timeout=timeout + 10) as http:
        i = offset
        while time.perf_counter() < stop_at and budget[0] > 0:
            budget[0] -= 1
            t0 = time.perf_counter()
            try:
                r = await http.post("/api/ask", json={"question": questions[i % len(questions)]})
                statuses[r.status_code] += 1
            except httpx.HTTPError as exc:
                statuses[type(exc).__name__] += 1
                continue
            if r.status_code == 200:
                latencies.append(time.perf_counter() - t0)
                i += 1
            elif r.status_code == 503:
                await asyncio.sleep(min(float(r.headers.get("retry-after", 1)), max(stop_at - time.perf_counter(), 0)))


async def run_load(base: str, clients: int, duration: float, max_requests: int, pid: int | None, timeout: float) -> dict:
    """``clients`` concurrent clients for ``duration`` seconds; memory sampled every second."""
    questions = [q.question for q in demo_questions()]
    latencies: list[float] = []
    statuses: Counter = Counter()
    budget = [max_requests]
    rss = [rss_mb(pid)]
    cpu0 = cpu_seconds(pid)
    t0 = time.perf_counter()
    stop_at = t0 + duration
    tasks = [asyncio.create_task(client(base, questions, c, stop_at, budget, latencies, statuses, timeout))
             for c in range(clients)]
    next_report = t0 + 10
    while not all(t.done() for t in tasks):
        await asyncio.sleep(1)
        rss.append(rss_mb(pid))
        if time.perf_counter() >= next_report:
            next_report += 10
            print(f"  {clients} clients: {time.perf_counter() - t0:4.0f}s, {len(latencies)} answered, "
                  f"server RSS {rss[-1] or 0:.0f} MB", file=sys.stderr)
    await asyncio.gather(*tasks)
    elapsed = time.perf_counter() - t0
    cpu1 = cpu_seconds(pid)
    ms = np.array(latencies) * 1000
    ok = statuses.get(200, 0)
    known = [r for r in rss if r is not None]
    return {
        "clients": clients, "seconds": round(elapsed, 1), "requests": sum(statuses.values()), "ok": ok,
        "req/s": round(ok / elapsed, 2),
        "p50 ms": round(float(np.percentile(ms, 50)), 1) if len(ms) else None,
        "p95 ms": round(float(np.percentile(ms, 95)), 1) if len(ms) else None,
        "p99 ms": round(float(np.percentile(ms, 99)), 1) if len(ms) else None,
        "server CPU ms/req": round((cpu1 - cpu0) * 1000 / max(ok, 1), 1) if cpu0 is not None and cpu1 is not None else None,
        "503 (full)": statuses.get(503, 0),
        "errors": {str(k): v for k, v in statuses.items() if k not in (200, 503)},
        "RSS start MB": round(known[0], 1) if known else None,
        "RSS end MB": round(known[-1], 1) if known else None,
        "RSS peak MB": round(max(known), 1) if known else None,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", default="4", help="Comma-separated client counts, one run each (1..64).")
    ap.add_argument("--duration", type=float, default=60.0, help="Seconds per run (1..600).")
    ap.add_argument("--max-requests", type=int, default=100_000, help="Stop a run after this many requests.")
    ap.add_argument("--url", help="An already running server on this machine (default: start one).")
    ap.add_argument("--pid", type=int, help="The --url server's process id (for its memory).")
    ap.add_argument("--max-concurrency", type=int, default=4, help="Server work slots (started server).")
    ap.add_argument("--timeout", type=float, default=30.0, help="Server per-request timeout (started server).")
    ap.add_argument("--threads", type=int, default=1, help="Server torch threads (started server).")
    ap.add_argument("--pin-cpu", type=int, help="Pin the started server to this one CPU core (Linux).")
    ap.add_argument("--json", action="store_true", help="Print the rows as JSON lines too.")
    args = ap.parse_args(argv)
    counts = [int(c) for c in args.clients.split(",") if c.strip()]
    if not counts or not all(1 <= c <= 64 for c in counts) or not 1 <= args.duration <= 600 or args.max_requests < 1:
        raise SystemExit("--clients must be 1..64, --duration 1..600, --max-requests >= 1")
    proc = None
    if args.url:
        if urlparse(args.url).hostname not in LOOPBACK:
            raise SystemExit(f"--url {args.url}: the load test runs on loopback only")
        base, pid = args.url.rstrip("/"), args.pid
    else:
        port = free_port()
        proc = start_server(port, args.max_concurrency, args.timeout, args.threads)
        base, pid = f"http://127.0.0.1:{port}", proc.pid
        if args.pin_cpu is not None:
            for task in os.listdir(f"/proc/{pid}/task"):  # every thread already started, then the process
                os.sched_setaffinity(int(task), {args.pin_cpu})
    rows = []
    try:
        cpus = sorted(os.sched_getaffinity(pid)) if pid else None
        print(f"server {base} (pid {pid}, CPUs {cpus} of {os.cpu_count()})", file=sys.stderr)
        for c in counts:
            rows.append(asyncio.run(run_load(base, c, args.duration, args.max_requests, pid, args.timeout)))
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(30)
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in rows:
        print("| " + " | ".join(json.dumps(row[c]) if isinstance(row[c], dict) else str(row[c]) for c in cols) + " |")
        if args.json:
            print(json.dumps(row), file=sys.stderr)


if __name__ == "__main__":
    main()
