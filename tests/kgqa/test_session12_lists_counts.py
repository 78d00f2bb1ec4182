"""Session 12 (kgl12): ``how many different X`` types by X, and a passive verb after the asked noun (or a verb after
the masked subject: "which pastries does X make") names the path's last relation (the ends stay what the question
asks for), except on a containment chain (docs/RESULTS.md, issue 12, "Session 12 (kgl12)")."""

from __future__ import annotations

from typing import Any

import pytest

from graphhop.kgqa.cover import _verb_after_mask, subject_of_named_verb
from graphhop.kgqa.end_type import asked_noun

FACTS = [
    ("Pale Sill", "made from", "Brannic"), ("Dusk Row", "made from", "Brannic"), ("Old Quay", "made from", "Morvel"),
    ("Pale Sill", "produced by", "Halden Estate"), ("Dusk Row", "produced by", "Tarn Cellars"),
    ("Halden Estate", "winemaker", "Rafe Oster"), ("Tarn Cellars", "winemaker", "Lise Armand"),
    ("Kesh", "located in", "Lorvia"), ("Pollin", "located in", "Lorvia"),
    ("St. Alder Hospital", "located in", "Kesh"), ("Riverside Clinic", "located in", "Pollin"),
    ("Bakery Oduna", "makes", "Caraway Bun"), ("Bakery Oduna", "makes", "Plum Cushion"),
    ("Caraway Bun", "created by", "Anouk Serval"), ("Bakery Oduna", "located in", "Kesh"),
]


@pytest.fixture(scope="module")
def kgqa(kgqa_of: Any) -> Any:
    return kgqa_of(FACTS)


@pytest.mark.parametrize("text, noun", [
    ("how many different engineers designed the dams x operates", "engineer"),
    ("which distinct beers are brewed in x", "beer"), ("how many various pastries does x make", "pastry"),
    ("how many different aircraft types does x operate", "type"), ("how many engineers designed x", "engineer"),
])
def test_a_quantifying_adjective_is_not_the_asked_noun(text: str, noun: str) -> None:
    assert asked_noun(text) == noun


def test_a_passive_verb_names_the_last_relation(kgqa: Any, reading_of: Any) -> None:
    """"which wines are made from X" over ``^made from``: the wines stay (typing does not walk on to the
    wineries' winemakers, whom ``wine`` names only as a prefix of ``winemaker``)."""
    reading = reading_of(kgqa, "Which wines are made from Brannic?", ("^made from",), ("^made from", "produced by"))
    assert subject_of_named_verb(kgqa, reading, reading.text)
    other = reading_of(kgqa, "Which wines are produced by Halden Estate?", ("^winemaker",))
    assert not subject_of_named_verb(kgqa, other, other.text)  # the verb names another relation


def test_a_containment_chain_is_left_to_typing(kgqa: Any, reading_of: Any) -> None:
    """"how many hospitals are located in X": the cities reached are located in X too, and hospitals are located
    in them; the repeated relation is answer typing's to walk."""
    reading = reading_of(kgqa, "Which hospitals are located in Lorvia?", ("^located in",))
    assert not subject_of_named_verb(kgqa, reading, reading.text)


@pytest.mark.parametrize("text, verb", [
    ("which pastries does x make", "make"), ("how many bakers did x train", "train"), ("what games has x made", "made"),
    ("which city does x", None), ("which pastries are made by x", None), ("who does x employ", None),
])
def test_the_verb_after_the_masked_subject(text: str, verb: str | None) -> None:
    assert _verb_after_mask(text) == verb


def test_the_object_of_a_named_verb_stays(kgqa: Any, reading_of: Any) -> None:
    """"which pastries does X make" over ``makes``: the pastries stay (not walked on to who created them)."""
    reading = reading_of(kgqa, "Which pastries does Bakery Oduna make?", ("makes",), ("makes", "created by"))
    assert subject_of_named_verb(kgqa, reading, reading.text)
    other = reading_of(kgqa, "Which pastries does Bakery Oduna make?", ("located in",))
    assert not subject_of_named_verb(kgqa, other, other.text)  # the verb does not name the path's relation
