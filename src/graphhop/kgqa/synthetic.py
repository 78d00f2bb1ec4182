"""Synthetic compositional questions over the training KBs (part of the scorer's training data).

The benchmark questions come from few templates and few relations, so a head trained on them
alone learns each dataset's hop count rather than *reading* the question. These questions are
generated from random relation paths (1-4 steps) of the same training KBs, with every relation
named in the question, inside out (``what is the currency of the located in of the born in of
X``), forward steps as ``the r of ...`` / ``...'s r`` and backward steps as ``what r ...``. They
teach the head that every step must be asked for and that the last one names the answer, which
is what a user's KB with unseen relation names needs. Only the KBs of the train sets are used.

A share of the questions (``typed``) name the answer only by its type instead of the last relation
(``in which country is the place of birth of X``, ``which players ... X``: the form ``how many``
takes once the count operation reads it as ``which``), with a noun the previous hop's entities do
not have (:mod:`graphhop.kgqa.answer_types`), so the head learns to continue to the hop whose end
has the asked type rather than stop one hop early.
"""

from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from graphhop.kb.store import KGStore
from graphhop.kb.verbalize import clean_relation
from graphhop.kgqa.answer_types import plural, set_nouns
from graphhop.kgqa.schemas import HOP_MIX, SCHEMAS, Schema, masked_text, random_path, sample_questions, schema_store
from graphhop.kgqa.scorer import MAX_HOPS, RelationWords, type_relations
from graphhop.kgqa.train import PathExample, candidate_paths, is_selection, named_relation_ids

__all__ = ["random_path", "verbalize", "typed_question", "synthetic_examples", "schema_examples"]

_FORWARD = ("the {r} of {d}", "{d} 's {r}", "the {r} of {d}")
_BACKWARD = ("what {r} {d}", "the one whose {r} is {d}", "whatever {r} {d}")
_ASK = ("what is {d}", "which is {d}", "{d}", "tell me {d}", "what was {d}")
_TYPED = ("which {noun} is {d} in", "in which {noun} is {d}", "what {noun} is {d}", "which {noun} has {d}",
          "what is the {noun} of {d}", "name the {noun} of {d}", "{d} 's {noun}", "which {noun} goes with {d}",
          "which {nouns} are linked to {d}", "which {nouns} does {d} have", "list the {nouns} of {d}",
          "which {nouns} are in {d}", "which {nouns} have {d}")


def _describe(store: KGStore, steps: Sequence[tuple[int, bool]], rng: random.Random) -> str:
    d = "X"
    for rel, fwd in steps:
        r = clean_relation(store.relations[rel]).lower()
        d = rng.choice(_FORWARD if fwd else _BACKWARD).format(r=r, d=d)
    return d


def verbalize(store: KGStore, steps: Sequence[tuple[int, bool]], rng: random.Random) -> str:
    """A question naming every relation of ``steps`` from the masked topic ``X``, as masked text."""
    return masked_text(rng.choice(_ASK).format(d=_describe(store, steps, rng)))


def typed_question(store: KGStore, topic: int, steps: Sequence[tuple[int, bool]], rng: random.Random,
                   sample: int = 50) -> str | None:
    """A question naming every relation of ``steps`` but the last and the answer by a type noun
    that the entities one hop before do not have (None when there is no such noun)."""
    layers = [np.asarray([topic], dtype=np.int64)]
    for rel, fwd in steps:
        _, reached = store.step(layers[-1][:sample], rel, fwd)
        layers.append(np.unique(reached))
    before = set().union(*(set_nouns(store, layer.tolist(), share=0.0) for layer in layers[-2:-1]))
    nouns = sorted(set_nouns(store, layers[-1].tolist()) - before)
    if not nouns:
        return None
    noun = rng.choice(nouns)
    d = _describe(store, steps[:-1], rng)
    return masked_text(rng.choice(_TYPED).format(noun=noun, nouns=plural(noun), d=d))


def synthetic_examples(store: KGStore, kb: str, n: int, rng: random.Random, typed: float = 0.0,
                       hard: bool = False, lures: bool = False) -> list[PathExample]:
    """``n`` synthetic training questions over ``store`` (hops 1-4, mostly 2-3); about ``typed``
    of them name the answer by its type (:func:`typed_question`); ``hard``: with hard negatives
    (:func:`graphhop.kgqa.train.candidate_paths`; ``lures``: and its lures)."""
    words = RelationWords(store.relations) if hard else None
    out: list[PathExample] = []
    degree = np.diff(store.out_ptr) + np.diff(store.in_ptr)
    topics = np.flatnonzero(degree > 0)
    tries = 0
    while len(out) < n and tries < 20 * n:
        tries += 1
        topic = int(topics[rng.randrange(len(topics))])
        hops = rng.choice(HOP_MIX)
        steps = random_path(store, topic, hops, rng)
        if steps is None:
            continue
        text = typed_question(store, topic, steps, rng) if rng.random() < typed else verbalize(store, steps, rng)
        if text is None:
            continue
        example = _example(store, kb, topic, steps, text, rng, words, lures)
        if example is not None:
            out.append(example)
    return out


def _example(store: KGStore, kb: str, topic: int, steps: Sequence[tuple[int, bool]], text: str, rng: random.Random,
             words: RelationWords | None, lures: bool = False) -> PathExample | None:
    """One training example: ``text``'s candidates around the gold ``steps`` (None if gold is lost)."""
    named = None if words is None else named_relation_ids(words, text)
    cands = candidate_paths(store, [topic], steps, rng, min(MAX_HOPS, len(steps) + 1), named=named, lures=lures)
    gold = [i for i, p in enumerate(cands) if p.steps == tuple(steps)]
    if not gold:
        return None
    return PathExample(text, text, kb, [p.steps for p in cands], [type_relations(store, p.ends) for p in cands],
                       gold, len(steps), is_selection(text))


def schema_examples(n: int, rng: random.Random, seed: int = 0, hard: bool = True,
                    schemas: Sequence[Schema] = SCHEMAS, lures: bool = False) -> tuple[dict[str, KGStore], list[PathExample]]:
    """The KBs of the hand-written :mod:`graphhop.kgqa.schemas` (keys ``schema:NAME``) and ``n``
    questions over each (:func:`graphhop.kgqa.schemas.sample_questions`: hops 1-4, mostly 2-3)."""
    stores: dict[str, KGStore] = {}
    out: list[PathExample] = []
    for schema in schemas:
        kb = f"schema:{schema.name}"
        store = stores[kb] = schema_store(schema, seed)
        words = RelationWords(store.relations) if hard else None
        out += sample_questions(schema, store, rng, n, 20 * n,
                                lambda topic, steps, text: _example(store, kb, topic, steps, text, rng, words, lures))
    return stores, out
