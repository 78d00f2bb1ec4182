"""Question-type helpers over text answers."""

from graphhop.read.text_qa import parse_value, split_list


def test_parse_value_reads_digits_and_number_words():
    assert parse_value("in 1452") == 1452.0
    assert parse_value("three films") == 3.0
    assert parse_value("1,250 people") == 1250.0
    assert parse_value("Vinci") is None


def test_split_list_splits_commas_and_and():
    assert split_list("France, Germany and Italy.") == ["France", "Germany", "Italy"]
    assert split_list("The Salt Road") == ["The Salt Road"]


def test_numbers_above_twelve_and_thousands_stay_one_value():
    assert parse_value("for thirty years") == 30.0
    assert split_list("2,300") == ["2,300"]
    assert split_list("A, B and C") == ["A", "B", "C"]


def test_list_questions_and_comparatives_read_as_the_text_writes_them():
    from graphhop.read.text_qa import _positive, asks_list

    assert asks_list("Which paintings are kept in the Verrine Gallery?")
    assert asks_list("Which clubs has Pim Aldous played for?")
    assert not asks_list("Which river flows past the shipyard?")
    assert not asks_list("What is the capital of Arland?")
    assert _positive("Which river is longer, the Ostra?") == "Which river is long, the Ostra?"


def test_a_bearing_does_not_place_a_name_inside_another():
    from graphhop.read.text_yesno import _describes

    assert _describes("Vinci is a town in Italy.", "Italy")
    assert not _describes("Norrant is a kingdom to the north of Arland.", "Arland")


def test_an_option_is_a_name_or_describes_its_entity():
    from graphhop.read.text_qa import _is_name

    assert _is_name("the Ashfield Arena") and _is_name("Harrowgate Rovers")
    assert not _is_name("the director of The Salt Road")


def test_a_count_reads_the_number_written_before_the_counted_noun():
    from graphhop.read.text_counts import counted_number as _counting
    from graphhop.read.text_qa import Reading

    sentence = "The party numbered eleven Brennish climbers and surveyors, supported by about forty porters."
    readings = [Reading("forty", 0.4, ("p04",), 0.4, sentence), Reading("eleven", 0.2, ("p04",), 0.2, sentence)]
    assert _counting(readings, "How many Brennish climbers and surveyors took part?").text == "eleven"
    assert _counting(readings, "How many porters were hired?").text == "forty"
    assert _counting(readings, "How many ships sank?") is None
    assert _counting(readings, "Which climbers took part?") is None
    town = [Reading("640", 0.5, ("t07",), 0.5, "It opened in 1878 and seats 640 people."),
            Reading("210,000", 0.3, ("t08",), 0.3, "About 210,000 people live there.")]
    assert _counting(town, "How many people live in the city?").text == "210,000"


def test_a_number_counts_only_the_noun_in_its_own_clause():
    from graphhop.read.text_counts import counted_number as _counting
    from graphhop.read.text_qa import Reading

    late = Reading("1931", 0.34, ("p07",), 0.34, "He returned in 1931, when he reached the summit of Mount Oskelt.")
    five = Reading("Five", -0.27, ("p03",), -0.27, "Five climbers stood on the summit on 22 August of that year.")
    assert _counting([late, five], "How many climbers reached the summit of Kesh Tor?").text == "Five"


def test_an_age_is_read_as_the_year_the_text_dates():
    from graphhop.read.text_qa import _age_question

    assert _age_question("Who was older, A or B?", "Magnus Orrel") == ["When was Magnus Orrel born?"]
    assert _age_question("Who was born earlier, A or B?", "Ivo Brand") == ["When was Ivo Brand born?"]
    assert _age_question("Is the body that funded X older than the club Y?", "Royal Society") == \
        ["When was Royal Society founded?"]
    assert _age_question("Which river is longer, A or B?", "the Ostra") == []


def test_an_option_that_describes_its_entity_by_a_clause():
    from graphhop.read.text_qa import _CLAUSE

    assert _CLAUSE.match("the guild that paid for Blackfen Light").group(1, 2) == ("guild", "paid for Blackfen Light")
    assert _CLAUSE.match("the city Matthias Orrel was born in").group(1, 3) == ("city", "Matthias Orrel was born in")
    assert _CLAUSE.match("the director of The Salt Road") is None
    assert _CLAUSE.match("the University of Verrin") is None


