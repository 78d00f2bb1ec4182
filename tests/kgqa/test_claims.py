"""Yes/no claims (:mod:`graphhop.kgqa.claims`): a shortcut that reaches the claim proves nothing, and the
chain that decides the answer is the one the question names."""

from __future__ import annotations

import pytest

from graphhop.cli.kgqa import support_triples

FACTS = [
    ("Odile Marsk", "nationality", "Veldaria"), ("Odile Marsk", "born in", "Kessel Ford"),
    ("Kessel Ford", "located in", "Upper Braid"), ("Upper Braid", "located in", "Ostmark"),
    ("Tomas Reyl", "nationality", "Ostmark"), ("Tomas Reyl", "born in", "Sarrow"), ("Sarrow", "located in", "Lowmere"),
    ("Lowmere", "located in", "Ostmark"), ("Veldaria", "currency", "veld"), ("Ostmark", "currency", "ost crown"),
    ("Brill", "located in", "Veldaria"), ("Veldaria", "capital", "Brill"), ("Ostmark", "capital", "Lowmere"),
]


@pytest.fixture(scope="module")
def kgqa(kgqa_of):
    return kgqa_of(FACTS)


def _triples(result) -> set[tuple[str, str, str]]:
    return set(support_triples(result))


def test_no_is_shown_by_the_named_chain_not_by_the_shortcut(kgqa) -> None:
    res = kgqa.ask("Was Odile Marsk born in Veldaria?")
    assert res["qtype"] == "boolean" and res["answer"] == "no"
    assert {FACTS[1], FACTS[2], FACTS[3]} <= _triples(res) and FACTS[0] not in _triples(res)
    assert res["trace"]["shortcut_path"] == ["nationality"]


def test_yes_is_shown_by_the_named_chain(kgqa) -> None:
    res = kgqa.ask("Was Odile Marsk born in Ostmark?")
    assert res["answer"] == "yes" and {FACTS[1], FACTS[2], FACTS[3]} <= _triples(res)
