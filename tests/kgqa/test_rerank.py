"""The chain reranker (docs/RESULTS.md, issue 12, "Session 14 (kgx14)"): a cross-encoder of (masked question,
verbalized chain) fine-tuned from the bundled MiniLM, shipped as float16 top layers, reordering the path scorer's
best chains."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphhop.kgqa.rerank import ChainReranker, rerank_folder, verbalize_chain

#: A KB where the path scorer alone answers "who is running X" over ``operates`` (X's aircraft).
AIRLINE = [("Bluegull Airways", "operates", "Skerry Dart"), ("Bluegull Airways", "operates", "Skerry Longreach"),
           ("Alia Brecken", "ceo_of", "Bluegull Airways"), ("Alia Brecken", "birth_year", "1961"),
           ("Skerry Dart", "manufacturer", "Oberlin Aeroworks"), ("Bluegull Airways", "headquarters_city", "Hollowmere"),
           ("Tern Alliance", "has_member", "Bluegull Airways"), ("Skerry Dart", "seat_capacity", "180")]


#: A KB where the path scorer alone answers "who is running X" over ``head_office`` (made up; no selection KB's names).
FASHION = [("Orla Veste", "head_office", "Castrine"), ("Orla Veste", "chief_executive", "Mara Quill"),
           ("Orla Veste", "founded_by", "Teo Brann"), ("Mara Quill", "born_in", "Lisk"), ("Castrine", "located_in", "Valdoria"),
           ("Orla Veste", "founded_year", "1954"), ("Teo Brann", "born_in", "Castrine")]


@pytest.fixture(scope="module")
def shipped() -> ChainReranker:
    return ChainReranker.load()


def test_shipped_weights_load_and_stay_small(shipped: ChainReranker) -> None:
    folder = rerank_folder(None)
    assert (folder / "top.npz").stat().st_size < 5_000_000
    assert shipped.k >= 2 and shipped.w > 0
    z = shipped.logits("who is running X", ["? ceo of X ; ? = Alia Brecken", "X operates ? ; ? = Skerry Dart"])
    assert z.shape == (2,) and np.isfinite(z).all()


def test_a_chain_reads_with_its_direction(kgqa_of) -> None:
    kgqa = kgqa_of(AIRLINE)
    mention = kgqa.linker.link("Who is the CEO of Bluegull Airways?")[0]
    texts = [verbalize_chain(kgqa.store, p) for p in kgqa.read("Who is the CEO of Bluegull Airways?", mention).paths]
    assert any(t.startswith("? ceo of X ; ? = Alia Brecken") for t in texts)  # walked backward: the answer on the left
    assert any(t.startswith("X operates ? ; ? = ") for t in texts)


def test_the_reranker_moves_the_head_off_a_wrong_first_chain() -> None:
    """The head alone reads "who is running X" over X's head office; the reranker reads it over its chief executive."""
    from graphhop.cli.kgqa import support_triples
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    store = KGStore.from_facts(Fact(h, r, t, f"f{i}") for i, (h, r, t) in enumerate(FASHION))
    question = "Who is running Orla Veste these days?"
    plain = KGQA(store, abstain=False).ask(question)
    assert (plain["answer"], plain["trace"]["relation_path"]) == ("Castrine", ["head_office"])
    got = KGQA(store, abstain=False, rerank=True).ask(question)
    assert (got["answer"], got["trace"]["relation_path"]) == ("Mara Quill", ["chief_executive"])
    assert [list(t) for t in support_triples(got)] == [["Orla Veste", "chief_executive", "Mara Quill"]]


def test_the_retrain_command_runs_on_a_tiny_budget(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from graphhop.cli import app

    out = tmp_path / "rerank"
    folder = Path(__file__).parent / "data" / "kg_airlines"
    res = CliRunner().invoke(app, ["train", "kgqa-reranker", str(folder), "--out", str(out), "--per-set", "0",
                                   "--epochs", "1", "--list-k", "3", "--k", "3"])
    assert res.exit_code == 0, res.output
    card = json.loads((out / "config.json").read_text())
    assert card["layers"] == 1 and card["k"] == 3 and card["lists"] >= 20 and len(card["loss"]) == 1
    assert ChainReranker.load(out).k == 3
