"""``benchmarks/kgqa_relation_variants.py``: the selection KBs with their names written as other KBs write them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location(
    "kgqa_relation_variants", Path(__file__).resolve().parents[2] / "benchmarks" / "kgqa_relation_variants.py")
variants = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(variants)


def _kb(name: str) -> tuple[list[tuple[str, str, str]], list[dict]]:
    folder = variants.DATA / name
    triples = [tuple(line.split("\t")) for line in (folder / "kb.tsv").read_text(encoding="utf-8").splitlines() if line]
    return triples, [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.parametrize("name", variants.VARIANTS)
def test_every_variant_keeps_the_gold_facts_in_its_kb_and_the_graph_unchanged(name: str) -> None:
    for folder in sorted(variants.DATA.glob("kg_*")):
        triples, questions = _kb(folder.name)
        kb, rows = variants.variant(triples, questions, name)
        facts = set(kb)
        assert len(facts) == len(set(triples))
        assert all(tuple(f) in facts for r in rows for f in r["gold_facts"]), (folder.name, name)
        assert len({r for _, r, _ in kb}) == len({r for _, r, _ in triples})  # no two relations merged


def test_inverse_variant_stores_named_relations_the_other_way_round() -> None:
    triples, questions = _kb("kg_books")
    kb, rows = variants.variant(triples, questions, "inverse")
    assert ("Lusa Merrow", "author of", "Hollow Tide") in kb and ("Hollow Tide", "written by", "Lusa Merrow") not in kb
    assert variants.camel("place of birth") == "placeOfBirth"


def test_a_camel_case_kb_is_answered_as_the_original() -> None:
    """Relation names are read the same written ``bornIn`` as ``born in`` (a few questions of one KB)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        got = variants.measure([variants.DATA / "kg_space"], ["original", "camel"], Path(tmp), hops=4, sample=5)
    original, camel = got["kg_space"]["original"], got["kg_space"]["camel"]
    assert len(original) == len(camel) >= 4
    assert [r["answer"] for r in camel] == [r["answer"] for r in original]
    assert [r["right_reason"] for r in camel] == [r["right_reason"] for r in original]


def _fails_fast(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """``main(argv)`` stops with a usage error (exit 2) before any question is answered; its one error line."""
    with pytest.raises(SystemExit) as stop:
        variants.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err) and "KBs" not in "\n".join(err)
    return err[-1]


def test_bad_arguments_stop_at_start_with_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert "--hops must be at least 1 (got 0)" in _fails_fast(capsys, ["--hops", "0", "--kbs", "kg_space"])
    (tmp_path / "file").write_text("x")
    line = _fails_fast(capsys, ["--kbs", "kg_space", "--details", str(tmp_path / "file" / "details.jsonl")])
    assert ": error: --details " in line and "is a file" in line
    assert "is a directory" in _fails_fast(capsys, ["--kbs", "kg_space", "--details", str(tmp_path)])


def test_a_renaming_that_would_merge_relations_is_a_one_line_error(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    kb = tmp_path / "kg_tiny"
    kb.mkdir()
    (kb / "kb.tsv").write_text("X\ta\tY\nY\tb\tZ\nZ\tc\tW\n", encoding="utf-8")
    (kb / "questions.jsonl").write_text(json.dumps({"id": "t1", "question": "q?", "answers": ["Y"],
                                                    "gold_facts": [["X", "a", "Y"]]}) + "\n", encoding="utf-8")
    monkeypatch.setattr(variants, "DATA", tmp_path)
    monkeypatch.setattr(variants, "WIKIDATA", {"a": "b", "b": "c"})  # a -> b, but b keeps its name: two b's
    with pytest.raises(ValueError, match=r"^renaming would merge relations into 'b'$"):
        variants.variant(*variants._read_kb(kb), "wikidata")
    line = _fails_fast(capsys, ["--variants", "wikidata"])
    assert line.split(": error: ", 1)[1] == "kg_tiny, variant wikidata: renaming would merge relations into 'b'"
