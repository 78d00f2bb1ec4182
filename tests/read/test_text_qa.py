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
