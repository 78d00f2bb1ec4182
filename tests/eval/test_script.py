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
