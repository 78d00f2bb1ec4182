"""The bundled demo KB's questions (the README's ``ask`` example among them): right answer, and
every fact of the question's gold chain in the support (right for the right reason)."""

from __future__ import annotations

import json

import pytest

from graphhop.demo import DEMO_DATA

QUESTIONS = [json.loads(line) for line in (DEMO_DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module", params=[4, 3], ids=["hops4-ask-default", "hops3"])
def kgqa(request):
    """The demo KB's pipeline at ``ask``'s default --hops (4) and at 3: both must answer every demo question."""
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    return KGQA(KGStore.from_facts(iter_triples(DEMO_DATA / "kb.tsv")), max_hops=request.param)


def _triples(result) -> set[tuple[str, str, str]]:
    g = result["support_graph"]
    return {tuple(f) for n, d in g.g.nodes(data=True) if n != g.root for f in d["facts"]}


def test_readme_ask_example_answers_no_with_the_birthplace_chain(kgqa) -> None:
    res = kgqa.ask("Was the composer of The Magic Flute born in Vienna?")
    assert res["qtype"] == "boolean" and res["answer"] == "no" and res["supported"]
    assert _triples(res) == {("The Magic Flute", "composed_by", "Wolfgang Amadeus Mozart"),
                             ("Wolfgang Amadeus Mozart", "born_in", "Salzburg")}


@pytest.mark.parametrize("row", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_demo_question_right_for_the_right_reason(kgqa, row) -> None:
    res = kgqa.ask(row["question"])
    assert res["supported"] and res["answer"] in row["answers"], (res["answer"], res["trace"].get("relation_path"))
    missing = {tuple(f) for f in row["gold_path"]} - _triples(res)
    assert not missing, f"gold facts not in the support: {missing}"


def test_country_question_walks_past_the_birth_city(kgqa) -> None:
    """The asked noun (country) continues the scorer's chain past the city it stopped at."""
    res = kgqa.ask("In which country was the author of Don Quixote born?")
    assert res["answer"] == "Spain"
    typing = res["trace"]["answer_type"]
    assert typing["noun"] == "country" and typing["moved_hops"] == 1
    assert typing["scorer_path"] == ["written_by", "born_in"]


def test_end_typing_off_keeps_the_scorer_path() -> None:
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    plain = KGQA(KGStore.from_facts(iter_triples(DEMO_DATA / "kb.tsv")), max_hops=4, end_typing=False)
    assert plain.ask("In which country was the author of Don Quixote born?")["answer"] == "Alcalá de Henares"
