"""A BM25-only index (`--dense none`): eval never loads an encoder; ask never encodes the KB."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from graphhop.cli import app

runner = CliRunner()


def _forbid_encoders(monkeypatch):
    from sentence_transformers import SentenceTransformer

    def boom(*_a, **_k):
        raise AssertionError("a MiniLM encoder was loaded or used")

    monkeypatch.setattr(SentenceTransformer, "__init__", boom)
    monkeypatch.setattr(SentenceTransformer, "encode", boom)  # also a copy cached by an earlier test


def test_search_on_a_bm25_only_index_defaults_to_bm25_and_loads_nothing(tmp_path, monkeypatch):
    kb = tmp_path / "kb.tsv"
    kb.write_text("Mona_Lisa\tpainted_by\tLeonardo_da_Vinci\nParis\tcapital_of\tFrance\n")
    assert runner.invoke(app, ["index", str(kb), "-o", str(tmp_path / "idx"), "--dense", "none"]).exit_code == 0
    _forbid_encoders(monkeypatch)
    r = runner.invoke(app, ["search", str(tmp_path / "idx"), "who painted the mona lisa", "-k", "1", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)[0]["hits"][0]["head"] == "Mona_Lisa"


@pytest.mark.data
def test_eval_bm25_loads_and_encodes_nothing(data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHHOP_CACHE", str(tmp_path))
    _forbid_encoders(monkeypatch)
    r = runner.invoke(app, ["eval", "pq-2h", "--methods", "bm25", "--data", str(data_dir), "--sample", "40", "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout.strip().splitlines()[-1])["rows"]
    assert row["method"] == "bm25" and row["n"] == 40 and row["fact MRR"] > 0.5
    (built,) = [p for p in tmp_path.rglob("manifest.json")]
    assert json.loads(built.read_text())["dense"] is None  # the cached eval index has no dense part


def test_ask_on_a_bm25_only_index_never_encodes_the_kb(tmp_path, monkeypatch):
    from sentence_transformers import SentenceTransformer

    kb = tmp_path / "kb.tsv"
    rows = [f"person_{i}\tborn_in\tcity_{i % 50}" for i in range(3000)] + ["city_7\tlocated_in\tcountry_x"]
    kb.write_text("\n".join(rows) + "\n")
    r = runner.invoke(app, ["index", str(kb), "-o", str(tmp_path / "idx"), "--dense", "none"])
    assert r.exit_code == 0 and "dense: no" in r.output, r.output
    encoded: list[int] = []
    real = SentenceTransformer.encode

    def counting(self, texts, *a, **k):
        encoded.append(1 if isinstance(texts, str) else len(texts))
        return real(self, texts, *a, **k)

    monkeypatch.setattr(SentenceTransformer, "encode", counting)
    for method in ("auto", "bm25"):
        r = runner.invoke(app, ["ask", "which country is person_7 born in?", "-i", str(tmp_path / "idx"), "-m", method,
                                "--json"])
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout.strip().splitlines()[-1])["question"].startswith("which country")
    assert 0 < sum(encoded) < 300  # the question and the retrieved facts, not the 3,001-fact KB
