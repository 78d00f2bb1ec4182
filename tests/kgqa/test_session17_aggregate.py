"""Session 17 (kga17): questions over a middle set — containment in yes/no, quantified lists, counts over every branch.

Small hand-made KBs in ``tests/kgqa/data_typing`` (read by the ``typing_kb`` fixture) in several naming styles (plain words: ``archives``, ``lots``;
snake_case: ``auctions_snake``; camelCase: ``libraries_camel``; stored the other way round: ``archives``' ``student
of`` / ``run by``, ``lots``' ``includes lot``; ``archives_forward`` is ``archives`` stored forward).

1. A claim about a place inside a place is proved by climbing the KB's containment relations up from where the
   subject is ("Is the archive in Norvaly?": ``located in`` a town, ``located in`` the region); a chain that climbs
   over the claim to a container of it and back down (the capital of the country the office is in) proves nothing,
   and the chain shown for ``no`` is where the subject is.
2. ``name all the`` / ``list every`` read the noun after the quantifier (the asked type), and a participle after it
   opens a clause ("list every game **made** by").
3. A count's support holds a chain to every counted entity, also past the ten a list shows.
"""

from __future__ import annotations

from typing import Any

import pytest

def _facts(kgqa: Any, res: dict[str, Any]) -> set[tuple[str, str, str]]:
    """The support as (head, relation, tail) names."""
    store = kgqa.store
    ids = {fid: e for e, fids in enumerate(store.fact_ids) for fid in fids}
    return {tuple(store.raw[ids[f]][0]) for f in res["support"]}


@pytest.mark.parametrize("kb, question, answer, gold", [
    ("auctions_snake", "Is Crane & Vey headquartered in the capital of Varnland?", "no",
     {("Crane & Vey", "head_office", "Halden"), ("Varnland", "capital_city", "Merrin")}),
    ("auctions_snake", "Is Tollin House headquartered in the capital of Varnland?", "yes",
     {("Tollin House", "head_office", "Merrin"), ("Varnland", "capital_city", "Merrin")}),
    ("auctions_snake", "Is Merrin Gallery headquartered in Kessia?", "yes",
     {("Merrin Gallery", "head_office", "Oster Port"), ("Oster Port", "located_in", "Kessia")}),
    ("auctions_snake", "Is Crane & Vey headquartered in Kessia?", "no",
     {("Crane & Vey", "head_office", "Halden"), ("Halden", "located_in", "Varnland")}),
    ("archives", "Is the Salt Street Archive located in Norvaly?", "yes",
     {("Salt Street Archive", "located in", "Tessholm"), ("Tessholm", "located in", "Norvaly")}),
    ("archives", "Is the Crane Memorial Archive located in Norvaly?", "no",
     {("Crane Memorial Archive", "located in", "Quarry Vale"), ("Quarry Vale", "located in", "Ostreth")}),
    ("libraries_camel", "Is Kettle Lane Library in Westmark?", "yes",
     {("Kettle Lane Library", "locatedIn", "Vennick"), ("Vennick", "locatedIn", "Westmark")}),
])
def test_a_place_inside_a_place(typing_kb: Any, kb: str, question: str, answer: str, gold: set) -> None:
    """Yes/no over containment: the answer and the whole gold chain in the support."""
    kgqa = typing_kb(kb)
    res = kgqa.ask(question)
    assert res["supported"] and res["answers"] == [answer]
    assert gold <= _facts(kgqa, res)


def test_climbing_over_the_claim_proves_nothing(typing_kb: Any) -> None:
    """``head_office -> located_in -> capital_city`` reaches Merrin from Crane & Vey only through Varnland, which
    contains Merrin: the chain climbs over the claim (hop 2); the direct ``head_office`` of Tollin House does not."""
    from graphhop.kgqa.contain import climbs_over
    from graphhop.kgqa.cover import walk

    kgqa = typing_kb("auctions_snake")
    store, rel = kgqa.store, {name: i for i, name in enumerate(kgqa.store.relations)}
    crane, tollin, merrin = (store.entities.index(n) for n in ("Crane & Vey", "Tollin House", "Merrin"))
    over = walk(store, [crane], [(rel["head_office"], True), (rel["located_in"], True), (rel["capital_city"], True)], 1.0)
    assert climbs_over(kgqa, over, merrin) == 2
    sibling = walk(store, [crane], [(rel["head_office"], True), (rel["located_in"], True), (rel["located_in"], False)], 1.0)
    assert climbs_over(kgqa, sibling, merrin) == 2
    direct = walk(store, [tollin], [(rel["head_office"], True)], 1.0)
    assert climbs_over(kgqa, direct, merrin) is None
    res = kgqa.ask("Is Crane & Vey headquartered in the capital of Varnland?")
    assert res["trace"]["climbs_over"] is True and res["trace"]["claim_path"]["relation_path"] == ["head_office"]


