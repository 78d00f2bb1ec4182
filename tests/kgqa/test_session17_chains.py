"""Session 17 (kgh17): chains that account for every relation the question names, and a ``no``'s evidence.

Small hand-made KBs in ``tests/kgqa/data_typing`` in three naming styles (plain words: ``hand17``; snake_case:
``hand17_snake``; camelCase with ``foundedBy`` and ``builtBy`` stored the other way round: ``hand17_camel``). Each
architect also has a ``nationality`` (``citizenship``) fact: the shortcut to the same country that a chain through
the birthplace explains.

1. A ``no`` is shown by the chain that decides it, never by a chain that reaches the claim
   (:func:`graphhop.kgqa.claims._deciding_chain`); a ``yes`` and a comparison keep their evidence.
2. Chains of three and four hops (relations stored either way) are explained in full in the three styles; the
   snake_case birthplace question is a known shortcut (``city`` names ``located_in_city``; a strict xfail). Two rules
   tried on it lost right answers out of fold and were reverted (docs/RESULTS.md, issue 12, "Session 17 (kgh17)").
"""

from __future__ import annotations

from typing import Any

import pytest


def _rows(name: str) -> list[list[str]]:
    from pathlib import Path

    text = (Path(__file__).parent / "data_typing" / f"{name}.tsv").read_text(encoding="utf-8")
    return [line.split("\t") for line in text.splitlines() if line]


def _support(kgqa: Any, name: str, question: str) -> tuple[str | None, set[tuple[str, ...]]]:
    rows = _rows(name)
    out = kgqa.ask(question)
    return out["answer"], {tuple(rows[int(f[1:])]) for f in out["support"]}


@pytest.mark.parametrize("name, question", [
    ("hand17", "In which country is the city where the architect of Velmor Tower was born?"),
    pytest.param("hand17_snake", "In which country is the city where the architect of Velmor Tower was born?",
                 marks=pytest.mark.xfail(strict=True, reason="city names located_in_city: the citizenship shortcut")),
    ("hand17_camel", "In which country is the city where the designer of Velmor Tower was born?"),
])
def test_the_birthplace_chain_not_the_nationality_shortcut(typing_kb: Any, name: str, question: str) -> None:
    """The snake_case KB answers over ``architect → citizenship`` (support recall 1/3): ``city`` names
    ``located_in_city`` and coverage moves the chain to a four-hop detour that the type veto cuts to the shortcut."""
    rows = _rows(name)
    answer, support = _support(typing_kb(name), name, question)
    assert answer == "Harlund"
    assert support == {tuple(rows[i]) for i in (0, 1, 2)}


@pytest.mark.parametrize("name", ["hand17", "hand17_snake", "hand17_camel"])
def test_a_four_hop_chain_through_inverse_relations(typing_kb: Any, name: str) -> None:
    rows = _rows(name)
    answer, support = _support(typing_kb(name), name,
                               "In which country was the founder of the company that built Gant Spire born?")
    assert answer == "Brevania"
    assert support == {tuple(rows[i]) for i in (12, 13, 14, 15)}  # built, founded, born in Marrick, Marrick's country


@pytest.mark.parametrize("name", ["hand17", "hand17_snake", "hand17_camel"])
def test_a_no_is_shown_by_the_chain_that_decides_it(typing_kb: Any, name: str) -> None:
    """"Was the architect of Velmor Tower born in Marrick?": the tower's own city is Marrick, a shortcut the named
    relations reject; the ``no`` was shown by that very fact (recall 0 in all three styles). It is shown by the
    architect and where the architect was born, also where ``born`` names no relation (``place_of_birth``,
    ``birthPlace``): of the chains naming as much, the one ending at a place like the claim."""
    rows = _rows(name)
    who = "designer" if name == "hand17_camel" else "architect"
    answer, support = _support(typing_kb(name), name, f"Was the {who} of Velmor Tower born in Marrick?")
    assert answer == "no"
    assert support == {tuple(rows[0]), tuple(rows[1])}


@pytest.mark.parametrize("name", ["hand17", "hand17_snake", "hand17_camel"])
def test_yes_and_comparison_evidence_is_unchanged(typing_kb: Any, name: str) -> None:
    rows = _rows(name)
    kgqa = typing_kb(name)
    who = "designer" if name == "hand17_camel" else "architect"
    answer, support = _support(kgqa, name, f"Was the {who} of Gant Spire born in Pellbrook?")
    assert answer == "yes" and support == {tuple(rows[4]), tuple(rows[5])}
    answer, support = _support(kgqa, name, "Which is taller, Velmor Tower or Gant Spire?")
    assert answer == "Velmor Tower" and support == {tuple(rows[8]), tuple(rows[9])}
