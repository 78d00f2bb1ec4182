"""Session 17 (kgy17): yes/no questions that check the relation they name, and "how many" read as a stored number.

Four hand-made KBs in ``tests/kgqa/data_yesno`` hold the same facts in four naming styles (plain words ``yn_plain``,
snake_case ``yn_snake``, camelCase ``yn_camel``, relations stored the other way round ``yn_inverse``: ``Brannick
largest city of Velmoria``), with questions, gold answers and gold facts in each ``questions.jsonl``.

1. "Is A the biggest city in B?" claims A *is* B's largest city (:mod:`graphhop.kgqa.identity`): any other link
   between A and B (``in country``, ``^capital``) decides nothing; a ``no`` shows the real largest city.
2. "How many people live in the town where X has its works?" is the town's stored ``population``, not the number of
   towns (:mod:`graphhop.kgqa.stored`); a real count ("How many stations does B run?") still counts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data_yesno"
STYLES = ("yn_plain", "yn_snake", "yn_camel", "yn_inverse")


def _question(kb: str, qid: str) -> dict[str, Any]:
    """The question ``<kb>_<qid>`` of the KB's ``questions.jsonl``, its gold facts as fact ids (``f<line>``)."""
    facts = [tuple(line.split("\t")) for line in (DATA / kb / "kb.tsv").read_text(encoding="utf-8").splitlines()]
    for line in (DATA / kb / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        if q["id"] == f"{kb}_{qid}":
            q["gold_ids"] = [f"f{facts.index(tuple(g))}" for g in q["gold_facts"]]
            return q
    raise KeyError(qid)


@pytest.mark.parametrize("question, span, text", [
    ("is orlesk the biggest city in velmoria", (2, 7), "what is the biggest city in velmoria"),
    ("was ilsa dane the governor of house merrow", (3, 8), "what is the governor of house merrow"),
    ("is orlesk velmoria's largest city", (2, 6), "what is the largest city of velmoria"),
    ("was ilsa dane house merrow's governor", (3, 7), "what is the governor of house merrow"),
])
def test_the_description_of_an_identity_claim(kgqa_of: Any, question: str, span: tuple[int, int], text: str) -> None:
    """The description runs from ``the`` after the first mention (or from the possessive's owner) to the end, and is
    asked as a query (``B's N`` as ``the N of B``)."""
    from graphhop.kgqa.identity import described_span, description_text
    from graphhop.kgqa.link import tokens

    kgqa = kgqa_of([("Velmoria", "largest city", "Orlesk"), ("House Merrow", "governor", "Ilsa Dane")])
    toks, mentions = tokens(question), kgqa.linker.link(question)
    assert described_span(toks, mentions) == span
    assert description_text(toks, span, mentions) == text


@pytest.mark.parametrize("question", [
    "is the head office of house merrow in velmoria",  # a claimed value, not an identity
    "is orlesk in velmoria",
    "is orlesk a city of velmoria",  # a membership ("a"), not an identity
    "is orlesk the biggest city",  # the description names no entity of its own
    "which city is the biggest in velmoria",
    "is orlesk s population larger",  # a possessive of the first mention: no second one
])
def test_no_description_outside_an_identity_claim(kgqa_of: Any, question: str) -> None:
    from graphhop.kgqa.identity import described_span
    from graphhop.kgqa.link import tokens

    kgqa = kgqa_of([("Velmoria", "largest city", "Orlesk"), ("House Merrow", "governor", "Ilsa Dane")])
    assert described_span(tokens(question), kgqa.linker.link(question)) is None


@pytest.mark.parametrize("kb", STYLES)
@pytest.mark.parametrize("qid", ["p1a", "p1b", "p1f", "p1h"])
def test_an_identity_claim_checks_the_relation_it_names(typing_kb: Any, kb: str, qid: str) -> None:
    """"Is Orlesk the biggest city in Velmoria?": no, though Orlesk lies in Velmoria and is its capital; the support
    is Velmoria's real largest city (yes: the same fact reaching the claimed city)."""
    q = _question(kb, qid)
    res = typing_kb(f"data_yesno/{kb}").ask(q["question"])
    assert res["supported"] and res["answers"] == q["answers"]
    assert set(q["gold_ids"]) <= set(res["support"]) and len(res["support"]) == 1
    assert res["trace"]["identity"]["described"][:1] == [g[0] if kb == "yn_inverse" else g[2] for g in q["gold_facts"]]


def test_an_identity_claim_is_read_as_a_claimed_value_when_off(typing_kb: Any) -> None:
    """Without the identity reading, any link between the two cities' country and Orlesk says yes (session 16)."""
    kgqa = typing_kb("data_yesno/yn_snake")
    kgqa.identity = False
    try:
        res = kgqa.ask("Is Orlesk the biggest city in Velmoria?")
    finally:
        kgqa.identity = True
    assert res["answers"] == ["yes"] and "identity" not in res["trace"]


@pytest.mark.parametrize("kb", STYLES)
@pytest.mark.parametrize("qid", ["p4a", "p4b", "p4c", "p4d"])
def test_how_many_reads_a_stored_number(typing_kb: Any, kb: str, qid: str) -> None:
    """The town's ``population``, the brigade's ``firefighter count``, the organ's ``pipe count``; the stations a
    brigade runs are still counted (``2``), not read off a number."""
    q = _question(kb, qid)
    res = typing_kb(f"data_yesno/{kb}").ask(q["question"])
    assert res["supported"] and res["answers"] == q["answers"]
    assert set(q["gold_ids"]) <= set(res["support"])
    assert ("stored_count" in res["trace"]) is (qid != "p4d")
