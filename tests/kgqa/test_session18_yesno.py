"""Session 18 (kgy18): a yes/no claim is decided by the relation the question names, and its value is the entity named.

The hand-made KB ``tests/kgqa/data_kgy18/ky_snake`` (snake_case relations, 30 facts, 24 yes/no questions with gold
answers and gold facts in ``questions.jsonl``) has people born in one country and citizens of another, a lighthouse
whose name holds a town it is not in, and a coach of one team who plays for another.

1. "Was X born in Y?" names ``place of birth`` (``born`` / ``birth``: :data:`graphhop.kgqa.scorer.WORD_FAMILY`), so a
   ``country of citizenship`` chain is a shortcut that decides nothing; the ``no`` shows where X was born.
2. "Is the lighthouse in the town of Harrow?" claims Harrow (``town`` names no relation of the KB), not the region
   a chain from Harrow reaches; "the provincial capital of Quillon" is resolved (``capital`` names one), and a chain
   through Quillon itself (``jurisdiction`` then ``capital``) only retells the description.

Known misses (asserted nowhere, reported in docs/RESULTS.md): q08 ("die in Harrow": a chain climbing ``located_in``
then down ``country`` to a town of the same country), q11 (``head_coach`` read as "play for"), q22 (a birth town's
country two containment relations up: the ``no`` stops at the region).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data_kgy18" / "ky_snake"
MISSES = {"q08", "q11", "q22"}


def _questions() -> list[dict[str, Any]]:
    facts = [tuple(line.split("\t")) for line in (DATA / "kb.tsv").read_text(encoding="utf-8").splitlines() if line]
    out = []
    for line in (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        q["gold_ids"] = [f"f{facts.index(tuple(g))}" for g in q["gold_facts"]]
        out.append(q)
    return out


QUESTIONS = {q["id"].rsplit("_", 1)[1]: q for q in _questions()}


@pytest.mark.parametrize("qid", sorted(set(QUESTIONS) - MISSES))
def test_a_yes_no_claim_is_right_for_the_right_reason(typing_kb: Any, qid: str) -> None:
    """Each question's answer, with its gold facts in the support (a ``no`` shows the real value's chain)."""
    q = QUESTIONS[qid]
    res = typing_kb("data_kgy18/ky_snake").ask(q["question"])
    assert res["answers"] == q["answers"]
    assert set(q["gold_ids"]) <= set(res["support"])


def test_the_kb_and_its_questions_are_well_formed() -> None:
    """24 yes/no questions over 30 facts, every gold fact in the KB, both answers asked."""
    assert len(QUESTIONS) == 24 and all(q["type"] == "yes/no" for q in QUESTIONS.values())
    assert {q["answers"][0] for q in QUESTIONS.values()} == {"yes", "no"}


def test_born_and_died_name_their_nouns_relations() -> None:
    """``born`` names ``place of birth`` and ``date of birth``, ``died`` names ``place of death``; a word whose own
    stem names a relation (``born in``) keeps it, and nothing else is added."""
    from graphhop.kgqa.scorer import RelationWords

    words = RelationWords(["place of birth", "country of citizenship", "place of death"])
    assert words.asked("was X born in Y") == ["birth"]
    assert words.asked("where did X die") == ["death"]
    assert words.asked("did X die in Y") == ["death"]
    assert RelationWords(["born in", "citizen of"]).asked("was X born in Y") == ["born"]
    assert RelationWords(["citizen of"]).asked("was X born in Y") == []


@pytest.mark.parametrize("question, claimed", [
    ("is harrow point lighthouse in the town of harrow", "harrow"),  # a kind, not a relation: Harrow itself
    ("does quillon court sit in the provincial capital of quillon", "the provincial capital of quillon"),
    ("is corvane air headquartered in the capital of morravia", "the capital of morravia"),
])
def test_a_claim_description_is_read_only_when_it_names_a_relation(kgqa_of: Any, question: str, claimed: str) -> None:
    """``the <words> of Y`` is a description of another entity only when its words name a relation of the KB."""
    from graphhop.kgqa.claims import _description_start
    from graphhop.kgqa.link import tokens

    kgqa = kgqa_of([("Harrow Point Lighthouse", "located_in", "Penmoor"), ("Harrow", "instance_of", "town"),
                    ("Quillon", "capital", "Dunmarrow"), ("Quillon Court", "located_in", "Lessing Cross"),
                    ("Morravia", "capital", "Velt"), ("Corvane Air", "headquarters", "Velt")])
    toks, mentions = tokens(question), kgqa.linker.link(question)
    start = _description_start(kgqa, toks, mentions[-1].start)
    assert " ".join(toks[start : mentions[-1].end]) == claimed


def test_a_chain_through_the_description_proves_nothing(kgqa_of: Any) -> None:
    """"Is the court located in the provincial capital of Quillon?" claims Dunmarrow (``capital`` names a relation): the court's ``jurisdiction`` is Quillon, whose ``capital`` is
    Dunmarrow, but the court sits in Lessing Cross: no, shown by where it sits."""
    kgqa = kgqa_of([("Quillon", "capital", "Dunmarrow"), ("Quillon Court", "jurisdiction", "Quillon"),
                    ("Quillon Court", "located_in", "Lessing Cross"), ("Lessing Cross", "located_in", "Quillon"),
                    ("Dunmarrow", "located_in", "Quillon"), ("Estra Court", "located_in", "Dunmarrow"),
                    ("Estra Court", "jurisdiction", "Estra")])
    res = kgqa.ask("Is the Quillon Court located in the provincial capital of Quillon?")
    assert res["answers"] == ["no"] and "f2" in res["support"]
