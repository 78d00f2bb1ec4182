"""The kgqa selection KBs (``tests/kgqa/data/kg_*``: rivers, software, books, music,
railways, hospitals, space, newspapers; wine and airlines written blind in session 7; videogames, peaks, pharma and
fashion written blind in session 8; breweries, cycling, perfumes and dams written blind in session 9; bakeries and
courts written blind in session 10): the hand-written domains that
answer typing (:mod:`graphhop.kgqa.end_type`) was developed and tuned on. They are not the reported
suites (``tests/regression/kg_*``); docs/RESULTS.md (issue 12) says which set chose what."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphhop.cli.kgqa import support_triples
from graphhop.kgqa.evaluate import domain_results

DATA = Path(__file__).parent / "data"
DOMAINS = sorted(p for p in DATA.glob("kg_*") if (p / "kb.tsv").is_file())
TYPES = {"plain", "list", "count", "yes/no", "comparison"}
#: Right-for-the-right-reason floors: the measured rates less one question, so a regression fails.
#: Session 4 (kgt12: two-hop typing window, schema-analogy fit, compound nouns): kg_rivers 21/25,
#: kg_software 19/25, kg_books 14/24, kg_music 20/25. Measured before anything was chosen on them:
#: kg_books 12/24 (kgo12), kg_music 14/25 (main at 5a8daf7); without answer typing at all (main before
#: session 3) rivers and software were 14/25 each.
#: Session 4 (kgo12: named-relation coverage, yes/no from the subject, counts of described topics, one value
#: per side in comparisons, general relations for unnamed ones; on top of kgt12's typing): kg_rivers 24/25,
#: kg_software 25/25, kg_books 22/24, kg_music 24/25, floors one question less.
#: Session 5 (kgf12): two fresh KBs written before any change, measured on main at 130bbe8 (the held-out
#: estimate): kg_railways 21/27, kg_hospitals 22/26; floors one question less.
#: Session 5 (kgf12: one type-phrase parser, the noun's own relation types the end, rivals of a looping path, typed
#: comparison sides, more comparatives): rivers 24/25, software 25/25, books 24/24, music 25/25, railways 24/27,
#: hospitals 24/26; floors one question less.
#: Session 5 (kgc12: a count over a repeated relation counts the asked type; a chain naming every asked relation
#: and nothing else is a coverage candidate at any probability): railways 25/27, hospitals 26/26.
#: Session 6 (kgf12): two more fresh KBs written before any change, measured on main at 539dc68 (the held-out
#: estimate): kg_space 28/29, kg_newspapers 27/29; floors one question less.
#: Session 6 (kgf12: the subject of a named verb keeps its ends, an unasked last hop cut back, fits contrasted
#: with the noun of a described entity): rivers 25/25, railways 26/27, space 29/29, newspapers 29/29 (the others
#: unchanged); floors one question less.
#: Session 6 (kgf12b: a relation walked back to the topic's kind): railways 27/27; floor one question less.
#: Session 7 (lead): kg_wine and kg_airlines written *blind* (by an author who read only the data format, never
#: the code or the other KBs; kg_airlines with snake_case relation names), measured on main at f4b92be before
#: anything was chosen on them: kg_wine 13/31, kg_airlines 17/31 (--hops 4); floors one question less.
#: Session 8 (lead): kg_videogames (plain words), kg_peaks (Wikidata-label style), kg_pharma (camelCase, some relations
#: stored the other way round) and kg_fashion (type nouns inside relation names) written *blind* by two new authors,
#: measured on main at 37b9da3 before anything was chosen on them: 17/31, 12/30, 19/32, 16/31 (--hops 4); floors one
#: question less.
#: Session 8 (kgq12 + kgf12: comparison options and claims read as strangers write them; owner relations, containment
#: chains, "the capital of the country"): kg_wine 20/31, kg_airlines 21/31 (main at 0d1771e + kgf12); floors one less.
#: Session 8 (kgq12, second landing: yes/no decided by the named chain, continued to the claim's type, shown general):
#: kg_airlines 22/31, kg_fashion 18/31, kg_videogames 19/31 (main at d85443b + kgq12); third landing (a side typed by
#: its own noun): kg_pharma 20/32; floors one question less.
#: Session 9 (lead): kg_breweries (plain words, some stored the other way round, terse `hq`/`est.`), kg_cycling
#: (Wikidata labels), kg_perfumes (camelCase, some inverse) and kg_dams (colloquial snake_case) written *blind* by two
#: new authors, measured on main at 85abf1b before anything was chosen on them: 18/32, 12/31, 12/32, 20/32 (--hops 4);
#: floors one question less.
#: Session 10 (lead): kg_bakeries (plain words, `trained`/`owns` stored the other way round, `est.`/`pop.`/`HQ`) and
#: kg_courts (Wikidata-style labels, member -> group directions) written *blind* by two new authors, measured on main at
#: 850d5d4 (d4ec412 + the RelPath equality fix, without which kg_bakeries crashed at --hops 4) before anything was
#: chosen on them: 11/32, 8/32 (--hops 4); floors one question less.
#: Session 10 (kgs12, the retrained lure / schema-variant head with no threshold): kg_books 22/24, kg_railways 25/27,
#: kg_breweries 16/32, kg_dams 18/32 (--hops 4, on d4ec412); on 00db508, measured once after the choice: kg_bakeries
#: 13/32, kg_courts 12/32; floors one question less.
#: Session 11 (kgc12: counts and typing under the session-10 head): kg_books 24/24, kg_railways 27/27, kg_cycling
#: 13/31, kg_peaks 22/30 (--hops 4); floors one question less.
#: Session 11 (lead): kg_orchards (mixed Wikidata-label / camelCase / snake_case relations, ownership stored both ways)
#: written *blind* by a new author, measured on main at bb4b43d before anything was chosen on it: 19/31 (--hops 4);
#: floor one question less.
#: Session 11 (kgw12: things not answered by bare numbers, a plural subject before its verb, a date question keeps its
#: dates, coverage not moved to a round trip): kg_orchards 21/31, kg_wine 22/31, kg_airlines 23/31, kg_dams 19/32,
#: kg_perfumes 17/32, kg_videogames 23/31, kg_pharma 20/32 (--hops 4); floors one question less.
#: Session 12 (kgl12: "how many different X", a passive verb after the asked noun): kg_airlines 24/31 (--hops 4);
#: floor one question less.
FLOOR = {"kg_orchards": 0.64, "kg_bakeries": 0.37, "kg_courts": 0.34,
         "kg_breweries": 0.46, "kg_cycling": 0.38, "kg_perfumes": 0.50, "kg_dams": 0.56,
         "kg_wine": 0.67, "kg_airlines": 0.74,
         "kg_videogames": 0.70, "kg_peaks": 0.70, "kg_pharma": 0.59, "kg_fashion": 0.54,
         "kg_rivers": 0.96, "kg_software": 0.96, "kg_books": 0.95, "kg_music": 0.96,
         "kg_railways": 0.96, "kg_hospitals": 0.96, "kg_space": 0.96, "kg_newspapers": 0.96}


def test_selection_data_is_well_formed() -> None:
    assert len(DOMAINS) >= 2
    for folder in DOMAINS:
        facts = {tuple(line.split("\t")) for line in (folder / "kb.tsv").read_text(encoding="utf-8").splitlines() if line}
        rows = [json.loads(line) for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line]
        assert len({r["id"] for r in rows}) == len(rows) >= 20
        assert {r["type"] for r in rows} == TYPES
        for r in rows:
            assert r["answers"] and r["gold_facts"], r["id"]
            assert all(tuple(f) in facts for f in r["gold_facts"]), r["id"]


@pytest.fixture(scope="module")
def results() -> dict[str, dict]:
    return domain_results(DOMAINS, support_triples)


@pytest.mark.parametrize("domain", [p.name for p in DOMAINS])
def test_selection_right_for_the_right_reason(results, domain: str) -> None:
    summary = results[domain]["summary"]
    wrong = [(r["id"], r["answer"], r["gold"]) for r in results[domain]["rows"] if not r["right_reason"]]
    assert summary["right_reason"] >= FLOOR[domain], f"{domain}: {summary['right_reason']:.2f}; misses: {wrong}"


def test_noun_typed_questions_reach_the_asked_type(results) -> None:
    """The questions answer typing exists for: the scorer alone stops at the city / the companies."""
    rows = {r["id"]: r for d in results.values() for r in d["rows"]}
    for qid in ("ri01", "ri07", "sw02", "sw03", "sw08", "ri12"):
        assert rows[qid]["right_reason"], (qid, rows[qid]["answer"], rows[qid]["gold"])


def test_counts_read_a_stored_number_only_when_the_noun_names_it(results) -> None:
    """``How many employees`` is the stored ``number of employees`` (not "1"); ``how many rivers rise at
    X`` counts rivers even though the scorer's best path ends at the mountain's elevation."""
    rows = {r["id"]: r for d in results.values() for r in d["rows"]}
    assert rows["sw25"]["answer"] == "2300" and rows["ri25"]["answer"] == "1350000"
    assert rows["ri14"]["answer"] == "2" and rows["ri14"]["right_reason"]


def test_comparison_is_confident_among_the_paths_both_sides_share(results) -> None:
    rows = {r["id"]: r for d in results.values() for r in d["rows"]}
    assert rows["sw19"]["answer"] == "Quillon Soft" and rows["sw19"]["right_reason"]


def test_country_questions_end_at_the_country(results) -> None:
    """Country vs city: the birth / formation / headquarters city is continued to its country even when
    the country has few relations (the schema-analogy fit; MiniLM alone put them level)."""
    rows = {r["id"]: r for d in results.values() for r in d["rows"]}
    for qid in ("mu01", "mu03", "mu05", "mu08", "mu25", "ri03", "ri05", "sw03", "sw08"):
        assert rows[qid]["right_reason"], (qid, rows[qid]["answer"], rows[qid]["gold"])
    assert rows["mu02"]["answer"] == "quen" and rows["mu02"]["right_reason"]  # the 4-hop currency question


def _row(results, qid: str) -> dict:
    return next(r for d in results.values() for r in d["rows"] if r["id"] == qid)


def test_the_asked_chain_beats_a_shortcut(results) -> None:
    """``the country where the author of X was born`` walks ``born in → located in``, not ``nationality``;
    ``programs developed by companies that Y founded`` does not stop at the companies."""
    for qid in ("bk08", "sw12", "sw13", "ri02", "ri06"):
        assert _row(results, qid)["right_reason"], _row(results, qid)


def test_count_of_a_described_topic_counts_the_topic(results) -> None:
    """"How many books did the author of The Salt Ledger write?" counts The Salt Ledger too."""
    assert _row(results, "bk10")["answer"] == "2" and _row(results, "bk10")["right_reason"]


def test_yes_no_support_is_the_deciding_chain(results) -> None:
    """yes: the chain to the claim (``born in → located in``, though ``nationality`` says otherwise);
    no: what the KB says about the subject, not the other side's facts."""
    for qid in ("bk14", "bk15", "bk16", "sw16", "sw17", "ri16"):
        assert _row(results, qid)["right_reason"], _row(results, qid)


