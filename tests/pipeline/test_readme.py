"""The README's pipeline example runs on the demo KB and prints the answer it promises."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_pipeline_example_runs() -> None:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"<!-- pipeline-example -->\n```python\n(.*?)```", text, re.S).group(1)
    assert len(block.strip().splitlines()) == 4 and ">>" in block
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    assert out.getvalue().strip() == "Italy"
