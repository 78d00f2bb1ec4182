"""Session 18 (kge18): answers of the wrong kind over a whole KB.

The hand-made KB ``tests/kgqa/data_kge18/kinds`` (snake_case relations) holds breweries, dairies and a creamery in
towns, regions and countries, with questions and gold answers in its ``questions.jsonl``:

1. "In which **country** was the cheesemaker of X born?": the scorer stops at the town of birth; the KB's containment
   (town -> region -> country) finishes the chain though the climb makes it a fourth hop the scorer does not read
   (:func:`graphhop.kgqa.levels.level_climb`).
2. "**Who** is the owner of X?" with no owner-like relation: the town X is located in is no answer; the veto withholds
   it (:class:`graphhop.kgqa.levels.Places`). A person is still a "who" answer.
3. "How many **cheeses** are made in T?" counts the cheeses of the dairies in T, not the dairies.

Both rules are options, off by default (``-o level_climb=true``, ``-o place_veto=true``): out of fold on the 21 selection
KBs they move no right answer (docs/RESULTS.md, issue 12, session 18). The tests here turn them on (:func:`_ask`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

KB = "data_kge18/kinds"
DATA = Path(__file__).parent / KB


def _question(qid: str) -> dict[str, Any]:
    for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q["id"] == f"kinds_{qid}":
            return q
    raise KeyError(qid)


def _ask(kgqa: Any, question: str, **flags: bool) -> dict[str, Any]:
    """``kgqa.ask(question)`` with ``level_climb`` and ``place_veto`` on, or as ``flags`` say, for the call only."""
    flags = {"level_climb": True, "place_veto": True, **flags}
    old = {k: getattr(kgqa, k) for k in flags}
    for k, v in flags.items():
        setattr(kgqa, k, v)
    try:
        return kgqa.ask(question)
    finally:
        for k, v in old.items():
            setattr(kgqa, k, v)


@pytest.mark.parametrize("qid", ["c1", "c2", "c3"])
def test_a_level_noun_finishes_the_chain_by_containment(typing_kb: Any, qid: str) -> None:
    q = _question(qid)
    res = _ask(typing_kb(KB), q["question"])
    assert res["supported"] and res["answers"] == q["answers"]
    assert res["trace"]["relation_path"][-2:] == ["located_in", "located_in"]


def test_the_climb_past_the_fourth_hop_gap_is_the_level_climb(typing_kb: Any) -> None:
    """Without the level climb the fourth hop is refused and the town of birth answers "which country"."""
    q = _question("c3")
    res = _ask(typing_kb(KB), q["question"], level_climb=False)
    assert res["answers"] == ["Harrowby"]
    on = _ask(typing_kb(KB), q["question"])
    assert on["trace"]["answer_type"]["level_climb"] < -10
    support = {tuple(typing_kb(KB).store.raw[int(f[1:])][0]) for f in on["support"]}
    assert ("Harrowby", "located_in", "Tarsen Vale") in support and ("Tarsen Vale", "located_in", "Norvania") in support


def test_who_is_not_answered_by_a_place(typing_kb: Any) -> None:
    q = _question("w1")
    res = _ask(typing_kb(KB), q["question"])
    assert not res["supported"] and res["answers"] == []
    assert res["trace"]["type_veto"]["vetoed_answers"] == ["Marlby"]
    assert _ask(typing_kb(KB), q["question"], place_veto=False)["answers"] == ["Marlby"]


def test_who_is_still_answered_by_a_person(typing_kb: Any) -> None:
    q = _question("w2")
    res = _ask(typing_kb(KB), q["question"])
    assert res["supported"] and res["answers"] == q["answers"]


@pytest.mark.parametrize("qid", ["n1", "n2", "n3"])
def test_a_count_counts_the_counted_noun(typing_kb: Any, qid: str) -> None:
    q = _question(qid)
    res = _ask(typing_kb(KB), q["question"])
    assert res["supported"] and res["answers"] == q["answers"]


def test_places_are_what_things_are_located_in(typing_kb: Any) -> None:
    from graphhop.kgqa.levels import places

    kgqa = typing_kb(KB)
    names = {kgqa.store.entities[e] for e in places(kgqa).entities}
    assert {"Marlby", "Ulverdale", "Tarsen Vale", "Norvania"} <= names
    assert not names & {"Odile Rask", "Ulver Blue", "Quellmark Dark", "1887"}


def test_a_place_with_an_agent_relation_is_no_place_for_who(kgqa_of: Any) -> None:
    """A town that is also the object of an agent relation (``founded by``) stays a possible "who" answer."""
    from graphhop.kgqa.veto import judge

    kgqa = kgqa_of([("Mill A", "located_in", "Orrin"), ("Mill B", "located_in", "Orrin"), ("Mill C", "located_in", "Kest"),
                    ("Orrin", "located_in", "Vand"), ("Kest", "located_in", "Vand"), ("Mill A", "founded_by", "Kest"),
                    ("Mill B", "founded_by", "Ada Pell")])
    ids = {n: i for i, n in enumerate(kgqa.store.entities)}
    kgqa.place_veto = True
    assert judge(kgqa, ("who", None), [ids["Orrin"]]) == -1
    assert judge(kgqa, ("who", None), [ids["Kest"]]) >= 0
    assert judge(kgqa, ("who", None), [ids["Ada Pell"]]) == 1


def test_both_rules_are_off_by_default(typing_kb: Any) -> None:
    kgqa = typing_kb(KB)
    assert not kgqa.level_climb and not kgqa.place_veto
    assert kgqa.ask(_question("w1")["question"])["answers"] == ["Marlby"]
