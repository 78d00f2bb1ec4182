"""Hard negatives and hand-written schemas of the scorer's training data (``kgqa/train.py``, ``kgqa/schemas.py``)."""

from __future__ import annotations

import random

import numpy as np

from graphhop.core import Fact
from graphhop.kb.store import KGStore
from graphhop.kgqa.schemas import SCHEMAS, schema_question, schema_store
from graphhop.kgqa.scorer import RelationWords
from graphhop.kgqa.synthetic import schema_examples
from graphhop.kgqa.train import candidate_paths, hard_negatives, named_relation_ids

FACTS = [("Static Orchard", "formed in", "Fallow Bay"), ("Fallow Bay", "located in", "Quenmark"),
         ("Quenmark", "currency", "quen"), ("Static Orchard", "year formed", "1990"),
         ("Static Orchard", "country of origin", "Quenmark"), ("Fallow Bay", "population", "5000"),
         ("Static Orchard", "member", "Ada Lane"), ("Ada Lane", "born in", "Fallow Bay")]


def _store() -> KGStore:
    return KGStore.from_facts(Fact(h, r, t) for h, r, t in FACTS)


def _names(store: KGStore, steps) -> tuple[str, ...]:
    return tuple(store.relations[r] + ("" if fwd else "^") for r, fwd in steps)


def test_hard_negatives_are_one_relation_off_gold_and_shortcuts() -> None:
    store = _store()
    rid = store.relation_id
    gold = ((rid["formed in"], True), (rid["located in"], True), (rid["currency"], True))
    got = {_names(store, p.steps) for p in hard_negatives(store, [store.entity_id["Static Orchard"]], gold)}
    assert ("country of origin", "currency") in got          # one relation for two gold hops
    assert ("formed in", "located in", "located in^") in got  # the last hop swapped
    assert ("member", "born in", "located in", "currency") not in got  # two relations off: not a hard negative
    assert all(len(s) in (2, 3) for s in got) and ("formed in", "located in", "currency") not in got


def test_named_relation_ids_share_a_stem_with_the_question() -> None:
    store = _store()
    named = named_relation_ids(RelationWords(store.relations), "what currency is used in the country where X was formed")
    assert {store.relations[i] for i in named} == {"formed in", "year formed", "currency", "country of origin"}


def test_the_cap_keeps_gold_and_prefers_hard_negatives() -> None:
    store = _store()
    rid = store.relation_id
    gold = ((rid["formed in"], True), (rid["located in"], True), (rid["currency"], True))
    named = named_relation_ids(RelationWords(store.relations), "what currency is used in the country where X was formed")
    cands = candidate_paths(store, [store.entity_id["Static Orchard"]], gold, random.Random(0), 4, cap=6, named=named)
    names = [_names(store, p.steps) for p in cands]
    assert len(cands) == 6 and names[0] == ("formed in", "located in", "currency")
    hard = {("country of origin", "currency"), ("year formed",), ("formed in",), ("country of origin",)}
    assert sum(n in hard or any(r in ("formed in", "year formed", "currency", "country of origin") for r in n)
               for n in names[1:4]) == 3
    plain = candidate_paths(store, [store.entity_id["Static Orchard"]], gold, random.Random(0), 4, beam=1, cap=200)
    assert ("country of origin", "currency") not in {_names(store, p.steps) for p in plain}  # only the gold prefixes grow
    hard_too = candidate_paths(store, [store.entity_id["Static Orchard"]], gold, random.Random(0), 4, beam=1, cap=200,
                               named=frozenset())
    assert ("country of origin", "currency") in {_names(store, p.steps) for p in hard_too}


def test_schema_kbs_are_seeded_and_their_shortcuts_mostly_equal_the_chain() -> None:
    schema = SCHEMAS[0]
    a, b = schema_store(schema, 0), schema_store(schema, 0)
    assert a.entities == b.entities and len(a.relations) == len(schema.rels)
    short, (r1, r2) = next(iter(schema.shortcuts.items()))
    rid = a.relation_id
    heads = np.unique(a.heads[a.rels == rid[short]])
    same = 0
    for h in heads:
        _, mid = a.step(np.asarray([h]), rid[r1], True)
        _, chain = a.step(mid, rid[r2], True)
        _, direct = a.step(np.asarray([h]), rid[short], True)
        same += set(direct.tolist()) <= set(chain.tolist())
    assert 0.6 * len(heads) <= same < len(heads)


def test_schema_questions_mask_the_topic_and_keep_gold_among_candidates() -> None:
    rng = random.Random(5)
    made = [schema_question(SCHEMAS[1], schema_store(SCHEMAS[1]), rng, 2) for _ in range(40)]
    made = [m for m in made if m is not None]
    assert len(made) >= 10 and all(" X" in " " + text or text.startswith("X") for _, _, text in made)
    assert all(len(steps) == 2 and text == text.strip() for _, steps, text in made)
    stores, examples = schema_examples(15, random.Random(1))
    assert set(stores) == {f"schema:{s.name}" for s in SCHEMAS} and len(examples) == 15 * len(SCHEMAS)
    assert all(ex.gold and max(ex.gold) < len(ex.steps) and ex.steps[ex.gold[0]] for ex in examples)



def test_fit_keeps_the_initial_head_when_training_does_not_beat_it_on_selection() -> None:
    import torch

    from graphhop.kgqa.scorer import MAX_WORDS, make_head
    from graphhop.kgqa.train import Corpus, fit

    stores, examples = schema_examples(12, random.Random(2), schemas=SCHEMAS[:1])
    for i, ex in enumerate(examples):
        ex.selection = i % 3 == 0
    kb = next(iter(stores))
    gen = np.random.default_rng(0)
    n = len(examples)
    corpus = Corpus(examples, gen.normal(size=(n, 384)).astype(np.float32),
                    gen.normal(size=(len(stores[kb].relations), 384)).astype(np.float32), {kb: 0},
                    gen.normal(size=(4, 384)).astype(np.float32), np.zeros((n, MAX_WORDS), dtype=np.int64),
                    np.ones((n, MAX_WORDS), dtype=np.float32), np.zeros((n, 384), dtype=np.float32))
    torch.manual_seed(0)
    head = make_head(signed_types=False)
    before = {k: v.clone() for k, v in head.state_dict().items()}
    report = fit(head, corpus, epochs=1, lr=0.0, progress=False, keep_initial=True)
    assert report["history"][0]["epoch"] == 0 and report["best_epoch"] == 0  # lr 0: epoch 1 ties, the initial head stays
    assert all(torch.equal(before[k], v) for k, v in head.state_dict().items())
    assert 0.0 <= report["threshold"] <= 1.0 and report["selection_questions"] == sum(e.selection for e in examples)