def test_climbing_up_to_the_claim(typing_kb: Any) -> None:
    """Read from the subject, ``located in`` reaches the town; one containment step more reaches the region."""
    kgqa = typing_kb("archives")
    res = kgqa.ask("Is the Salt Street Archive located in Norvaly?")
    assert res["trace"]["climbed"] is True
    assert res["trace"]["claim_path"]["relation_path"] == ["located in", "located in"]
    assert res["trace"]["topic"] == "salt street archive"


@pytest.mark.parametrize("question, noun", [
    ("name all the reservoirs held back by dams in x", "reservoir"),
    ("list every game made by a studio based in x", "game"),
    ("name the dams designed by x", "dam"),
    ("name each archive in x", "archive"),
    ("name a soccer club in x", "club"),  # a compound before a preposition, as before
])
def test_a_quantifier_before_the_asked_noun(question: str, noun: str) -> None:
    from graphhop.kgqa.end_type import asked_noun

    assert asked_noun(question, phrase=True) == noun


def test_the_scorers_reading_is_as_trained() -> None:
    """The scorer's head reads the phrase with punctuation and without the new skips (its inputs are unchanged)."""
    from graphhop.kgqa.end_type import type_phrase

    assert type_phrase("name all the reservoirs held back by x", strip=False).start == 1  # at "all", as before
    assert type_phrase("name all the reservoirs held back by x").noun == "reservoir"


@pytest.mark.parametrize("kb, question, answers", [
    ("auctions_snake", "Name all the auction houses with a head office in Varnland.", ["Crane & Vey", "Tollin House"]),
    ("libraries_camel", "List every library founded by Rolf Ashgrove.", ["Hollin Reading Room", "Kettle Lane Library"]),
])
def test_a_quantified_list_is_typed(typing_kb: Any, kb: str, question: str, answers: list[str]) -> None:
    res = typing_kb(kb).ask(question)
    assert res["supported"] and sorted(res["answers"]) == answers
    assert res["trace"]["answer_type"]["noun"] in ("house", "library")


def test_a_count_supports_every_counted_entity(typing_kb: Any) -> None:
    """Thirteen lots of two auctions held in Varnland's towns... read by the scorer over ``^country -> ^venue``
    only when coverage does not take ``auctioneer`` for the asked ``auctions``; here the count over the nine lots of
    Lio Vey's two auctions: every lot's chain is in the support."""
    kgqa = typing_kb("lots")
    res = kgqa.ask("How many lots did Lio Vey auction?")
    assert res["supported"] and res["answers"] == ["9"] and len(res["trace"]["counted"]) == 9
    facts = _facts(kgqa, res)
    assert {("Frost Auction", "auctioneer", "Lio Vey"), ("Tide Auction", "auctioneer", "Lio Vey")} <= facts
    assert sum(r == "includes lot" for _, r, _ in facts) == 9


def test_support_past_ten(typing_kb: Any, reading_of: Any) -> None:
    """Over ``^country -> ^venue -> includes lot`` from Varnland (13 lots), the count's support has all 13 chains."""
    from graphhop.kgqa.ops import _support_every

    kgqa = typing_kb("lots")
    reading = reading_of(kgqa, "How many lots were sold at auctions held in Varnland?", ("^country", "^venue", "includes lot"))
    res = {"chains": kgqa.support(reading.best, kgqa.answers(reading.best)[:10])}
    _support_every(kgqa, res, (reading, reading.best))
    lots = {kgqa.store.entities[int(kgqa.store.tails[c[-1]])] for c in res["chains"]}
    assert len(lots) == 13 and all(len(c) == 3 for c in res["chains"])


def test_coming_down_from_the_first_place_stands(typing_kb: Any) -> None:
    """From the Salt Street Archive, ``located in -> ^located in`` reaches the Harbour Records Archive in the same town
    (a shared place: stands); ``located in -> located in -> ^located in`` reaches Brindmoor, a sibling of Tessholm in
    Norvaly (climbs over at hop 2)."""
    from graphhop.kgqa.contain import climbs_over
    from graphhop.kgqa.cover import walk

    kgqa = typing_kb("archives")
    store, rel = kgqa.store, kgqa.store.relations.index("located in")
    salt, harbour, brindmoor = (store.entities.index(n) for n in ("Salt Street Archive", "Harbour Records Archive", "Brindmoor"))
    near = walk(store, [salt], [(rel, True), (rel, False)], 1.0)
    assert harbour in near.ends.tolist() and climbs_over(kgqa, near, harbour) is None
    over = walk(store, [salt], [(rel, True), (rel, True), (rel, False)], 1.0)
    assert brindmoor in over.ends.tolist() and climbs_over(kgqa, over, brindmoor) == 2
