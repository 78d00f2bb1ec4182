"""benchmarks/kgqa_schema_carve.py: kept confidences belong to one head and carve; usage errors before any scoring."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from graphhop.kgqa.scorer import DEFAULT_WEIGHTS

_SPEC = importlib.util.spec_from_file_location(
    "kgqa_schema_carve", Path(__file__).resolve().parents[2] / "benchmarks" / "kgqa_schema_carve.py")
carve = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(carve)


def _head(folder: Path, salt: bytes = b"", epoch: int | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "head.npz").write_bytes((DEFAULT_WEIGHTS / "head.npz").read_bytes() + salt)
    config = json.loads((DEFAULT_WEIGHTS / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, **({} if epoch is None else {"epoch": epoch})}), encoding="utf-8")
    return folder


def test_saved_confidences_are_keyed_by_head_and_carve(monkeypatch, tmp_path):
    """Two runs' heads are both ``epoch_1``: each gets its own arrays back, and a new --n reruns."""
    import graphhop.kgqa.epoch_heads as eh

    first, second = _head(tmp_path / "run1" / "epoch_1"), _head(tmp_path / "run2" / "epoch_1", b"x")
    calls = []

    def fake(folders, weights, hops=4):
        calls.append(str(weights))
        right = str(weights) == str(first)
        return {"probs": np.asarray([0.9, 0.8]), "hits": np.asarray([right, right]), "hops": np.asarray([1, 2])}

    monkeypatch.setattr(eh, "carve_confidences", fake)
    save = tmp_path / "save"
    save.mkdir()
    one = carve.score_heads([], [str(first)], save, n=80, seed=99)
    two = carve.score_heads([], [str(second)], save, n=80, seed=99)
    assert one[str(first)]["hits"].tolist() == [True, True] and two[str(second)]["hits"].tolist() == [False, False]
    assert calls == [str(first), str(second)]
    again = carve.score_heads([], [str(first), str(second)], save, n=80, seed=99)  # both read back
    assert calls == [str(first), str(second)] and again[str(first)]["hits"].tolist() == [True, True]
    carve.score_heads([], [str(first)], save, n=40, seed=99)
    assert calls[-1] == str(first) and len(calls) == 3
    assert len(list(save.iterdir())) == 3 and all(p.suffix == ".npz" for p in save.iterdir())  # no temp files left


def _usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        carve.parse_args(argv)
    assert exc.value.code == 2
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_usage_errors_come_before_any_scoring(capsys, tmp_path):
    out = ["--out", str(tmp_path / "carve")]
    head = str(_head(tmp_path / "w"))
    assert "--write needs --choose" in _usage_error(capsys, [*out, "--weights", head, "--write", str(tmp_path / "c")])
    assert "need heads" in _usage_error(capsys, [*out, "--choose"])
    assert "need heads" in _usage_error(capsys, [*out, "--save", str(tmp_path / "s")])
    (tmp_path / "taken").mkdir()
    assert "already exists" in _usage_error(capsys, [*out, "--weights", head, "--choose", "--write", str(tmp_path / "taken")])
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    assert "is a file" in _usage_error(capsys, [*out, "--weights", head, "--save", str(tmp_path / "afile")])
    epochs = tmp_path / "epochs"
    _head(epochs / "epoch_final", epoch=1)
    assert "no epoch_N heads" in _usage_error(capsys, [*out, "--epoch-dir", str(epochs)])
    _head(epochs / "epoch_10", epoch=10)
    _head(epochs / "epoch_2", epoch=2)
    args = carve.parse_args([*out, "--epoch-dir", str(epochs), "--choose"])
    assert [Path(h).name for h in args.heads] == ["epoch_2", "epoch_10"]  # epoch_final skipped, epochs in order
    assert not (tmp_path / "carve").exists()


def test_kbs_are_chosen_on_by_right_reason_and_kept_per_kb_set(monkeypatch, capsys, tmp_path):
    """``--kbs``: no carve is written, bad folders are usage errors, each KB question scores right only with its
    gold facts in the support (``eval-qa``'s right reason), and kept arrays are keyed by the KB files."""
    from types import SimpleNamespace

    import graphhop.evaluation
    import graphhop.pipeline.registry

    head = str(_head(tmp_path / "w"))
    assert "give --out" in _usage_error(capsys, ["--weights", head])
    assert "no kb.tsv" in _usage_error(capsys, ["--kbs", str(tmp_path), "--weights", head])
    kb = tmp_path / "kg_toy"
    kb.mkdir()
    (kb / "kb.tsv").write_text("A\tmade from\tB\nB\tcolour\tred\n", encoding="utf-8")
    rows = [{"id": "t1", "question": "What goes into A?", "answers": ["B"], "gold_facts": [["A", "made from", "B"]]},
            {"id": "t2", "question": "What colour is B?", "answers": ["red"], "gold_facts": [["B", "colour", "red"]]}]
    (kb / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = carve.parse_args(["--kbs", str(kb), "--weights", head, "--choose"])
    assert args.out is None and args.kbs == [kb]
    fact = lambda *t: SimpleNamespace(g=SimpleNamespace(nodes=lambda data: [("q", {}), ("f", {"facts": [t]})]), root="q")  # noqa: E731
    answers = {"What goes into A?": ("B", 0.9, fact("A", "made from", "B")),       # right, its gold fact in the support
               "What colour is B?": ("red", 0.8, fact("A", "made from", "B"))}     # right answer, wrong reason
    def ask(q):
        answer, score, graph = answers[q]
        return SimpleNamespace(answer=answer, answers=[answer], supported=True, score=score, support_graph=graph,
                               trace={"threshold_hops": 1})
    monkeypatch.setattr(graphhop.evaluation, "dataset_index", lambda *a, **k: None)
    monkeypatch.setattr(graphhop.pipeline.registry, "build_pipeline", lambda *a, **k: SimpleNamespace(ask=ask))
    save = tmp_path / "save"
    save.mkdir()
    got = carve.score_heads([kb], [head], save, kbs=True)[head]
    assert got["hits"].tolist() == [True, False] and got["probs"].tolist() == [0.9, 0.8]
    (kb / "questions.jsonl").write_text(json.dumps(rows[0]) + "\n", encoding="utf-8")  # other KB files: rescored
    assert carve.score_heads([kb], [head], save, kbs=True)[head]["hits"].tolist() == [True]
    assert len(list(save.iterdir())) == 2


def test_kept_arrays_follow_the_pipeline_rules_and_hops(monkeypatch, tmp_path):
    """A changed rule in ``src/graphhop/kgqa`` (or hop bound) makes the kept arrays another key: they are rerun."""
    head = _head(tmp_path / "w")
    kbs = [Path(__file__).resolve().parents[1] / "kgqa" / "data" / "kg_wine"]
    key = json.loads(carve.saved_key(head, 40, 99, kbs))
    assert key["hops"] == carve.HOPS == 4 and len(key["rules_sha1"]) == 40
    monkeypatch.setattr(carve, "rules_digest", lambda: "changed")
    assert carve.saved_key(head, 40, 99, kbs) != json.dumps(key, sort_keys=True)


def test_carve_options_with_kbs_are_refused(capsys, tmp_path):
    kb = str(Path(__file__).resolve().parents[1] / "kgqa" / "data" / "kg_wine")
    for extra in (["--out", str(tmp_path / "c")], ["--n", "80"], ["--seed", "1"]):
        assert "not with --kbs" in _usage_error(capsys, ["--kbs", kb, *extra])
    args = carve.parse_args(["--kbs", kb])
    assert (args.n, args.seed, args.out) == (40, 99, None)
