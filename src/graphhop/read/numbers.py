"""Numbers in text, one definition for every reader: where a number is written, whether a span *is* one,
and its value.

A number is digits (``7``, ``1452``, ``2,300``, ``91.5``) or a number word (general English: units to
twelve, the tens, and a ten with a unit: ``thirty``, ``seventy-one``, ``twenty one``). A *span* is a number
when it is a number or a range of two (``1851-1923``, ``1790 – 1860``: a life's years read as a value).
"""

from __future__ import annotations

import re

__all__ = ["NUMBER", "NUMBER_WORDS", "is_number", "parse_value"]

_UNITS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
#: Number words and their values (units to twelve, the tens).
NUMBER_WORDS: dict[str, int] = {**{w: i for i, w in enumerate(_UNITS)}, **{w: 10 * i for i, w in enumerate(_TENS, start=2)}}

_WORD = r"(?:(?:" + "|".join(_TENS) + r")(?:[\s-](?:" + "|".join(_UNITS[1:10]) + r"))?|" + "|".join(_UNITS) + r")"
_DIGITS = r"\d[\d,.]*\d|\d"
#: Where numbers are written in a text (``finditer``): digits or number words, whole words only.
NUMBER = re.compile(r"\b(?:" + _DIGITS + r")\b|\b" + _WORD + r"\b", re.I)
_ONE = r"(?:" + _DIGITS + "|" + _WORD + ")"
_SPAN = re.compile(_ONE + r"(?:\s*[-–]\s*" + _ONE + r")?", re.I)


def is_number(text: str) -> bool:
    """Whether ``text`` is only a number or a range of two (module docstring); surrounding spaces ignored."""
    return bool(_SPAN.fullmatch(text.strip()))


def parse_value(text: str) -> float | None:
    """The first number in ``text`` (digits, else number words: ``seventy-one`` is 71); None when there is none."""
    m = re.search(r"-?\d+(?:[.,]\d+)*", text)
    if m:
        try:
            return float(m.group(0).replace(",", ""))
        except ValueError:
            return None
    m = re.search(r"\b" + _WORD + r"\b", text, re.I)
    if not m:
        return None
    return float(sum(NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", m.group(0).lower())))
