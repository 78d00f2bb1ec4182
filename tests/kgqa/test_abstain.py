"""The learned confidence of kgqa answers (:mod:`graphhop.kgqa.abstain`): the shipped model loads, a confident
right chain is answered, an unsure one is withheld with its partial chain, and the option turns it off."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graphhop.cli.kgqa import support_triples
from graphhop.kgqa.abstain import DEFAULT_PATH, FEATURES, Confidence, features, fit_logistic, withhold
from graphhop.kgqa.evaluate import domain_results

DATA = Path(__file__).parent / "data"


def _kgqa(name: str, abstain: bool = True):
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    return KGQA(KGStore.from_facts(iter_triples(DATA / name / "kb.tsv")), max_hops=4, abstain=abstain)


@pytest.fixture(scope="module")
def perfumes():
    return _kgqa("kg_perfumes")


def test_the_shipped_model_loads() -> None:
    model = Confidence.load()
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    assert data["features"] == list(FEATURES) and len(model.coef) == len(FEATURES)
    assert 0.0 < model.threshold < 1.0
    assert data["meta"]["label"] == "hits1" and len(data["meta"]["fitted_on"]) == 21
    raw = {"qtype": "query", "score": 0.99, "answers": 1, "paths": [[0.99, 20.0, 1], [0.01, 15.0, 1]], "hops": 1,
           "moved": 0, "fit": None, "mentions": [["exact", 1]], "chains": 1, "asked": 1, "covered": 1, "unnamed": 0}
    unsure = {**raw, "score": 0.2, "paths": [[0.2, 9.0, 4], [0.19, 9.0, 4]], "hops": 4, "unnamed": 3}
    assert model.prob(raw) > model.threshold > model.prob(unsure)


def test_a_model_from_another_feature_list_is_refused(tmp_path: Path) -> None:
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    data["features"] = data["features"][:-1]
    (tmp_path / "m.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="differ"):
        Confidence.load(tmp_path / "m.json")


def test_fit_logistic_finds_the_informative_feature() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] + 0.3 * rng.normal(size=400)) > 0
    coef, _ = fit_logistic(x, y, l2=1.0)
    assert coef[0] > 2.0 and abs(coef[1]) < 0.5


def test_withhold_keeps_the_chain_and_the_guess() -> None:
    model = Confidence(np.zeros(len(FEATURES)), 0.0, np.zeros(len(FEATURES)), np.ones(len(FEATURES)), 0.6)
    out = {"answer": "A", "answers": ["A", "B"], "supported": True, "score": 0.9, "chains": [[1, 2]], "trace": {}}
    judged = withhold(dict(out, trace={}), {"qtype": "query"}, model)  # probability 0.5 < 0.6
    assert not judged["supported"] and judged["answer"] == "" and judged["chains"] == [[1, 2]]
    assert judged["trace"]["best_guess"] == ["A", "B"] and judged["trace"]["reason"].startswith("no supported answer")
    model.threshold = 0.4
    assert withhold(dict(out, trace={}), {"qtype": "query"}, model)["answer"] == "A"
    assert withhold(dict(out, trace={}), {"qtype": "query"}, None)["answer"] == "A"
    assert len(features({"qtype": "count"})) == len(FEATURES)


def test_a_confident_right_chain_is_answered() -> None:
    res = _kgqa("kg_books").ask("Which books did Lanternhouse publish?")
    assert res["supported"] and res["answers"]
    assert res["trace"]["confidence"]["prob"] >= res["trace"]["confidence"]["threshold"]
    assert res["support"]


def test_an_unsure_answer_is_withheld_with_its_partial_chain(perfumes) -> None:
    q = "Bastien Quell trained a few perfumers - which houses do they work at now?"
    res = perfumes.ask(q)
    assert not res["supported"] and res["answer"] == "" and res["answers"] == []
    assert res["trace"]["reason"].startswith("no supported answer: confidence")
    assert res["trace"]["confidence"]["prob"] < res["trace"]["confidence"]["threshold"]
    assert res["trace"]["best_guess"] and res["support"]  # the best partial chain is shown
    off = _kgqa("kg_perfumes", abstain=False).ask(q)
    assert off["supported"] and off["answers"] == res["trace"]["best_guess"]


def test_the_pipeline_option_turns_it_off() -> None:
    from graphhop.pipeline.kgqa import _factory

    assert _factory(None, abstain="false").abstain is False
    assert _factory(None).abstain is True


def test_fewer_wrong_answers_on_a_selection_kb() -> None:
    """kg_perfumes (selection, in the fit): measured 19 right / 8 wrong / 5 withheld with the confidence off,
    16 / 2 / 14 on (answer Hits@1, --hops 4)."""
    off, on = (domain_results([DATA / "kg_perfumes"], support_triples, abstain=a)["kg_perfumes"]["rows"] for a in (False, True))

    def counts(rows):
        return (sum(r["hits1"] for r in rows), sum(not r["hits1"] and not r["abstained"] for r in rows))
    (right_off, wrong_off), (right_on, wrong_on) = counts(off), counts(on)
    assert wrong_on <= wrong_off - 4 and right_on >= right_off - 4


def test_ask_cli_shows_the_withheld_guess_and_option_answers_it(tmp_path: Path) -> None:
    """`graphhop ask` prints the guess it withholds with the reason; `-o abstain=false` answers with it; a malformed
    `--option` is an input error (one line through the entry point)."""
    from typer.testing import CliRunner

    from graphhop.cli import app
    from graphhop.core import Fact, InputError
    from graphhop.index.directory import build_index, documents_from_facts
    from graphhop.kb.loaders import iter_triples

    facts = [Fact(t.head, t.relation, t.tail, id=f"p{i}") for i, t in enumerate(iter_triples(DATA / "kg_perfumes" / "kb.tsv"))]
    idx = build_index(documents_from_facts(facts), tmp_path / "idx", dense=None, progress=False)
    q = "Bastien Quell trained a few perfumers - which houses do they work at now?"
    runner = CliRunner()
    shown = runner.invoke(app, ["ask", q, "--index", str(idx.path)], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "(no answer)" in shown.output and "withheld:" in shown.output and "abstain=false" in shown.output
    answered = runner.invoke(app, ["ask", q, "--index", str(idx.path), "-o", "abstain=false", "--json"])
    res = json.loads(answered.output.strip().splitlines()[-1])
    assert res["supported"] and res["answers"]
    assert res["answers"][0] in shown.output  # the guess shown is the answer given without the confidence
    bad = runner.invoke(app, ["ask", q, "--index", str(idx.path), "-o", "abstain"])  # main() makes it one line, exit 2
    assert isinstance(bad.exception, InputError) and "KEY=VALUE" in str(bad.exception)