def test_typed_list_items_are_kept_by_hop_count_not_by_how_many_passages_support_them():
    """A one-hop item whose support also cites its source's own passage (two passages) is read as far as a one-hop
    item with one passage; a two-hop item is not."""
    from graphhop.read.text_lists import typed_items
    from graphhop.read.text_qa import Reading, TextQA

    qa = TextQA(retriever=None, reader=object())
    top = Reading("Ardmore Light", 2.0, ("p1",), 2.0, type_fit=1.0, hops=1)
    cited = Reading("Skerry Light", 1.8, ("p2", "p3"), 1.8, type_fit=1.0, hops=1)   # own passage p2 + the hop's p3
    far = Reading("Relief", 1.9, ("p1", "p4"), 1.9, type_fit=1.0, hops=2)
    best, items, support = typed_items(qa, [top, cited, far], top)
    assert best.text == "Ardmore Light" and items == ["Ardmore Light", "Skerry Light"]
    assert support == ["p1", "p2", "p3"]


def test_a_number_the_question_writes_is_a_condition_not_a_value():
    """``Which had more inhabitants in 1500, Dravenholm or Corvath?``: 1500 dates the value asked; never an option's."""
    from graphhop.read.text_qa import question_numbers

    assert question_numbers("Which had more inhabitants in 1500, Dravenholm or Corvath?") == {1500.0}
    assert question_numbers("In 1871, which had the larger population, 2,000 or the one Ada built?") == {1871.0, 2000.0}
    assert question_numbers("Which station was founded earlier: the one Ilse Marrow directed or Kelmis?") == set()


def test_a_comparison_takes_no_option_value_from_the_number_the_question_writes():
    """Each option's best number is the year the question names (1500); the values compared are the populations."""
    from types import SimpleNamespace

    from graphhop.read.text_qa import Reading, TextQA

    texts = {"p14": "Dravenholm's population was about 14,000 in 1500.",
             "p15": "In 1500 the city of Corvath had around 22,000 inhabitants."}
    retriever = SimpleNamespace(text=texts.get, title=lambda d: "", graph_from_paths=lambda q, p: None)

    class _Stub(TextQA):
        def _read(self, question, query=None):
            doc = "p14" if "Dravenholm" in question else "p15"
            value = "14,000" if doc == "p14" else "22,000"
            holder = "Dravenholm" if doc == "p14" else "Corvath"
            return [], [Reading("1500", 2.0, (doc,), 2.0, texts[doc], holder),
                        Reading(value, 1.0, (doc,), 1.0, texts[doc], holder)]

    res = _Stub(retriever, reader=object()).answer("Which had more inhabitants in 1500, Dravenholm or Corvath?",
                                                   "comparison")
    assert res.answer == "Corvath" and [p["value"] for p in res.trace["picks"]] == [14000.0, 22000.0]


class _Passages:
    """A stub retriever: passage texts by id."""

    def __init__(self, texts):
        self.texts = texts

    def text(self, doc):
        return self.texts[doc]


class _Graph:
    """A stub sentence graph: passages titled with a name (``Skerrow Rock`` read as the lighthouse's)."""

    def own(self, name):
        return {"Skerrow Rock": ["p2"], "Hedda Gorrinsen": ["p1"], "Saltmere": ["p3"]}.get(name, [])


def _answer(answer, support, supported=True, answers=None):
    from graphhop.graph import EvidenceGraph
    from graphhop.read.text_qa import TextAnswer

    return TextAnswer("query", answer, 1.0, answers or [answer], supported, tuple(support), EvidenceGraph())


def test_the_support_takes_the_own_passage_of_a_bridge_entity_that_names_the_answer():
    from types import SimpleNamespace

    from graphhop.read.text_qa import TextQA

    texts = {"p1": "Hedda Gorrinsen kept the light at Skerrow Rock. She was born in Saltmere.",
             "p2": "Skerrow Rock Lighthouse was designed by Mirela Vosk.",
             "p3": "Saltmere is a fishing town.", "p4": "Mirela Vosk also drew the plans of Blackfen Light."}
    qa = TextQA(_Passages(texts), SimpleNamespace(graph=_Graph()), bridges=True)
    res = qa.bridged(_answer("Mirela Vosk", ["p1", "p4"]))
    assert res.support == ("p1", "p4", "p2")  # Saltmere's own passage names no answer: not evidence
    assert qa.bridged(_answer("Mirela Vosk", [], supported=False)).support == ()
    assert qa.bridged(_answer("1847", ["p1"])).support == ("p1",)  # a number is no entity to bridge to
    off = TextQA(_Passages(texts), SimpleNamespace(graph=_Graph()))
    assert off.bridges is False  # an option, off by default (support precision falls: docs/RESULTS.md, txt18)


def test_bridges_option_bad_text_is_one_line() -> None:
    """`-o bridges=maybe` for the text pipeline is an InputError naming the option, before any index is read."""
    import pytest

    from graphhop.core import InputError
    from graphhop.pipeline.text import _factory

    with pytest.raises(InputError, match="text: bridges must be true or false"):
        _factory(None, bridges="maybe")
