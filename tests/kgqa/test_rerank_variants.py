"""Chain reranker training lists re-read in strangers' styles (docs/RESULTS.md, issue 12, "Session 16 (kgs16)")."""

from __future__ import annotations

import random

import pytest

from graphhop.kb.store import KGStore
from graphhop.core import Fact
from graphhop.kgqa.paths import RelPath
from graphhop.kgqa.rerank import verbalize_chain
from graphhop.kgqa.rerank_variants import inverse_name, restyle_name, variant_list, variant_lists

ROW = {"text": "who runs the kitchen of X", "gold": 1, "kb": "made_up", "id": "q1", "qtype": "plain",
       "chains": ["X head chef A ; A born in ? ; ? = Lisk ; has located in", "X head chef ? ; ? = Mara Quill ; has born in , birth year",
                  "? founded by X ; ? = Teo Brann ; has head chef of"]}


def test_names_restyle_as_the_verbalizer_renders_them() -> None:
    assert restyle_name("capital city") == "has capital city"
    assert restyle_name("located in") == "located in" and restyle_name("serves city") == "serves city"
    assert inverse_name("capital city") == "capital city of" and inverse_name("capital city of") == "capital city"
    assert inverse_name("founded by") is None and inverse_name("operates") is None


def test_a_flipped_relation_turns_round_in_every_chain_and_signature() -> None:
    class AlwaysFlip(random.Random):
        def random(self) -> float:
            return 0.0

    got = variant_list(ROW, "flip", AlwaysFlip())
    assert got is not None and got["gold"] == 1 and got["text"] == ROW["text"]
    assert got["chains"][0] == "A head chef of X ; A born in ? ; ? = Lisk ; has located in"
    assert got["chains"][1] == "? head chef of X ; ? = Mara Quill ; has born in , birth year of of"
    assert got["chains"][2] == "? founded by X ; ? = Teo Brann ; has head chef of"


def test_a_flipped_chain_reads_as_the_verbalizer_reads_the_inverse_kb() -> None:
    import numpy as np

    fwd = KGStore.from_facts([Fact("Orla", "head chef", "Mara", "f0"), Fact("Mara", "birth year", "1961", "f1")])
    inv = KGStore.from_facts([Fact("Mara", "head chef of", "Orla", "f0"), Fact("1961", "birth year of", "Mara", "f1")])

    def text(store: KGStore, rel: str, fwd_step: bool) -> str:
        ids = store.entity_id
        path = RelPath(steps=((store.relation_id[rel], fwd_step),), layers=[np.array([ids["Orla"]]), np.array([ids["Mara"]])])
        return verbalize_chain(store, path)

    class AlwaysFlip(random.Random):
        def random(self) -> float:
            return 0.0

    row = {**ROW, "chains": [text(fwd, "head chef", True)]}
    got = variant_list(row, "flip", AlwaysFlip())
    assert row["chains"] == ["X head chef ? ; ? = Mara ; has birth year"]
    assert got is not None and got["chains"] == [text(inv, "head chef of", False)]


def test_variant_lists_take_the_styles_in_turn_and_skip_lists_that_do_not_change() -> None:
    got = variant_lists([ROW, ROW, ROW, {**ROW, "chains": ["X born in ? ; ? = Lisk"]}], copies=1)
    assert [g["style"] for g in got] == ["has", "flip", "both"][: len(got)] and len(got) >= 2
    assert all(g["gold"] == 1 for g in got)
    with pytest.raises(ValueError):
        variant_list(ROW, "shouty", random.Random(0))
