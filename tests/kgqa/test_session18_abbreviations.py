"""Session 18 (kgp18): relation names the KB abbreviates, and 3-4 hop chains worded unlike the KB.

1. A relation name's abbreviated word (``pop.``, ``est.``, ``HQ``, ``hq``, ``length_km``) names the question word it
   abbreviates (``population``, ``established``, ``headquartered``, ``kilometres``) in
   :class:`~graphhop.kgqa.scorer.RelationWords`, so named-relation coverage counts it (bakeries ``HQ``: bak15).
2. The hand-made KB ``tests/kgqa/data_kgp18`` (34 facts about shipping lines; relation names worded unlike the
   questions: ``HQ``, ``est.``, ``pop.``, ``director_of`` stored person → company, ``governedBy``, ``home port``) with
   seven questions of 3-4 hops. Two are explained in full; the other five are the known misses of this session's
   analysis (strict xfails): a chain that stops at the city when the type's noun (``population``) names the last
   relation, ``who runs X`` read as ``^director_of``, ``the body that oversees X`` as ``governedBy``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphhop.kgqa.scorer import RelationWords, abbreviations

DATA = Path(__file__).parent / "data_kgp18"


def test_abbreviations_of_relation_names() -> None:
    assert abbreviations("pop.") == ["pop."]
    assert abbreviations("est.") == ["est."]
    assert abbreviations("HQ") == ["HQ"]
    assert abbreviations("hq") == ["HQ"]  # no vowel: an acronym in lower case
    assert abbreviations("length_km") == ["KM"]
    assert abbreviations("born in") == []
    assert abbreviations("no.") == []  # too short a clipping to expand
    assert abbreviations("") == []


@pytest.mark.parametrize("question, relation", [
    ("Where is X headquartered?", "HQ"),
    ("Where is X headquartered?", "hq"),
    ("What is the population of X?", "pop."),
    ("When was X established?", "est."),
    ("How many kilometres long is X?", "length_km"),
])
def test_an_abbreviation_names_the_word_it_shortens(question: str, relation: str) -> None:
    words = RelationWords([relation, "born in", "founded by"])
    asked = words.asked(question)
    assert asked, question
    assert words.covered(asked, [(0, True)]) == 1
    assert words.covered(asked, [(1, True)]) == words.covered(asked, [(2, True)]) == 0


@pytest.mark.parametrize("question", ["Which kingdom is X in?", "Where was X born?", "Who founded X?"])
def test_an_acronym_does_not_name_a_short_word_that_happens_to_hold_its_letters(question: str) -> None:
    words = RelationWords(["length_km", "HQ"])
    assert words.asked(question) == []


def test_stems_still_match_as_before() -> None:
    words = RelationWords(["founded by", "children", "HQ"])
    assert RelationWords.match("founder", "found")
    assert not RelationWords.match("citi", "citizen")
    assert words.asked("Who are the founders of X?") == ["founder"]


def _rows() -> list[list[str]]:
    return [line.split("\t") for line in (DATA / "kb.tsv").read_text(encoding="utf-8").splitlines() if line]


def _questions() -> dict[str, dict[str, Any]]:
    lines = (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return {q["id"]: q for q in map(json.loads, lines)}


def test_the_small_kb_is_well_formed() -> None:
    rows, questions = _rows(), _questions()
    assert 25 <= len(rows) <= 40 and all(len(r) == 3 for r in rows)
    assert len(questions) >= 5 and all(q["hops"] in (3, 4) for q in questions.values())
    for q in questions.values():
        assert all(list(t) in rows for t in q["gold_facts"]), q["id"]
        assert len(q["gold_facts"]) == q["hops"]


_MISS = "known miss of session 18: "


@pytest.mark.parametrize("qid", [
    "kgp02", "kgp04",
    pytest.param("kgp01", marks=pytest.mark.xfail(strict=True, reason=_MISS + "stops at the city (type noun names pop.)")),
    pytest.param("kgp03", marks=pytest.mark.xfail(strict=True, reason=_MISS + "home port shortcut, not ^director_of")),
    pytest.param("kgp05", marks=pytest.mark.xfail(strict=True, reason=_MISS + "'the body that oversees' not governedBy")),
    pytest.param("kgp06", marks=pytest.mark.xfail(strict=True, reason=_MISS + "'the person who runs' not ^director_of")),
    pytest.param("kgp07", marks=pytest.mark.xfail(strict=True, reason=_MISS + "'how many people live' not pop.")),
])
def test_three_and_four_hop_chains_worded_unlike_the_kb(kgqa_of: Any, qid: str) -> None:
    """Right for the right reason (confidence off): the gold answer, and every gold fact in the support."""
    rows, q = _rows(), _questions()[qid]
    kgqa = kgqa_of([tuple(r) for r in rows])
    abstain, kgqa.abstainer = kgqa.abstainer, None
    try:
        out = kgqa.ask(q["question"])
    finally:
        kgqa.abstainer = abstain
    support = {tuple(rows[int(f[1:])]) for f in out["support"]}
    assert out["answer"] == q["answers"][0]
    assert {tuple(t) for t in q["gold_facts"]} <= support