def test_comparison_uses_one_value_per_side(results) -> None:
    """A publisher's founding year, not the years of the books it published."""
    assert _row(results, "bk21")["answer"] == "Lanternhouse" and _row(results, "bk21")["right_reason"]


def test_an_unnamed_relation_gives_way_to_the_general_one(results) -> None:
    """``located in`` (every city of the country), not ``capital`` (one of them), which the question does not name."""
    for qid in ("sw04", "bk12"):
        assert _row(results, qid)["right_reason"], _row(results, qid)


def test_session5_failure_kinds(results) -> None:
    """A verb after the type's noun is asked (rw05 ``which company built ...``, rw12); a publisher is what
    books are published by (bk11: the count stops at the publishers); a "who" comparison's side is a person
    (bk19: not the book's publisher); "what currency" leaves ``year formed`` for the chain arriving by
    ``currency`` (mu22); a path that only returns to the topic gives way (hs10, hs14: ``^works at``, not
    ``director → works at``); ``faster`` compares (rw24)."""
    for qid in ("rw05", "rw12", "bk11", "bk19", "mu22", "hs10", "hs14", "rw24"):
        assert _row(results, qid)["right_reason"], _row(results, qid)


def test_a_count_over_a_repeated_relation_counts_the_asked_type(results) -> None:
    """"How many stations / hospitals are located in X (a country)?" counts what is located in X's cities
    (``^located in → ^located in``), not the cities (rw16, hs16: the right number for the wrong reason before)."""
    for qid in ("rw16", "hs16"):
        assert _row(results, qid)["answer"] == "2" and _row(results, qid)["right_reason"], _row(results, qid)


