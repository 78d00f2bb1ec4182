"""Answer typing by the asked noun (:mod:`graphhop.kgqa.end_type`)."""

from __future__ import annotations

import numpy as np
import pytest

from graphhop.kgqa.end_type import asked_noun, retype, singular, type_phrase


@pytest.mark.parametrize("word,expected", [("cities", "city"), ("countries", "country"), ("bridges", "bridge"),
                                           ("players", "player"), ("churches", "church"), ("country", "country"),
                                           ("status", "status"), ("class", "class"), ("movies", "movie"),
                                           ("series", "series"), ("companies", "company")])
def test_singular(word: str, expected: str) -> None:
    assert singular(word) == expected


@pytest.mark.parametrize("text,expected", [
    ("in which country was X born", "country"),
    ("what currency is used in the country whose capital is home to X", "currency"),
    ("which cities lie on rivers that flow through X", "city"),
    ("what is the highest point of the country whose capital is X", "point"),
    ("how many official languages does X have", "language"),
    ("who founded X", None),
    ("when was X founded", None),
    ("what is X", None),
    ("which X footballer plays at position X", None),
    ("which football club does X play for", "club"),
    ("name a soccer club in X", "club"),
    ("name a soccer club X", "club"),
    ("which person directed the film X", "person"),
    ("how many cities lie on rivers that flow through X", "city"),
])
def test_asked_noun(text: str, expected: str | None) -> None:
    assert asked_noun(text) == expected


class _Words:
    """A stand-in encoder: a word's vector is one-hot on its first letter (enough for ``fit``)."""

    def word_vectors(self, words):
        out = np.zeros((len(words), 26), dtype=np.float32)
        for i, w in enumerate(words):
            key = w.split()[-1] if w.startswith(("it ", "a ")) else w
            out[i, ord(key.lstrip("^")[0]) - 97] = 1.0
        return out


def test_retype_continues_to_the_end_that_fits_and_never_to_literals() -> None:
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.end_type import EndTyper
    from graphhop.kgqa.paths import RelPath

    store = KGStore.from_facts([Fact("Ann", "born in", "Townville"), Fact("Townville", "located in", "Kingdom"),
                                Fact("Townville", "population", "5000"), Fact("Kingdom", "kinsman", "Rex")])
    typer = EndTyper(_Words(), store, desc_weight=0.0)
    ann, town = store.entities.index("Ann"), store.entities.index("Townville")
    base = RelPath(((store.relation_id["born in"], True),), [np.asarray([ann]), np.asarray([town])])
    # "k": only the Kingdom has a role that starts with k ("it has a kinsman"), one hop on (the noun
    # names no relation of the KB: a noun that does is typed by that relation, test_noun_role_...)
    got = retype(typer, base, "king", max_hops=3, numeric=lambda p: False)
    assert [store.entities[e] for e in got.path.ends] == ["Kingdom"] and got.moved == 1
    # the same move is refused when the end is a literal (here: the predicate calls the Kingdom one)
    got = retype(typer, base, "king", max_hops=3, numeric=lambda p: "Kingdom" in [store.entities[e] for e in p.ends])
    assert got.path is base and got.moved == 0
    # a path that already ends at a literal (``what is the jersey number of X``) is never moved away from
    got = retype(typer, base, "king", max_hops=3, numeric=lambda p: "Townville" in [store.entities[e] for e in p.ends])
    assert got.path is base and got.moved == 0
    # no room left under max_hops: nothing to continue to
    assert retype(typer, base, "king", max_hops=1).path is base
    assert retype(typer, base, None, max_hops=3).path is base


def test_asked_noun_phrase_keeps_the_adjective() -> None:
    """The fit reads ``national team`` whole (a club is a team too; a country's team is the national one)."""
    assert asked_noun("which national team does x play for", phrase=True) == "national team"
    assert asked_noun("which national team does x play for") == "team"
    assert asked_noun("in which country was x born", phrase=True) == "country"


def test_schema_nouns_tell_a_country_from_a_city_and_pool_over_peers() -> None:
    """``citizen of`` ~ ``nationality`` (country) and ``born in`` ~ ``place_of_birth`` (city), read from
    the training KBs' schema; a country nobody is a citizen of inherits it from a peer (same forward
    relations: a capital and a currency)."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.answer_types import SchemaNouns
    from graphhop.kgqa.scorer import PathScorer

    store = KGStore.from_facts([
        Fact("Ann", "born in", "Tarrow"), Fact("Tarrow", "located in", "Marrenland"), Fact("Ann", "citizen of", "Marrenland"),
        Fact("Marrenland", "capital", "Solvik"), Fact("Marrenland", "currency", "marr"),
        Fact("Bo", "born in", "Merrow"), Fact("Merrow", "located in", "Quenmark"),
        Fact("Quenmark", "capital", "Fallow Bay"), Fact("Quenmark", "currency", "quen")])
    ids = {name: store.entities.index(name) for name in ("Tarrow", "Marrenland", "Merrow", "Quenmark")}
    schema = SchemaNouns(PathScorer.load(), store)
    assert schema.fit("country", ids["Marrenland"]) > schema.fit("country", ids["Tarrow"])
    assert schema.fit("city", ids["Tarrow"]) > schema.fit("city", ids["Marrenland"])
    assert ids["Marrenland"] in schema.peers(ids["Quenmark"])
    assert schema.fit("country", ids["Quenmark"]) == pytest.approx(schema.fit("country", ids["Marrenland"]))
    assert schema.fit("country", ids["Quenmark"]) > schema.fit("country", ids["Merrow"])


@pytest.mark.parametrize("text,words,noun", [
    ("which company built the train that runs on X", ("company",), "company"),  # a verb ends the phrase
    ("which trains run on lines operated by X", ("trains",), "train"),
    ("which football club does X play for", ("football", "club"), "club"),
    ("how many official languages does X have", ("official", "languages"), "language"),
    ("name a soccer club in X", ("soccer", "club"), "club"),
    ("what is X", (), None),
])
def test_type_phrase_is_the_one_parser(text: str, words: tuple, noun: str | None) -> None:
    got = type_phrase(text)
    assert got.words == words and got.noun == noun


def test_noun_role_by_a_relation_the_noun_names() -> None:
    """A publisher is what something is published by; a book has one and is not one."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.end_type import EndTyper

    store = KGStore.from_facts([Fact("Tide", "published by", "Lantern"), Fact("Lantern", "based in", "Bravno"),
                                Fact("Kestrel", "based in", "Bravno")])
    typer = EndTyper(_Words(), store, desc_weight=0.0)
    ids = {n: store.entities.index(n) for n in ("Tide", "Lantern", "Kestrel", "Bravno")}
    assert typer.noun_role("publisher", [ids["Lantern"], ids["Kestrel"]]) == 1
    assert typer.noun_role("publisher", [ids["Tide"]]) == -1
    assert typer.noun_role("publisher", [ids["Bravno"]]) == 0
    assert typer.noun_role("city", [ids["Bravno"]]) is None


