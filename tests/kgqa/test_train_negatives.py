"""Hard negatives and hand-written schemas of the scorer's training data (``kgqa/train.py``, ``kgqa/schemas.py``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

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



def _tiny_corpus(selection_gold_only: bool = False):
    """A corpus over one schema with random vectors; ``selection_gold_only``: each selection question
    keeps only its gold candidate, so every head is right on all of them (no epoch can beat epoch 0)."""
    from graphhop.kgqa.scorer import MAX_WORDS
    from graphhop.kgqa.train import Corpus

    stores, examples = schema_examples(12, random.Random(2), schemas=SCHEMAS[:1])
    for i, ex in enumerate(examples):
        ex.selection = i % 3 == 0
        if ex.selection and selection_gold_only:
            g = ex.gold[0]
            ex.steps, ex.types, ex.gold = [ex.steps[g]], [ex.types[g]], [0]
    kb = next(iter(stores))
    gen = np.random.default_rng(0)
    n = len(examples)
    return Corpus(examples, gen.normal(size=(n, 384)).astype(np.float32),
                  gen.normal(size=(len(stores[kb].relations), 384)).astype(np.float32), {kb: 0},
                  gen.normal(size=(4, 384)).astype(np.float32), np.zeros((n, MAX_WORDS), dtype=np.int64),
                  np.ones((n, MAX_WORDS), dtype=np.float32), np.zeros((n, 384), dtype=np.float32))


def test_fit_keeps_the_initial_head_when_training_does_not_beat_it_on_selection() -> None:
    import torch

    from graphhop.kgqa.scorer import make_head
    from graphhop.kgqa.train import fit

    corpus = _tiny_corpus(selection_gold_only=True)
    torch.manual_seed(0)
    head = make_head(signed_types=False)
    before = {k: v.clone() for k, v in head.state_dict().items()}
    moved = []
    on_epoch = lambda h, _: moved.append(any(not torch.equal(before[k], v) for k, v in h.state_dict().items()))  # noqa: E731
    report = fit(head, corpus, epochs=1, lr=0.5, progress=False, keep_initial=True, on_epoch=on_epoch)
    assert moved == [True]  # a large lr: epoch 1's weights differ from the initial ones ...
    assert report["history"][0]["epoch"] == 0 and report["best_epoch"] == 0  # ... but only tie on selection
    assert all(torch.equal(before[k], v) for k, v in head.state_dict().items())  # the initial head is restored
    assert report["selection_acc"] == 1.0 and report["selection_questions"] == sum(e.selection for e in corpus.examples)


def test_train_scorer_rejects_a_bad_init_before_building_the_corpus(tmp_path, monkeypatch) -> None:
    from graphhop.core import InputError
    from graphhop.kgqa import train

    def never(*args, **kwargs):
        raise AssertionError("build_corpus ran before --init was checked")

    monkeypatch.setattr(train, "build_corpus", never)
    with pytest.raises(InputError, match="not a KGQA scorer"):
        train.train_scorer(tmp_path / "out", init=tmp_path / "no-such-head", progress=False)
    assert not (tmp_path / "out").exists()


def test_fine_tuning_keeps_the_init_heads_shape_in_its_config(tmp_path, monkeypatch) -> None:
    import torch

    from graphhop.kgqa import train
    from graphhop.kgqa.scorer import PathScorer, make_head

    torch.manual_seed(0)
    PathScorer(make_head(width=16, signed_types=False), {"dim": 384, "width": 16, "signed_types": False}).save(tmp_path)
    monkeypatch.setattr(train, "build_corpus", lambda *a, **k: _tiny_corpus())
    train.train_scorer(tmp_path / "out", epochs=1, init=tmp_path, progress=False)
    tuned = PathScorer.load(tmp_path / "out")  # loads only if the config matches the weights' shape
    assert (tuned.config["width"], tuned.config["signed_types"], tuned.config["init"]) == (16, False, tmp_path.name)
