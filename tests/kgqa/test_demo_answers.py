"""The README's ``ask`` example over the bundled demo KB: right answer, right evidence."""

from __future__ import annotations

import pytest

from graphhop.demo import DEMO_DATA


@pytest.fixture(scope="module")
def kgqa():
    from graphhop.kb.loaders import iter_triples
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.pipeline import KGQA

    return KGQA(KGStore.from_facts(iter_triples(DEMO_DATA / "kb.tsv")), max_hops=4)


def _triples(result) -> set[tuple[str, str, str]]:
    g = result["support_graph"]
    return {tuple(f) for n, d in g.g.nodes(data=True) if n != g.root for f in d["facts"]}


def test_readme_ask_example_answers_no_with_the_birthplace_chain(kgqa) -> None:
    res = kgqa.ask("Was the composer of The Magic Flute born in Vienna?")
    assert res["qtype"] == "boolean" and res["answer"] == "no" and res["supported"]
    assert _triples(res) == {("The Magic Flute", "composed_by", "Wolfgang Amadeus Mozart"),
                             ("Wolfgang Amadeus Mozart", "born_in", "Salzburg")}
