"""``eval-qa``'s dataset side: question types by relation chain, a test split beside dev, empty splits."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphhop.cli import app
from graphhop.core import QAExample
from graphhop.kgqa.evaluate import relation_chain, score_example, summarize


def test_relation_chain_is_the_question_type_of_path_datasets() -> None:
    ex = QAExample("q", "what is the sex of X 's mother ?", ["female"], [],
                   [[("x", "parents", "y"), ("y", "gender", "female")], [("x", "parents", "z"), ("z", "gender", "female")]],
                   2, "pq-2h")
    assert relation_chain(ex) == "parents > gender"
    assert relation_chain(ex, chains=2) == "parents > gender * parents > gender"
    assert relation_chain(QAExample("q", "?", ["a"], [], [], 1, "wc-c")) == "wc-c"
    ex.qtype = relation_chain(ex)
    row = score_example(ex, {"answer": "female", "answers": ["female"], "supported": True},
                        [("x", "parents", "y"), ("y", "gender", "female")])
    out = summarize([row])
    assert list(out["by_qtype"]) == ["parents > gender"] and out["by_qtype"]["parents > gender"]["answer_hits1"] == 1.0


def test_an_empty_split_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "pathquestion").mkdir()
    (tmp_path / "pathquestion" / "PQ-2H.test.txt").write_text("", encoding="utf-8")
    runner = CliRunner()
    empty = runner.invoke(app, ["eval-qa", "pq-2h", "--split", "test", "--data", str(tmp_path), "--json"])
    assert empty.exit_code != 0 and "pq-2h: no questions in its test file" in str(empty.exception)
    missing = runner.invoke(app, ["eval-qa", "pq-3h", "--split", "test", "--data", str(tmp_path), "--json"])
    assert missing.exit_code != 0 and "PQ-3H.test.txt: no such file" in str(missing.exception)


@pytest.mark.data
@pytest.mark.slow
def test_a_test_file_beside_the_dev_file_is_evaluated(data_dir: Path, tmp_path: Path) -> None:
    """A copy of dev lines placed as ``PQ-2H.test.txt``: ``--split test`` reads it (all of it, by chain)."""
    pq = tmp_path / "data" / "pathquestion"
    pq.mkdir(parents=True)
    shutil.copy(data_dir / "pathquestion" / "2H-kb.txt", pq / "2H-kb.txt")
    lines = (data_dir / "pathquestion" / "PQ-2H.dev.txt").read_text(encoding="utf-8").splitlines()[::40]
    (pq / "PQ-2H.test.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval-qa", "pq-2h", "--split", "test", "--data", str(tmp_path / "data"), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output[result.output.index('{"dataset"'):])
    assert out["split"] == "test" and out["n"] == out["of"] == len({line.split("\t")[0] for line in lines})
    assert all(" > " in chain for chain in out["by_qtype"]) and sum(b["n"] for b in out["by_qtype"].values()) == out["n"]
    assert out["answer_hits1"] >= 0.6


@pytest.mark.data
def test_the_rest_of_the_fit_half_is_disjoint_from_selection_and_from_the_report_half(data_dir: Path) -> None:
    from graphhop.core import InputError
    from graphhop.kgqa.evaluate import selection_examples
    from graphhop.kgqa.train import is_selection, metaqa_part

    _, sel = selection_examples("metaqa-1h", data_dir)
    _, rest = selection_examples("metaqa-1h", data_dir, rest=True)
    assert sel and len(rest) > 5 * len(sel)
    assert all(metaqa_part(ex.question) == "fit" for ex in sel + rest)
    assert all(is_selection(ex.question) for ex in sel) and not any(is_selection(ex.question) for ex in rest)
    with pytest.raises(InputError):
        selection_examples("pq-2h", data_dir, rest=True)


def _small_copy(data_dir: Path, root: Path, name: str, every: int) -> int:
    """A test file of ``name`` (every ``every``-th dev line, MetaQA's qtype file aligned) beside a KB cut to
    the facts around those questions' entities, under ``root``; returns the number of distinct questions."""
    import re

    from graphhop.datasets.kgqa import DATASETS

    spec = DATASETS[name]
    lines = (data_dir / spec.questions.format(split="dev")).read_text(encoding="utf-8").splitlines()
    picked = list(range(0, len(lines), every))
    for pattern in filter(None, (spec.questions, spec.qtypes)):
        src = (data_dir / pattern.format(split="dev")).read_text(encoding="utf-8").splitlines()
        dst = root / pattern.format(split="test")
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text("\n".join(src[i] for i in picked) + "\n", encoding="utf-8")
    names = {w.strip() for i in picked for w in re.split(r"[\t#*/|\[\]]", lines[i]) if w.strip()}
    kb = (data_dir / spec.kb).read_text(encoding="utf-8").splitlines()
    split = (lambda s: s.split("|")) if spec.family == "metaqa" else (lambda s: s.split("\t"))
    near = {x for line in kb for x in (split(line)[0], split(line)[-1]) if names & {split(line)[0], split(line)[-1]}}
    (root / spec.kb).parent.mkdir(parents=True, exist_ok=True)
    (root / spec.kb).write_text("\n".join(line for line in kb if near & {split(line)[0], split(line)[-1]}) + "\n",
                                encoding="utf-8")
    return len({lines[i].split("\t")[0] for i in picked})


@pytest.mark.data
@pytest.mark.slow
def test_every_dataset_reads_a_test_file_placed_beside_dev(data_dir: Path, tmp_path: Path) -> None:
    """``eval-qa DATASET --split test`` for every dataset of ``graphhop datasets``: a few dev lines copied as
    the test file (MetaQA: ``qa_test.txt`` + ``qa_test_qtype.txt``), all of them evaluated, types kept."""
    from graphhop.datasets.kgqa import DATASETS

    for name, spec in DATASETS.items():
        root = tmp_path / name
        every = 400 if spec.family == "metaqa" else 12 if name.startswith("wc") else 25
        n = _small_copy(data_dir, root, name, every)
        result = CliRunner().invoke(app, ["eval-qa", name, "--split", "test", "--data", str(root), "--hops", str(max(spec.hops, 2)),
                                          "--json"])
        assert result.exit_code == 0, (name, result.output[-500:])
        out = json.loads(result.output[result.output.index('{"dataset"'):])
        assert (out["dataset"], out["split"]) == (name, "test") and out["n"] == out["of"] == n, name
        assert sum(b["n"] for b in out["by_qtype"].values()) == n and "note" not in out, name
        if spec.family == "metaqa":
            assert all("_to_" in t for t in out["by_qtype"]), name
        assert out["answer_hits1"] > 0, name
