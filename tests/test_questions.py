"""Question bounds: empty, wordless and over-long questions are one-line errors; others pass through."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphhop.core import InputError
from graphhop.questions import DEFAULT_MAX_QUESTION_CHARS, check_question, check_questions


@pytest.mark.parametrize("bad, message", [
    ("", "question is empty"),
    ("   \t\n ", "question is empty"),
    ("?!...", "has no words"),
    ("___ -- ??", "has no words"),
    ("x" * 100_000, "100,000 characters long; the limit is 2,000"),
])
def test_bad_questions_are_rejected_in_one_short_line(bad, message):
    with pytest.raises(InputError, match=message) as info:
        check_question(bad)
    assert "\n" not in str(info.value) and len(str(info.value)) < 200  # never echoes the question


def test_good_questions_are_stripped_and_kept():
    assert check_question("  who directed Alien?\n") == "who directed Alien?"
    assert check_question("東京はどこ") == "東京はどこ"
    assert check_question("x" * DEFAULT_MAX_QUESTION_CHARS) == "x" * DEFAULT_MAX_QUESTION_CHARS


def test_limit_is_configurable(monkeypatch):
    assert check_question("a" * 50, max_chars=50)
    with pytest.raises(InputError, match="limit is 10"):
        check_question("a" * 11, max_chars=10)
    monkeypatch.setenv("GRAPHHOP_MAX_QUESTION_CHARS", "5")
    with pytest.raises(InputError, match="limit is 5"):
        check_question("abcdef")
    monkeypatch.setenv("GRAPHHOP_MAX_QUESTION_CHARS", "lots")
    with pytest.raises(InputError, match="expected a whole number"):
        check_question("abc")


def test_several_questions_name_the_bad_one():
    with pytest.raises(InputError, match="question 2 is empty"):
        check_questions(["who?", " "])
    with pytest.raises(InputError, match="no question given"):
        check_questions([])


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(max_size=2500), st.binary(max_size=300).map(lambda b: b.decode("utf-8", "replace"))))
def test_any_text_is_accepted_or_one_line_error(text):
    try:
        out = check_question(text)
    except InputError as exc:
        assert "\n" not in str(exc)
    else:
        assert out == text.strip() and 0 < len(out) <= DEFAULT_MAX_QUESTION_CHARS
        assert any(c.isalnum() for c in out)
