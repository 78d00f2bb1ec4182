"""``ask``'s default reads 4-hop questions (session 12, kgh12): ``ask``, ``eval-qa``, the registry's ``kgqa``, the
HTTP service and :class:`~graphhop.kgqa.pipeline.KGQA` share one default (:data:`graphhop.kgqa.DEFAULT_HOPS`), and a
typing move into the fourth hop is taken only when the trained scorer reads that hop in the question
(:func:`graphhop.kgqa.ops.long_move_gap`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from graphhop.cli import app
from graphhop.core import Fact
from graphhop.kgqa import DEFAULT_HOPS
from tests.kgqa.test_typing_window import CHAIN, GLASS_ORCHARD

CURRENCY_Q = "What currency is used in the country where the director of The Glass Orchard was born?"
#: a selection KB's question whose scorer stops at the maker's city (3 hops); answer typing continues to the country
AIRLINES = Path(__file__).parent / "data" / "kg_airlines"
PLANE_ID = "al12"


def _triples(support_graph: dict) -> set[tuple[str, str, str]]:
    return {tuple(f) for n in support_graph["nodes"] for f in n.get("facts", [])}


@pytest.fixture(scope="module")
def glass_index(tmp_path_factory):
    from graphhop.index.directory import build_index, documents_from_facts

    facts = [Fact(*t, id=f"g{i}") for i, t in enumerate(GLASS_ORCHARD)]
    return build_index(documents_from_facts(facts), tmp_path_factory.mktemp("glass") / "idx", dense=None, progress=False)


def test_one_default_everywhere(glass_index) -> None:
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.pipeline.registry import build_pipeline
    from graphhop.serve.service import ServeService

    assert DEFAULT_HOPS == 4
    assert KGQA(KGStore.from_facts([Fact(*t) for t in GLASS_ORCHARD])).max_hops == DEFAULT_HOPS
    assert build_pipeline("kgqa", glass_index).hops == DEFAULT_HOPS
    assert build_pipeline("kgqa", glass_index, hops=None).hops == DEFAULT_HOPS  # what the CLIs pass when --hops is not given
    assert ServeService({"kb": glass_index}).pipeline(None, None).hops == DEFAULT_HOPS


def test_ask_default_answers_a_four_hop_question_with_its_four_facts(glass_index) -> None:
    runner = CliRunner()
    out = runner.invoke(app, ["ask", CURRENCY_Q, "--index", str(glass_index.path), "--json"])
    assert out.exit_code == 0, out.output
    res = json.loads(out.output.strip().splitlines()[-1])
    assert res["method"] == "kgqa" and res["answer"] == "krona" and res["score"] is not None
    assert _triples(res["support_graph"]) == CHAIN
    short = json.loads(runner.invoke(app, ["ask", CURRENCY_Q, "--index", str(glass_index.path), "--hops", "3",
                                           "--json"]).output.strip().splitlines()[-1])
    assert short["answer"] != "krona" and len(_triples(short["support_graph"])) <= 3  # --hops 3 still stops a hop short


def test_service_default_answers_the_four_hop_question(glass_index) -> None:
    from graphhop.serve.service import ServeService

    res = ServeService({"kb": glass_index}).ask(CURRENCY_Q)
    assert res["answer"] == "krona" and _triples(res["support_graph"]) == CHAIN


def test_eval_qa_default_is_asks(tmp_path: Path) -> None:
    folder = tmp_path / "kg_glass"
    folder.mkdir()
    (folder / "kb.tsv").write_text("".join("\t".join(t) + "\n" for t in GLASS_ORCHARD), encoding="utf-8")
    row = {"id": "g1", "question": CURRENCY_Q, "answers": ["krona"], "type": "plain", "hops": 4,
           "gold_facts": [list(t) for t in GLASS_ORCHARD[:4]]}
    (folder / "questions.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    runner = CliRunner()
    got = {}
    for extra in ([], ["--hops", "3"]):
        out = runner.invoke(app, ["eval-qa", str(folder), "--json", *extra])
        assert out.exit_code == 0, out.output
        got[tuple(extra)] = json.loads(out.output.strip().splitlines()[-1])
    assert got[()]["answer_hits1"] == 1.0 and got[()]["right_reason"] == 1.0
    assert got[("--hops", "3")]["answer_hits1"] == 0.0


@pytest.fixture(scope="module")
def planes():
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.evaluate import load_regression
    from graphhop.kgqa.pipeline import KGQA

    kb, examples = load_regression(AIRLINES)
    # the learned confidence is off: these tests are about answer typing, not about withholding
    return KGQA(KGStore.from_facts(iter_triples(kb)), abstain=False), next(ex.question for ex in examples if ex.id == PLANE_ID)


def test_typing_continues_into_the_fourth_hop_when_the_scorer_reads_it(planes) -> None:
    kgqa, question = planes
    res = kgqa.ask(question)
    assert res["answer"] == "Pallastra", (res["answer"], res["trace"])
    assert res["trace"]["relation_path"] == ["operates", "manufacturer", "headquarters_city", "located_in_country"]
    typing = res["trace"]["answer_type"]
    assert typing["scorer_path"] == ["operates", "manufacturer", "headquarters_city"] and "refused" not in typing


def test_a_fourth_hop_the_scorer_does_not_read_is_refused(planes, monkeypatch) -> None:
    """The same move, judged by a stricter gap than its own, is refused: the answer stays at the scorer's 3-hop end."""
    import graphhop.kgqa.ops as ops

    kgqa, question = planes
    reading = kgqa.read(question, kgqa.linker.link(question)[0])
    assert ops.long_move_gap(kgqa, reading, reading.best) is None  # not longer than the best path: nothing to judge
    longer = [p for p in reading.paths if len(p.steps) == 4]
    assert longer and all(isinstance(ops.long_move_gap(kgqa, reading, p), float) for p in longer)
    monkeypatch.setattr(ops, "STOP_GAP", -50.0)  # demand the longer path beat the best by 50 logits: nothing does
    monkeypatch.setattr(kgqa, "level_climb", False)  # with the option on, the climb is exempt (session 18, kge18)
    res = kgqa.ask(question)
    assert res["answer"] == "Ulmsted" and res["trace"]["relation_path"] == ["operates", "manufacturer", "headquarters_city"]
    refused = res["trace"]["answer_type"]["refused"]
    assert refused["relation_path"][-1] == "located_in_country" and refused["gap"] < -ops.STOP_GAP  # why it was refused


def test_a_level_nouns_containment_climb_is_not_refused(planes, monkeypatch) -> None:
    """The same strict gap does not refuse the climb by containment to the level the asked noun names (``country``):
    the KB's structure, not the scorer, finishes the chain (session 18, kge18: :func:`graphhop.kgqa.levels.level_climb`)."""
    import graphhop.kgqa.ops as ops

    kgqa, question = planes
    monkeypatch.setattr(ops, "STOP_GAP", -50.0)
    monkeypatch.setattr(kgqa, "level_climb", True)  # an option, off by default
    res = kgqa.ask(question)
    assert res["answer"] == "Pallastra" and res["trace"]["relation_path"][-1] == "located_in_country"
    assert res["trace"]["answer_type"]["level_climb"] < 50
