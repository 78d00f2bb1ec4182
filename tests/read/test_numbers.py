"""One number detector for every text reader (``graphhop.read.numbers``)."""

from __future__ import annotations

from graphhop.read.numbers import NUMBER, is_number, parse_value


def test_is_number_agrees_on_digits_words_tens_and_year_ranges():
    for text in ("7", "1452", "2,300", "91.5", "three", "Twelve", "thirty", "seventy-one", "twenty one",
                 "1851-1923", "1790 – 1860", " 42 "):
        assert is_number(text), text
    for text in ("Brisk", "1452 Vinci", "thirty years", "one-eyed", "", "-", "1851-"):
        assert not is_number(text), text


def test_number_spans_are_single_numbers_so_a_life_range_is_two_years():
    text = "Amos Teel (1790-1860) served thirty years and sold 2,300 maps in seventy-one towns."
    assert [m.group(0) for m in NUMBER.finditer(text)] == ["1790", "1860", "thirty", "2,300", "seventy-one"]


def test_parse_value_reads_compound_tens():
    assert parse_value("returns every seventy-one years") == 71.0
    assert parse_value("for thirty years") == 30.0
    assert parse_value("1,250 people") == 1250.0
    assert parse_value("Vinci") is None
