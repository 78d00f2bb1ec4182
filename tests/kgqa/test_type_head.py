"""The shipped type head (:mod:`graphhop.kgqa.type_head`) and its hooks: in answer typing
(``EndTyper(type_head=...)``, the kgqa option ``type_head``) and in the walk reader (``WalkReader(type_head=...)``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graphhop.core import Fact, InputError
from graphhop.kgqa.type_head import DEFAULT_TYPE_WEIGHTS, KBTypeFit, TextTypeFit, TypeHead

KB = [("The Glass Orchard", "directed by", "Ivo Tamsin"), ("Ivo Tamsin", "born in", "Saltmere"),
      ("Saltmere", "located in", "Norvania"), ("Norvania", "currency", "krona"),
      ("Marta Velloso", "born in", "Porto Lumen"), ("Porto Lumen", "located in", "Veldaria"),
      ("Veldaria", "currency", "lira"), ("Saltmere", "population", "42000"), ("Norvania", "capital", "Porto Lumen")]


@pytest.fixture(scope="module")
def store():
    from graphhop.kb.store import KGStore

    return KGStore.from_facts([Fact(*t) for t in KB])


@pytest.fixture(scope="module")
def scorer():
    from graphhop.kgqa.scorer import PathScorer

    return PathScorer.load()


def test_shipped_head_is_small_and_package_data() -> None:
    head = TypeHead.load()
    assert head.config["dim"] == 384 and head.config["chosen_epoch"] >= 1
    size = sum(f.stat().st_size for f in DEFAULT_TYPE_WEIGHTS.iterdir())
    assert 0 < size < 5 * 2 ** 20
    assert '"weights/types/*"' in (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")


def test_load_rejects_a_folder_without_a_head(tmp_path) -> None:
    with pytest.raises(InputError, match="not a type head"):
        TypeHead.load(tmp_path)


def test_head_tells_countries_cities_people_and_currencies_apart(store, scorer) -> None:
    fit = KBTypeFit(TypeHead.load(), store, scorer.word_vectors)
    e = {n: i for i, n in enumerate(store.entities)}
    for noun, right, wrong in (("country", "Norvania", "Saltmere"), ("city", "Saltmere", "Norvania"),
                               ("currency", "krona", "Norvania"), ("person", "Ivo Tamsin", "Saltmere")):
        assert fit.fit(noun, e[right]) > fit.fit(noun, e[wrong]), (noun, right, wrong)
        assert 0.0 <= fit.fit(noun, e[wrong]) <= 1.0


def test_end_typer_modes(store, scorer) -> None:
    from graphhop.kgqa.end_type import EndTyper

    e = store.entities.index("Norvania")
    off, add, only = (EndTyper(scorer, store, type_head=m).entity_fit("country", e) for m in ("off", "add", "only"))
    head = KBTypeFit(TypeHead.load(), store, scorer.word_vectors).fit("country", e)
    assert only == pytest.approx(head) and add == pytest.approx(off + head)
    with pytest.raises(ValueError, match="type_head"):
        EndTyper(scorer, store, type_head="sometimes")


def test_kgqa_option_type_head_is_checked_and_answers_the_issue_example(store) -> None:
    from graphhop.kgqa.pipeline import KGQA
    from graphhop.pipeline.kgqa import _factory

    with pytest.raises(InputError, match="type_head"):
        _factory(None, type_head="sometimes")
    res = KGQA(store, max_hops=4, type_head="add").ask(
        "What currency is used in the country where the director of The Glass Orchard was born?")
    assert res["answer"] == "krona"


def test_text_fit_reads_relation_words_and_description(encoder) -> None:
    fit = TextTypeFit(encoder)
    country = fit.fit("country", "Norvania", [("born in the town of", False), ("is a northern country", True)])
    town = fit.fit("country", "Saltmere", [("born in the town of", False), ("is a fishing town on the coast", True)])
    assert 0.0 <= town < country <= 1.0
    assert fit.vectors(["country"]).shape == (1, 384) and np.isclose(np.linalg.norm(fit.vectors(["country"])[0]), 1.0)
