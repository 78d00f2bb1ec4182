"""Benchmark scripts: bad input is one line and exit status 2."""

from __future__ import annotations

import pytest

from graphhop.core import InputError
from graphhop.eval.script import run_script


def test_run_script_turns_bad_input_into_one_line(capsys) -> None:
    def main() -> None:
        raise InputError("/data/pathquestion/PQ-2H.test.txt: no such file")

    with pytest.raises(SystemExit) as exit_info:
        run_script(main)
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == "error: /data/pathquestion/PQ-2H.test.txt: no such file\n"
    run_script(lambda: None)  # a clean run returns


def test_benchmark_parser_shares_data_threads_and_seed(monkeypatch, tmp_path, capsys) -> None:
    from graphhop.eval.script import benchmark_parser, parse_benchmark_args
    from graphhop.models.encoder import get_threads

    monkeypatch.setenv("GRAPHHOP_DATA", str(tmp_path))
    args = parse_benchmark_args(benchmark_parser("Doc line.\n\nMore.", seed=13), ["--threads", "1"])
    assert (args.data, args.threads, args.seed, get_threads()) == (tmp_path, 1, 13, 1)
    assert not hasattr(parse_benchmark_args(benchmark_parser(None, data=False), []), "seed")
    monkeypatch.delenv("GRAPHHOP_DATA")
    with pytest.raises(SystemExit) as exit_info:
        parse_benchmark_args(benchmark_parser(None), [])
    assert exit_info.value.code == 2 and "set GRAPHHOP_DATA or pass --data" in capsys.readouterr().err
    assert parse_benchmark_args(benchmark_parser(None), [], need_data=False).data is None
