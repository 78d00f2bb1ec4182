"""Session 11 (kgc12): readings the session-10 head left to the rules: a ``who`` answer cut back to a person, the
scorer's own walk back for a described topic, a hop past the asked verb's relation cut, and a comparative of dates
that compares dates (docs/RESULTS.md, issue 12, "Session 11 (kgc12)")."""

from __future__ import annotations

from typing import Any

import pytest

from graphhop.kgqa.compare import _dated
from graphhop.kgqa.cover import _home_not_asked, cut_to_verb, walked_back, who_cut

FACTS = [
    ("Ember Atlas", "sequel of", "Hollow Tide"), ("Hollow Tide", "written by", "Lusa Merrow"),
    ("Lusa Merrow", "born in", "Dunmere"), ("Dunmere", "located in", "Ostavia"), ("Lusa Merrow", "birth year", "1950"),
    ("The Salt Ledger", "written by", "Edda Varn"), ("Winter Orchard", "written by", "Edda Varn"),
    ("Edda Varn", "born in", "Dunmere"), ("Edda Varn", "nationality", "Ostavia"),
    ("The Salt Ledger", "pages", "310"), ("Winter Orchard", "pages", "280"), ("Hollow Tide", "pages", "402"),
    ("The Salt Ledger", "published by", "Lanternhouse"), ("Lanternhouse", "based in", "Dunmere"),
    ("Night Heron", "built by", "Halden Motors"), ("Coastal Rover", "built by", "Halden Motors"),
    ("Night Heron", "runs on", "North Line"), ("Coastal Rover", "runs on", "Coastal Line"),
    ("Coastal Line", "operated by", "Tarn Rail"), ("Halden Motors", "based in", "Dunmere"),
    ("Riverside Clinic", "year founded", "1961"), ("Ostra Hospital", "year founded", "1948"),
    ("Riverside Clinic", "number of beds", "120"), ("Ostra Hospital", "number of beds", "210"),
    ("The Lomar Courier", "published in", "Tevel"), ("The Lomar Courier", "owned by", "Lumen Press Group"),
    ("The Tevel Star", "owned by", "Lumen Press Group"), ("Lumen Press Group", "headquartered in", "Tevel"),
    ("The Tevel Star", "published in", "Tevel"), ("Tevel", "located in", "Ostavia"), ("Tevel", "population", "120000"),
    ("The Lomar Courier", "circulation", "50000"), ("The Tevel Star", "circulation", "30000"),
    ("The Lomar Courier", "editor in chief", "Anna Vell"), ("The Tevel Star", "editor in chief", "Marek Dohl"),
]


@pytest.fixture(scope="module")
def kgqa(kgqa_of: Any) -> Any:
    return kgqa_of(FACTS)


def _names(kgqa: Any, path: Any) -> list[str]:
    return [kgqa.store.entities[e] for e in path.ends.tolist()]


def test_a_who_answer_is_cut_back_from_a_city_to_the_person(kgqa: Any, reading_of: Any) -> None:
    reading = reading_of(kgqa, "Who wrote the book that Ember Atlas is a sequel of?",
                         ("sequel of", "written by", "born in"), ("sequel of", "written by"))
    cut = who_cut(kgqa, reading, reading.text)
    assert cut is not None and _names(kgqa, cut) == ["Lusa Merrow"]
    what = reading_of(kgqa, "What city was the writer of the book Ember Atlas is a sequel of born in?",
                      ("sequel of", "written by", "born in"), ("sequel of", "written by"))
    assert who_cut(kgqa, what, what.text) is None  # not a who question


def test_the_scorers_walk_back_counts_peers_of_a_described_topic(kgqa: Any, reading_of: Any) -> None:
    reading = reading_of(kgqa, "which books did the author of The Salt Ledger write", ("written by",),
                         ("written by", "^written by"))
    back = walked_back(kgqa, reading, reading.text)
    assert back is not None and _names(kgqa, back) == ["Winter Orchard"]
    plain = reading_of(kgqa, "which books did The Salt Ledger inspire", ("written by",), ("written by", "^written by"))
    assert walked_back(kgqa, plain, plain.text) is None  # the topic is not described "of X"


def test_a_hop_past_the_asked_verbs_relation_is_cut(kgqa: Any, reading_of: Any) -> None:
    reading = reading_of(kgqa, "which trains were built by the manufacturer of the Night Heron",
                         ("built by", "^built by", "runs on"))
    cut = cut_to_verb(kgqa, reading, reading.text)
    assert cut is not None and [kgqa.store.relations[r] for r, _ in cut.steps] == ["built by", "built by"]
    ends = reading_of(kgqa, "which trains were built by the manufacturer of the Night Heron", ("built by", "^built by"))
    assert cut_to_verb(kgqa, ends, ends.text) is None  # the best path already ends by the verb's relation


def test_a_comparative_of_dates_compares_dates(kgqa: Any, reading_of: Any) -> None:
    sides = [reading_of(kgqa, f"{name} founded", ("number of beds",), ("year founded",))
             for name in ("Riverside Clinic", "Ostra Hospital")]
    numeric = [{p.steps: (p, 0.5) for p in r.paths} for r in sides]
    shared = list(numeric[0])
    year = [s for s in shared if kgqa.store.relations[s[-1][0]] == "year founded"]
    assert _dated(kgqa, "Which hospital is older, Riverside Clinic or Ostra Hospital?", shared, numeric) == year
    assert _dated(kgqa, "Which hospital is bigger, Riverside Clinic or Ostra Hospital?", shared, numeric) == shared


def test_a_path_back_home_to_a_topic_of_another_kind_is_no_answer(kgqa: Any, reading_of: Any) -> None:
    """``^published in → owned by → headquartered in`` returns to the city X; "which **newspapers**" fits the exact
    ``^headquartered in → ^owned by``'s ends better: that path is no detour to keep (nw18). With no type noun the
    topic may be the answer ("who is the spouse of the parent of X's kid", PQ-3H)."""
    question = "which newspapers are owned by the media group headquartered in Tevel"
    reading = reading_of(kgqa, question, ("^published in", "owned by", "headquartered in"))
    exact = reading_of(kgqa, question, ("^headquartered in", "^owned by")).best
    assert _home_not_asked(kgqa, reading, reading.text, exact)
    plain = reading_of(kgqa, "who owns the group headquartered in Tevel", ("^published in", "owned by", "headquartered in"))
    assert not _home_not_asked(kgqa, plain, plain.text, exact)