def test_a_chain_naming_every_asked_relation_beats_a_likelier_shortcut(results) -> None:
    """"Which doctors work at hospitals located in Tamsor?": ``^located in → ^located in → ^works at`` names both
    asked relations and nothing else, though the scorer puts it e^-25 below ``capital → located in`` (hs12)."""
    row = _row(results, "hs12")
    assert row["right_reason"] and row["em"], row


def test_session6_failure_kinds(results) -> None:
    """The asked noun is the subject of a verb naming the path's last relation: the ends stay (nw12, nw15: not the
    journalists' birth cities); an unasked last hop is cut back when the noun fits the rest's ends (rw10: the
    stations, not their cities; ri09: the countries, not their currencies); the entity the question calls
    "the mission" is not taken for the asked astronauts (sp19)."""
    for qid in ("nw12", "nw15", "rw10", "ri09", "sp19"):
        assert _row(results, qid)["right_reason"], _row(results, qid)


def test_a_relation_walked_back_to_the_topics_kind(results) -> None:
    """"How many trains were built by the manufacturer of the Night Heron?": the scorer's ``built by → based in``
    ends at the manufacturer's city; the trains are ``built by → ^built by`` (the asked noun names the topic's
    kind and the question's verb the relation walked back), the Night Heron counted too (rw15). Under the session-10
    head the scorer reads ``built by → ^built by → runs on``: the hop past the asked verb's relation is cut (kgc12)."""
    row = _row(results, "rw15")
    assert row["answer"] == "2" and row["right_reason"], row


def test_session11_failure_kinds(results) -> None:
    """Readings the session-10 head left to the rules (kgc12): a ``who`` answer is a person, not the writer's birth
    city (bk04); ``older`` compares founding years, not beds (hs24); ``cities`` names no ``citizen of`` (mu24); an
    exact chain replaces a best path that only comes back to a topic of another kind than asked (nw18: not
    ``^published in → owned by → headquartered in``, back to the city)."""
    for qid in ("bk04", "hs24", "mu24", "nw18"):
        assert _row(results, qid)["right_reason"], _row(results, qid)
