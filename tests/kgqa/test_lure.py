"""Session 8 (kgf12): the lexical lure and its neighbours on strangers' KBs (:mod:`graphhop.kgqa.end_type`,
:func:`graphhop.kgqa.cover.rivals`, :func:`graphhop.kgqa.pipeline.expected_kind`):
a relation that names the *owner* of bare values (``grape colour``), a containment chain walked on beyond the typing
window, a path whose ends only *have* what the asked noun names (a country has a capital), a value the scorer
stopped at although the type names a relation."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.core import Fact
from graphhop.kb.store import KGStore
from graphhop.kgqa.end_type import EndTyper, retype
from graphhop.kgqa.owner import modifies, owner_cut, topic_noun
from graphhop.kgqa.paths import RelPath
from tests.kgqa.test_end_type import _Words  # a word's vector: one-hot on its first letter


@pytest.mark.parametrize("noun,name,expected", [
    ("grape", "grape colour", True), ("grapes", "grape_colour", True), ("capital", "capital city", True),
    ("colour", "grape colour", False),  # the name's head
    ("place", "place of birth", False),  # a noun before a preposition is the head
    ("grape", "grape", False), ("wine", "winemaker", False), ("year", "release year", False),
    ("team", "__sports__sports_team_location__teams", False),  # the name ends with the noun: its head
])
def test_modifies(noun: str, name: str, expected: bool) -> None:
    assert modifies(noun, name) is expected


WINE = [("Pink Label", "made from", "Tessa"), ("Tessa", "grape tint", "red"), ("Tessa", "originated in", "Coast"),
        ("Blanc", "made from", "Sile"), ("Sile", "grape tint", "white"), ("Coast", "located in", "Veldo"),
        ("Veldo", "capital city", "Sendrau"), ("Sendrau", "located in", "Veldo"), ("Veldo", "currency", "veldor"),
        ("Tessa", "first year", "1901"), ("Ann", "born in", "Lorv"), ("Lorv", "located in", "Coast"),
        ("Old Fort", "at", "Sendrau")]


@pytest.fixture(scope="module")
def wine():
    store = KGStore.from_facts([Fact(*t) for t in WINE])
    return store, EndTyper(_Words(), store, desc_weight=1.0), {n: i for i, n in enumerate(store.entities)}


def _path(store, ids, start, *steps):
    layers, steps_out = [np.asarray([ids[start]])], []
    for name in steps:
        fwd = not name.startswith("^")
        rel = store.relation_id[name.lstrip("^")]
        _, reached = store.step(layers[-1], rel, fwd)
        layers.append(np.unique(reached))
        steps_out.append((rel, fwd))
    return RelPath(tuple(steps_out), layers)


def test_owner_relation_needs_bare_values(wine) -> None:
    """``grape tint``'s objects (red, white) have no fact of their own: it names the grape, its owner; ``capital
    city``'s object is a city with facts of its own, so ``capital`` may describe it; numbers are never bare values."""
    store, typer, _ = wine
    rel = store.relation_id
    assert typer.owner_relation("grape", rel["grape tint"])
    assert not typer.owner_relation("tint", rel["grape tint"])
    assert not typer.owner_relation("capital", rel["capital city"])
    assert not typer.owner_relation("first", rel["first year"])
    # an owner relation does not type its objects as the noun (red is no grape): the noun names no relation here
    assert typer.noun_role("grape", [typer.store.entities.index("red")]) is None


def test_owner_cut_answers_the_owner_not_its_value(wine) -> None:
    """"What grape goes into Pink Label" over ``made from → grape tint``: the grape; with ``to_topic`` ("the X grape"),
    a one-step owner path is cut back to the topic itself; never for another noun or a backward step."""
    store, typer, ids = wine
    lured = _path(store, ids, "Pink Label", "made from", "grape tint")
    cut = owner_cut(typer, lured, "grape", [ids["Pink Label"]])
    assert cut is not None and cut.steps == lured.steps[:1] and cut.ends.tolist() == [ids["Tessa"]]
    assert owner_cut(typer, lured, "region", [ids["Pink Label"]]) is None
    one = _path(store, ids, "Tessa", "grape tint")
    assert owner_cut(typer, one, "grape", [ids["Tessa"]]) is None  # would leave only the topic
    back = owner_cut(typer, one, "grape", [ids["Tessa"]], to_topic=True)
    assert back is not None and back.steps == () and back.ends.tolist() == [ids["Tessa"]]


@pytest.mark.parametrize("text,noun", [
    ("which region does the x grape come from", "grape"), ("where did the x winemakers train", "winemaker"),
    ("which region is x in", None), ("the x of y", None), ("what is the x", None),
])
def test_topic_noun(text: str, noun: str | None) -> None:
    assert topic_noun(text) == noun


def test_a_repeated_relation_does_not_use_the_typing_window(wine) -> None:
    """``born in → located in → located in → currency``: the containment chain walked on (town -> region ->
    country) costs no window, so a currency three hops on is reached with the two-hop window at ``max_hops`` 4."""
    store, typer, ids = wine
    ann = _path(store, ids, "Ann", "born in")
    got = retype(typer, ann, "currency", max_hops=4, numeric=lambda p: False)
    assert [store.entities[e] for e in got.path.ends] == ["veldor"] and got.moved == 3, got.path.steps
    assert retype(typer, ann, "currency", max_hops=3, numeric=lambda p: False).path is ann  # no room at max_hops 3


def test_ends_that_have_what_the_noun_names_walk_it(wine) -> None:
    """"What is the capital of the country ...": the path stops at the country, the *subject* of ``capital city``;
    the noun asks for its object one step on, even where the fit prefers the country (``c`` for both here)."""
    store, typer, ids = wine
    country = _path(store, ids, "Tessa", "originated in", "located in")
    got = retype(typer, country, "capital", max_hops=4, numeric=lambda p: False)
    assert [store.entities[e] for e in got.path.ends] == ["Sendrau"] and got.moved == 1


def test_how_high_asks_for_a_number() -> None:
    """"how high / deep ..." ask for a number (the scorer's paths that end at values are preferred)."""
    from graphhop.kgqa.pipeline import expected_kind

    assert expected_kind("How high above sea level is X?") == "number"
    assert expected_kind("How deep is the lake?") == "number"
    assert expected_kind("Which airport is X?") is None
