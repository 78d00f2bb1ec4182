"""Lure negatives and the schema variants of the scorer's training data (session 8: ``kgqa/train.py``
``lure_steps``, ``kgqa/schema_variants.py``)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from graphhop.core import Fact
from graphhop.kb.store import KGStore
from graphhop.kgqa.schema_variants import INVERSE_NAMES, WIKIDATA_LABELS, schema_variant, variant_schemas
from graphhop.kgqa.schemas import SCHEMAS, sample_questions, schema_store
from graphhop.kgqa.scorer import RelationWords
from graphhop.kgqa.synthetic import schema_examples
from graphhop.kgqa.train import candidate_paths, lure_steps, named_relation_ids

FACTS = [("Morrow Pink", "made from", "Tessamine"), ("Tessamine", "grape colour", "red"),
         ("Morrow Pink", "produced by", "Quill Estate"), ("Quill Estate", "winemaker", "Rafe Tollisk"),
         ("Tessamine", "grown in", "Pellow Ford"), ("Morrow Pink", "vintage", "2011"),
         ("Quill Estate", "located in", "Pellow Ford"), ("Pellow Ford", "located in", "Ternholm Coast")]


def _store() -> KGStore:
    return KGStore.from_facts(Fact(h, r, t) for h, r, t in FACTS)


def _names(store: KGStore, steps) -> tuple[str, ...]:
    return tuple(store.relations[r] + ("" if fwd else "^") for r, fwd in steps)


def test_lures_are_the_gold_chain_cut_short_and_walked_on_along_a_named_relation() -> None:
    store = _store()
    rid = store.relation_id
    named = named_relation_ids(RelationWords(store.relations), "what grape goes into X")
    assert rid["grape colour"] in named
    gold = ((rid["made from"], True),)
    cands = [p.steps for p in candidate_paths(store, [store.entity_id["Morrow Pink"]], gold, random.Random(0), 2,
                                             named=named)]
    lures = {_names(store, s) for s in lure_steps(gold, cands, named)}
    assert lures == {("made from", "grape colour")}  # grown in: not named; made from^: straight back
    two = ((rid["produced by"], True), (rid["located in"], True))
    where = named_relation_ids(RelationWords(store.relations), "in which place is the producer of X located")
    cands = [p.steps for p in candidate_paths(store, [store.entity_id["Morrow Pink"]], two, random.Random(0), 3,
                                             named=where)]
    got = {_names(store, s) for s in lure_steps(two, cands, where)}
    assert ("produced by",) in got and ("produced by", "located in", "located in") in got


def test_the_cap_keeps_every_lure_beside_gold_only_with_lures() -> None:
    store = _store()
    rid = store.relation_id
    named = named_relation_ids(RelationWords(store.relations), "what grape goes into X")
    gold = ((rid["made from"], True),)
    for seed in range(8):
        kept = {_names(store, p.steps) for p in candidate_paths(store, [store.entity_id["Morrow Pink"]], gold,
                                                                random.Random(seed), 2, cap=2, named=named, lures=True)}
        assert kept == {("made from",), ("made from", "grape colour")}
    without = [{_names(store, p.steps) for p in candidate_paths(store, [store.entity_id["Morrow Pink"]], gold,
                                                                random.Random(seed), 2, cap=2, named=named)}
               for seed in range(8)]
    assert any(("made from", "grape colour") not in k for k in without)


@pytest.mark.parametrize("schema", variant_schemas(), ids=lambda s: s.name)
def test_every_variant_keeps_one_kb_name_per_relation_and_answers_its_questions(schema) -> None:
    names = [schema.stored.get(r.name, (r.name, False))[0] for r in schema.rels]
    assert len(set(names)) == len(names)
    store = schema_store(schema, 0)
    assert set(store.relations) == set(names)
    made = sample_questions(schema, store, random.Random(3), 12, 400, lambda t, s, x: (t, s, x))
    assert len(made) == 12
    for topic, steps, text in made:  # every step is a fact of the KB, walked as stored
        cur = [topic]
        for rel, fwd in steps:
            _, cur = store.step(cur, rel, fwd)
            assert len(cur)


def test_the_inverse_variant_stores_the_fact_the_other_way_round_and_reads_it_by_the_same_words() -> None:
    inv = schema_variant(SCHEMAS[0], "inverse")
    a, b = schema_store(replace(inv, stored={}), 0), schema_store(inv, 0)  # same name: same entities and draws
    assert inv.stored["head chef"] == ("head chef of", True)
    fwd = {(a.entities[h], a.entities[t]) for h, r, t in zip(a.heads, a.rels, a.tails) if a.relations[r] == "head chef"}
    back = {(b.entities[t], b.entities[h]) for h, r, t in zip(b.heads, b.rels, b.tails) if b.relations[r] == "head chef of"}
    assert fwd and fwd == back  # every fact reversed
    rel, forward = inv.reading(b, b.relation_id["head chef of"], False)
    assert rel.name == "head chef" and forward
    assert "year opened" not in inv.stored  # a literal is never stored the other way round
    assert all(name in WIKIDATA_LABELS for s in SCHEMAS for name in (r.name for r in s.rels))
    assert set(INVERSE_NAMES) <= {r.name for s in SCHEMAS for r in s.rels}


def test_the_lure_variant_adds_type_nouns_inside_relation_names_and_questions_over_variants_train() -> None:
    lure = schema_variant(SCHEMAS[4], "lure")
    extra = {r.name for r in lure.rels} - {r.name for r in SCHEMAS[4].rels}
    assert {"grape colour", "winemaker class", "country group"} <= extra and all(n.split()[0] in lure.types for n in extra)
    stores, examples = schema_examples(10, random.Random(1), schemas=variant_schemas(schemas=SCHEMAS[:1]), lures=True)
    assert set(stores) == {"schema:kitchens-wikidata", "schema:kitchens-inverse", "schema:kitchens-lure"}
    assert len(examples) == 30 and all(ex.gold for ex in examples)
    with pytest.raises(ValueError):
        schema_variant(SCHEMAS[0], "reversed")
