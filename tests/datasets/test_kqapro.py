"""KQA Pro ``Verify*`` programs grounded as yes/no questions (tiny KB, plus the real sample)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from graphhop.core import Fact
from graphhop.datasets.kqapro import (
    KQAProgram,
    UnsupportedProgram,
    ground_programs,
    ground_template,
    program_template,
)
from graphhop.kb.store import TripleStore
from graphhop.kb.verbalize import clean_entity, clean_relation

CLUBS = {"Abel_HERNANDEZ": "Palermo", "Paulo_DYBALA": "Juventus", "Luis_SUAREZ": "Liverpool_FC"}
COUNTRIES = {"Abel_HERNANDEZ": "Uruguay", "Paulo_DYBALA": "Argentina", "Luis_SUAREZ": "Uruguay"}

#: Find(Abel HERNANDEZ).QueryAttr(plays in club).VerifyStr(Palermo)
VERIFY = [
    {"function": "Find", "dependencies": [], "inputs": ["Abel HERNANDEZ"]},
    {"function": "QueryAttr", "dependencies": [0], "inputs": ["plays in club"]},
    {"function": "VerifyStr", "dependencies": [1], "inputs": ["Palermo"]},
]


def _store(countries: bool = True) -> TripleStore:
    facts = [Fact(p, "plays_in_club", c) for p, c in CLUBS.items()]
    if countries:
        facts += [Fact(p, "plays_for_country", c) for p, c in COUNTRIES.items()]
    return TripleStore.from_facts(facts)


def _claim(question: str, head: str, relation: str) -> str:
    """The value a realized verify question claims (the text after the subject)."""
    prefix = f"Is the {clean_relation(relation)} of {clean_entity(head)} "
    assert question.startswith(prefix) and question.endswith("?"), question
    return question[len(prefix) : -1]


def test_verify_program_template() -> None:
    tpl = program_template(VERIFY)
    assert tpl.terminal == "verify" and tpl.chains == ((),) and tpl.signature == "entity -> verify"
    numeric = VERIFY[:2] + [{"function": "VerifyYear", "dependencies": [1], "inputs": ["1991", ">"]}]
    assert program_template(numeric).terminal == "verify"
    with pytest.raises(UnsupportedProgram, match="VerifyStr"):  # a Verify needs a QueryAttr before it
        program_template([VERIFY[0], {"function": "VerifyStr", "dependencies": [0], "inputs": ["x"]}])
    with pytest.raises(UnsupportedProgram, match="QueryAttr followed by What"):
        program_template(VERIFY[:2] + [{"function": "What", "dependencies": [1], "inputs": []}])


@pytest.mark.parametrize("seed", range(5))
def test_verify_grounds_to_a_yes_and_a_no_question(seed: int) -> None:
    store = _store()
    tpl = program_template(VERIFY)
    yes = ground_template(tpl, store, random.Random(seed), truth=True)
    no = ground_template(tpl, store, random.Random(seed), truth=False)
    assert yes is not None and no is not None
    assert yes.answers == ["yes"] and no.answers == ["no"]
    for ex in (yes, no):
        (head,) = ex.topic_entities
        (path,) = ex.gold_paths  # one-entity chain: one attribute fact, the gold graph
        (h, rel, value) = path[0]
        assert h == head and ex.gold_facts == [(h, rel, value)]
        assert [f.triple for f in store.out_edges(head, rel)] == [(h, rel, value)]
        claim = _claim(ex.question, head, rel)
        all_values = {clean_entity(f.tail) for e in store.entities() for f in store.out_edges(e, rel)}
        assert claim in all_values
        assert (claim == clean_entity(value)) == (ex is yes)  # yes: the real value; no: another entity's


def test_a_false_claim_needs_another_value_of_the_relation() -> None:
    store = TripleStore.from_facts([Fact(p, "plays_in_club", "Palermo") for p in CLUBS])  # one club for all
    tpl = program_template(VERIFY)
    assert ground_template(tpl, store, random.Random(0), truth=False) is None
    assert ground_template(tpl, store, random.Random(0), truth=True).answers == ["yes"]


def test_ground_programs_alternates_yes_and_no() -> None:
    progs = [KQAProgram(str(i), "q", "yes", VERIFY) for i in range(6)]
    examples, skipped = ground_programs(progs, _store(), seed=3)
    assert not skipped
    assert [ex.answers for ex in examples] == [["yes"], ["no"]] * 3
    assert all(ex.qtype == "entity -> verify" for ex in examples)


def test_real_sample_verify_programs(data_dir) -> None:
    from graphhop.datasets import kgqa
    from graphhop.datasets.builder import KQAPRO_PROGRAMS
    from graphhop.datasets.kqapro import load_programs
    from graphhop.kb.loaders import iter_triples
    from graphhop.read.ops import detect_qtype

    store = TripleStore.from_facts(iter_triples(kgqa.kb_path("wc-c", data_dir)))
    progs = load_programs(data_dir / KQAPRO_PROGRAMS)
    n_verify = sum(any(s["function"].startswith("Verify") for s in p.program) for p in progs)
    examples, _ = ground_programs(progs, store, seed=13)
    verify = [ex for ex in examples if ex.qtype.endswith("-> verify")]
    assert n_verify == 26 and len(verify) >= 10
    counts = Counter(ex.answers[0] for ex in verify)
    assert set(counts) == {"yes", "no"} and abs(counts["yes"] - counts["no"]) <= 1
    for ex in verify:
        assert detect_qtype(ex.question) == "boolean", ex.question
        rel = ex.gold_paths[0][-1][1]
        assert all(p[-1][1] == rel for p in ex.gold_paths)  # every path ends in the asked attribute
        assert f"the {clean_relation(rel)} of " in ex.question
