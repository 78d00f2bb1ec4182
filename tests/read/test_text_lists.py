"""List questions over text (graphhop.read.text_lists): which questions ask a list, and which readings are items."""

from graphhop.read.text_lists import asks_list, list_items
from graphhop.read.text_qa import Reading, TextQA


def test_a_list_is_asked_after_a_preposition_past_names_and_by_who_were_the_plural():
    assert asks_list("At which universities did Rosalind Feyr study or teach?")
    assert asks_list("In which towns can you see the clocks of her pupils today?")
    assert asks_list("Which Sawdust Academy graduates have won awards?")
    assert asks_list("Who were the apprentices Jessamy Crane took on?")
    assert asks_list("Who were the first captains of the ferries?")
    assert asks_list("Two relatives wrote to each other. At which glassworks did they work?")
    assert not asks_list("In which country was the painter of the Mona Lisa born?")
    assert not asks_list("In what year did Corin Dask set up his school?")
    assert not asks_list("Who was the first captain of the ferry?")
    assert not asks_list("Which river flows past the shipyard?")


class _Stub(TextQA):
    def stating(self, text: str, answer: str) -> list[str]:
        return []


def test_a_list_of_names_keeps_no_number_read_in_the_same_sentence():
    """``Its holders include Oda Fenn (1930) and Gideon Holloway``: the years are no holders."""
    qa = _Stub(retriever=None, reader=object(), list_margin=0.1)
    sentence = "Its holders include Oda Fenn (1930) and Gideon Holloway, who received it in 1932."
    rs = [Reading("Gideon Holloway", 0.47, ("p18",), 0.47, sentence, "Gold Compass", 0.17, 1),
          Reading("Oda Fenn", 0.44, ("p18",), 0.44, sentence, "Gold Compass", 0.12, 1),
          Reading("1930", 0.38, ("p18",), 0.38, sentence, "Gold Compass", 0.0, 1),
          Reading("1932", 0.38, ("p19",), 0.38, sentence, "Gold Compass", 0.0, 1)]
    best, items, support = list_items(qa, "Which Gold Compass holders?", rs, rs[0])
    assert items == ["Gideon Holloway", "Oda Fenn"] and support == ["p18"]
    best, items, support = list_items(qa, "In which years?", rs[2:], rs[2])
    assert items == ["1930", "1932"] and support == ["p18", "p19"]


def test_a_list_keeps_the_support_of_every_reading_of_its_items():
    """``Two volcanoes dominate it: Mount Skarroth ... and Hekkavar`` (p02) reads an item again on a longer path: its
    passage joins the support; a reading the reader does not find an answer in (margin <= 0) does not."""
    qa = _Stub(retriever=None, reader=object(), list_margin=0.1)
    rs = [Reading("Hekkavar", 1.03, ("p06",), 1.03, "s1", "Orvanna", 1.0, 1),
          Reading("Mount Skarroth", 0.73, ("p05",), 0.73, "s2", "Orvanna", 1.0, 1),
          Reading("Mount Skarroth", 0.63, ("p01", "p02"), 0.63, "s3", "Two", 1.0, 2),
          Reading("Hekkavar", -0.2, ("p09",), -0.2, "s4", "Orvanna", 1.0, 1)]
    best, items, support = list_items(qa, "Which volcanoes are on Orvanna?", rs, rs[0])
    assert items == ["Hekkavar", "Mount Skarroth"] and support == ["p06", "p05", "p01", "p02"]


def test_names_a_sentence_coordinates_and_names_it_does_not():
    from graphhop.read.text_lists import coordinated

    s = "It worked three mines on Korrow Moor, Polgarrow Mine, Blackmarrow Pit and Hollin Edge Mine, and in 1866 it grew."
    assert coordinated(s, "Polgarrow Mine", "Blackmarrow Pit") and coordinated(s, "Blackmarrow Pit", "Hollin Edge Mine")
    assert not coordinated(s, "Korrow Moor", "Polgarrow Mine")  # a place after ``on``, then the list
    lh = "Its crews went out to the steamer Castellan in 1889 and to the barque Harwick Maid in 1894."
    assert coordinated(lh, "Castellan", "Harwick Maid")
    assert coordinated("Its holders include Oda Fenn (1930) and Gideon Holloway, who received it.", "Oda Fenn",
                       "Gideon Holloway")
    assert not coordinated("Polgarrow Mine, two miles south of Tallowford, was rich.", "Polgarrow Mine", "Tallowford")
    assert not coordinated("The capital of Pelasca, however, is Montaury.", "Pelasca", "Montaury")
    assert not coordinated("Two volcanoes dominate it: Mount Skarroth in the north, whose summit is high, and Hekkavar.",
                           "Mount Skarroth", "Hekkavar")


def test_a_list_stated_as_one_enumeration_is_that_enumeration():
    """The first kept item a sentence coordinates with other names gives the list: the enumeration's names (read off
    the same entity in that sentence, at any margin), not the items read off other entities."""
    from graphhop.read.text_lists import coordinated_items

    s = "It worked three mines on Korrow Moor, Polgarrow Mine, Blackmarrow Pit and Hollin Edge Mine."
    rs = [Reading("Polgarrow Mine", 0.36, ("p07",), 0.36, s, "Brennick & Vale", 1.0, 2),
          Reading("Hollin Edge Mine", 0.36, ("p07",), 0.36, s, "Brennick & Vale", 1.0, 2),
          Reading("Carrack Vein Mine", 0.19, ("p07", "p04"), 0.19, "The mine never grew.", "Never", 1.0, 3),
          Reading("Korrow Moor", 0.1, ("p07",), 0.1, s, "Brennick & Vale", 0.4, 2),
          Reading("Blackmarrow Pit", -0.3, ("p07",), -0.3, s, "Brennick & Vale", 1.0, 2),
          Reading("three", -0.3, ("p07",), -0.3, s, "Brennick & Vale", 0.0, 2)]
    items, support = coordinated_items(rs, ["Polgarrow Mine", "Hollin Edge Mine", "Carrack Vein Mine"], ["p07", "p04"])
    assert items == ["Polgarrow Mine", "Blackmarrow Pit", "Hollin Edge Mine"] and support == ["p07"]
    # no kept item is coordinated with another name: the items stay as they are
    assert coordinated_items(rs[2:3], ["Carrack Vein Mine"], ["p04"]) == (["Carrack Vein Mine"], ["p04"])
    assert coordinated_items(rs, ["1866", "1870"], ["p07"]) == (["1866", "1870"], ["p07"])  # numbers: no enumeration


def test_a_list_after_a_preposition_joins_names_of_one_kind():
    """``It kept boats at Pellock, Saltmere and Dunmarrow``: three towns (one fit); ``three mines on Korrow Moor,
    Polgarrow Mine, ...``: the moor fits the asked type less than the mines, and is no item."""
    from graphhop.read.text_lists import coordinated, coordinated_items

    s = "It kept boats at Pellock, Saltmere and Dunmarrow."
    assert coordinated(s, "Pellock", "Saltmere", alike=True) and not coordinated(s, "Pellock", "Saltmere")
    rs = [Reading(t, 1.0 - i / 10, ("p15",), 1.0, s, "Corran Lifeboat Society", 1.0, 1)
          for i, t in enumerate(["Pellock", "Saltmere", "Dunmarrow"])]
    assert coordinated_items(rs, ["Pellock"], ["p15"])[0] == ["Pellock", "Saltmere", "Dunmarrow"]
