"""``graphhop serve`` on the command line: bad options are one line; the real server answers and stops."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

GRAPHHOP = [sys.executable, "-c", "from graphhop.cli import main; main()"]


# Ctrl-C as in a terminal, even when the test runner was started with SIGINT ignored (a background job of a
# non-interactive shell inherits SIG_IGN): the child restores it itself. No preexec_fn: a fork that runs Python in
# the child can abort in gRPC's fork handlers once the Milvus/Ray tests have started gRPC threads in this process.
INTERRUPTIBLE = [sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 "from graphhop.cli import main; main()"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*GRAPHHOP, *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args,needle", [
    (["--index", "wiki=/nonexistent/graphhop-index"], "/nonexistent/graphhop-index"),
    (["--index", "a=x", "--index", "a=y"], "name 'a' given twice"),
    (["--index", "=dir"], "expected DIR or NAME=DIR"),
    (["--port", "70000"], "--port"),
    (["--max-concurrency", "0"], "--max-concurrency"),
    (["--option", "difar2-reranker"], "expected PIPELINE.KEY=VALUE"),
    (["--option", "nope.k=3"], "unknown pipeline 'nope'"),
    (["--method", "magic"], "unknown method 'magic'"),
])
def test_bad_options_are_one_line(args: list[str], needle: str) -> None:
    r = run("serve", "--no-warm", *args)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert needle in r.stderr


@pytest.mark.slow
def test_serve_answers_then_stops_on_sigint() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([*INTERRUPTIBLE, "serve", "--port", str(port), "--max-concurrency", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 240
        while True:
            assert proc.poll() is None, proc.stderr.read()
            assert time.time() < deadline, "server did not start"
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2)
                break
            except httpx.HTTPError:
                time.sleep(0.5)
        assert health.json()["indexes"] == ["demo"] and health.json()["max_concurrency"] == 1
        r = httpx.post(f"http://127.0.0.1:{port}/api/ask", json={"question": "In which city is the museum that holds The Night Watch?"},
                       timeout=60)
        assert r.status_code == 200 and r.json()["answer"] == "Amsterdam"
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(30)
    err = proc.stderr.read()
    assert code == 0, err
    assert "Traceback" not in err and f"http://127.0.0.1:{port}/" in err and "warm in" in err


def test_pipeline_options_and_index_specs_parse() -> None:
    from graphhop.serve.service import IndexSpec, parse_index_spec, parse_pipeline_option

    assert parse_pipeline_option("difar2.reranker=models/rr") == ("difar2", "reranker", "models/rr")
    assert parse_pipeline_option("dense.k=50") == ("dense", "k", 50)
    assert parse_pipeline_option("bgr.top_n=2.5") == ("bgr", "top_n", 2.5)
    assert parse_index_spec("kb=/data/idx") == IndexSpec("kb", Path("/data/idx"))
    assert parse_index_spec("/data/my-index") == IndexSpec("my-index", Path("/data/my-index"))
    assert parse_index_spec("demo") == IndexSpec("demo", None)
