"""Every row of docs/RELIABILITY.md, through the real entry point: one line on stderr naming the
problem, exit 2 on bad input (130 on Ctrl-C), never a traceback, nothing stored is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

GRAPHHOP = [sys.executable, "-c", "from graphhop.cli import main; main()"]


# Ctrl-C as in a terminal, even when the test runner was started with SIGINT ignored (a background job of a
# non-interactive shell inherits SIG_IGN): the child restores it itself. No preexec_fn: a fork that runs Python in
# the child can abort in gRPC's fork handlers once the Milvus/Ray tests have started gRPC threads in this process.
INTERRUPTIBLE = [sys.executable, "-c", "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                 "from graphhop.cli import main; main()"]
ENV = {**os.environ, "HF_HUB_CACHE": "/nonexistent-hf-cache"}


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*GRAPHHOP, *args], capture_output=True, text=True, env=ENV, timeout=300, cwd=cwd)


def one_line(r: subprocess.CompletedProcess, code: int, *needles: str) -> str:
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr and len(lines) == 1, r.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("rel")
    (d / "kb.tsv").write_text("Mona_Lisa\tpainted_by\tLeonardo_da_Vinci\nLouvre\tlocated_in\tParis\n")
    r = run("index", str(d / "kb.tsv"), "--out", str(d / "idx"), "--dense", "none")
    assert r.returncode == 0, r.stderr
    return d / "idx"


@pytest.mark.parametrize("args, needle", [
    (["search", "IDX", "q", "-k", "abc"], "Invalid value for '-k'"),
    (["ask"], "Missing argument 'question'"),
    (["nosuchcmd"], "No such command 'nosuchcmd'"),
    ([], "no command given"),
    (["index", "kb.tsv", "--bogus"], "No such option: --bogus"),
])
def test_usage_errors(args, needle):
    one_line(run(*args), 2, needle)


def test_overwrite_never_deletes_a_users_directory_or_file(tmp_path):
    (tmp_path / "kb.tsv").write_text("a\tr\tb\n")
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "thesis.txt").write_text("years of work")
    (tmp_path / "afile").write_text("keep")
    for target in ("precious", "afile"):
        one_line(run("index", "kb.tsv", "--out", target, "--overwrite", "--dense", "none", cwd=tmp_path), 2,
                 "refusing to replace it")
    assert (tmp_path / "precious" / "thesis.txt").read_text() == "years of work"
    assert (tmp_path / "afile").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "kb.tsv", "precious"]  # no .old-PID, no temp


def _big_kb(path: Path, n: int = 60000) -> Path:
    path.write_text("".join(f"entity_{i}\trelated_to\tthing_{i % 97}_of_kind_{i % 13}\n" for i in range(n)))
    return path


def _wait_for(path: Path, timeout: float = 60.0) -> None:
    end = time.time() + timeout
    while not path.exists() and time.time() < end:
        time.sleep(0.05)
    assert path.exists(), f"{path} never appeared"


@pytest.mark.slow
def test_ctrl_c_exits_130_and_keeps_the_old_index(index, tmp_path):
    import shutil

    target = tmp_path / "idx"
    shutil.copytree(index, target)
    before = (target / "manifest.json").read_text()
    proc = subprocess.Popen([*INTERRUPTIBLE, "index", str(_big_kb(tmp_path / "big.tsv")), "--out", str(target), "--overwrite",
                             "--dense", "none"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    _wait_for(tmp_path / ".idx.lock")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    one_line(subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr), 130, "interrupted")
    assert (target / "manifest.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.tsv", "idx"]


@pytest.mark.slow
def test_second_writer_fails_at_once(tmp_path):
    kb = _big_kb(tmp_path / "big.tsv")
    first = subprocess.Popen([*INTERRUPTIBLE, "index", str(kb), "--out", str(tmp_path / "same"), "--dense", "none"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        _wait_for(tmp_path / ".same.lock")
        one_line(run("index", str(kb), "--out", str(tmp_path / "same"), "--overwrite", "--dense", "none"), 2,
                 "another graphhop process is writing it")
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=120)


def test_invalid_utf8_names_file_and_line(tmp_path):
    (tmp_path / "kb.txt").write_bytes(b"a\tr\tb\nc\xff\tr\td\n")
    (tmp_path / "p.jsonl").write_bytes(b'{"text": "ok"}\n{"text": "\xc3("}\n')
    one_line(run("index", str(tmp_path / "kb.txt"), "--out", str(tmp_path / "i1"), "--dense", "none"), 2,
             "kb.txt:2: not valid UTF-8")
    one_line(run("index", str(tmp_path / "p.jsonl"), "--passages", "--out", str(tmp_path / "i2"), "--dense", "none"), 2,
             "p.jsonl:2: not valid UTF-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb.txt", "p.jsonl"]


@pytest.mark.parametrize("out, needle", [("/proc/nope", "/proc/nope: cannot"), ("kb.tsv/sub", "kb.tsv is a file"),
                                         (".", "cannot write here")])
def test_bad_out_paths(tmp_path, out, needle):
    (tmp_path / "kb.tsv").write_text("a\tr\tb\n")
    one_line(run("index", "kb.tsv", "--out", out, "--overwrite", "--dense", "none", cwd=tmp_path), 2, needle)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kb.tsv"]


def test_missing_model_fails_fast_without_network(index):
    start = time.perf_counter()
    one_line(run("search", str(index), "who painted it", "--method", "dense", "--model", "no-such-org/no-such-model"), 2,
             "not in the Hugging Face cache", "--online")
    assert time.perf_counter() - start < 10  # interpreter start + CLI import; the check itself takes milliseconds


@pytest.mark.parametrize("question, needle", [("", "question is empty"), ("   ", "question is empty"),
                                              ("?!.", "has no words"), ("x" * 100_000, "100,000 characters long")])
def test_bad_questions(index, question, needle):
    for cmd in (["search", str(index), question, "--method", "bm25"], ["ask", question, "--index", str(index), "--method", "bm25"]):
        line = one_line(run(*cmd), 2, needle)
        assert len(line) < 300  # the question is never echoed back


def test_long_question_limit_is_configurable(index):
    r = run("search", str(index), "mona lisa " * 30, "--method", "bm25", "--max-question-chars", "5000")
    assert r.returncode == 0, r.stderr
    one_line(run("search", str(index), "mona lisa", "--method", "bm25", "--max-question-chars", "5"), 2, "limit is 5")


@pytest.mark.parametrize("method, needle", [("difar2", "--method difar2 needs --reranker"), ("bgr", "--method bgr needs --bgr-model")])
def test_model_options_checked_before_loading(index, method, needle):
    start = time.perf_counter()
    one_line(run("ask", "who painted the mona lisa", "--index", str(index), "--method", method), 2, needle)
    assert time.perf_counter() - start < 10
    one_line(run("ask", "who?", "--index", str(index), "--method", method, "--reranker", "/nope", "--bgr-model", "/nope"), 2,
             "no such model directory")


def test_unexpected_errors_are_one_line(capsys):
    from graphhop.cli import run as run_app

    def boom(**kwargs):
        raise RuntimeError("something broke\nsecond line")

    assert run_app(boom, []) == 1
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: something broke" in err and "Traceback" not in err


def test_offline_by_default_online_on_request(monkeypatch, capsys):
    from graphhop.cli import app
    from graphhop.cli import run as run_app

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert run_app(app, ["--online", "pipelines", "--json"]) == 0
    assert "HF_HUB_OFFLINE" not in os.environ and "TRANSFORMERS_OFFLINE" not in os.environ
    assert run_app(app, ["pipelines", "--json"]) == 0
    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "1"
