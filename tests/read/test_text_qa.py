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
    from graphhop.read.text_qa import _describes

    assert _describes("Vinci is a town in Italy.", "Italy")
    assert not _describes("Norrant is a kingdom to the north of Arland.", "Arland")


def test_an_option_is_a_name_or_describes_its_entity():
    from graphhop.read.text_qa import _is_name

    assert _is_name("the Ashfield Arena") and _is_name("Harrowgate Rovers")
    assert not _is_name("the director of The Salt Road")


def test_a_count_reads_the_number_written_before_the_counted_noun():
    from graphhop.read.text_qa import Reading, _counting

    sentence = "The party numbered eleven Brennish climbers and surveyors, supported by about forty porters."
    readings = [Reading("forty", 0.4, ("p04",), 0.4, sentence), Reading("eleven", 0.2, ("p04",), 0.2, sentence)]
    assert _counting(readings, "How many Brennish climbers and surveyors took part?").text == "eleven"
    assert _counting(readings, "How many porters were hired?").text == "forty"
    assert _counting(readings, "How many ships sank?") is None
    assert _counting(readings, "Which climbers took part?") is None
    town = [Reading("640", 0.5, ("t07",), 0.5, "It opened in 1878 and seats 640 people."),
            Reading("210,000", 0.3, ("t08",), 0.3, "About 210,000 people live there.")]
    assert _counting(town, "How many people live in the city?").text == "210,000"