def test_retype_walks_a_repeated_relation_on_and_keeps_the_ends_of_the_asked_type() -> None:
    """"which hospitals are located in Lorvia": ``^located in`` reaches the towns; walking ``^located in`` again
    is no unasked hop (no hop penalty) and reaches the hospitals *and* a college, of which only the ends that
    fit ``hospital`` (roles and names) are kept, and :meth:`KGQA.answers` keeps to them."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.end_type import EndTyper
    from graphhop.kgqa.paths import RelPath

    facts = [Fact("tenby", "located in", "lorvia"), Fact("tolk", "located in", "lorvia"),
             Fact("harbor hospital", "located in", "tenby"), Fact("hill hospital", "located in", "tolk"),
             Fact("upton college", "located in", "tenby"), Fact("harbor hospital", "head", "dr ames"),
             Fact("hill hospital", "head", "dr bole")]
    store = KGStore.from_facts(facts)
    typer = EndTyper(_Words(), store, desc_weight=0.0)
    ids = {n: i for i, n in enumerate(store.entities)}
    towns = np.asarray(sorted([ids["tenby"], ids["tolk"]]))
    base = RelPath(((store.relation_id["located in"], False),), [np.asarray([ids["lorvia"]]), towns])
    got = retype(typer, base, "hospital", max_hops=3, numeric=lambda p: False)
    assert got.path.steps == base.steps * 2 and got.path.extra.get("narrowed")
    assert sorted(store.entities[e] for e in got.path.ends) == ["harbor hospital", "hill hospital"]

    from graphhop.kgqa.pipeline import KGQA

    answers = KGQA.answers(type("K", (), {"store": store, "answer_order": "name"})(), got.path)
    assert sorted(store.entities[e] for e in answers) == ["harbor hospital", "hill hospital"]


@pytest.mark.parametrize("text,verb", [
    ("which journalists write for the X", "write"),  # the noun is the verb's subject
    ("which company built the train that runs on X", "built"),
    ("in which country was X born", None),  # an auxiliary: the noun is not the subject
    ("which stations does the X serve", None),
    ("name a soccer club in X", None),  # a preposition
    ("which rivers X", None),  # the mask
    ("what is X", None),  # no type phrase
])
def test_type_phrase_verb(text: str, verb: str | None) -> None:
    assert type_phrase(text).verb == verb


@pytest.mark.parametrize("text,noun", [
    ("which astronauts flew on the mission launched in X", "mission"),
    ("which company built the train that runs on the X", "train"),
    ("how many bridges are there in the capital of X", None),  # "the capital of": a relational noun, a hop
    ("in which country is the label of X headquartered", None),
    ("which journalists write for the X", None),  # the mask
    ("which movies share the screenwriter with X", None),  # no clause: the noun's own relation is asked
    ("which trains run on the trains of X", None),  # the asked noun itself
    ("who founded the company that built X", None),  # no asked type
])
def test_described_noun(text: str, noun: str | None) -> None:
    from graphhop.kgqa.end_type import described_noun

    assert described_noun(text) == noun


def test_retype_contrasts_the_fit_with_the_described_noun() -> None:
    """"which astronauts flew on the mission launched in X": the mission fits ``astronaut`` (it has a crew) as
    well as the crew does; against ``mission`` it does not, and typing moves on to the crew."""
    from graphhop.core import Fact
    from graphhop.kb.store import KGStore
    from graphhop.kgqa.end_type import EndTyper
    from graphhop.kgqa.paths import RelPath

    store = KGStore.from_facts([Fact("aurora", "launch year", "1992"), Fact("aurora", "crew member", "nadia"),
                                Fact("aurora", "mission badge", "owl")])
    typer = EndTyper(_Words(), store, desc_weight=0.0)
    ids = {n: i for i, n in enumerate(store.entities)}
    base = RelPath(((store.relation_id["launch year"], False),), [np.asarray([ids["1992"]]), np.asarray([ids["aurora"]])])
    # toy vectors (a role phrase is its last word's first letter): no end fits "crew", so the scorer's end stays;
    # aurora's role "it has a crew **m**ember" fits "mission", nadia's ("... of **s**omething") does not
    assert retype(typer, base, "crew", max_hops=3, numeric=lambda p: False).path is base
    got = retype(typer, base, "crew", max_hops=3, numeric=lambda p: False, against="mission")
    assert [store.entities[e] for e in got.path.ends] == ["nadia"] and got.moved == 1
